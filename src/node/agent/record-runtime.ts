/**
 * What the bridge keeps of a turn besides its messages, after it was saved: the subagents'
 * sessions its `task` calls made (each read back and stored under its own id), and OpenCode's
 * definitions for each agent and model not recorded yet, or recorded without an MCP server the
 * agent now has (session-runtime.ts) — their rows reserved at once, then asked of OpenCode's own
 * server, which takes seconds, so in the background: the turn has ended by then, and `settled()`
 * waits for it; then the session's texts counted and the counts stored (the write path's
 * counting: reports read them). None may fail a turn: what cannot be kept is logged.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import { countSessions } from '../counting/count-sessions';
import type { Store } from '../storage/store';
import type { SessionExport } from './opencode/session-export';
import type { RunExport } from './persist-turn';
import type { DefinitionsOptions } from './opencode/runtime-definitions';
import { keepChildren, keepDefinitions, reserveDefinitions } from './opencode/session-runtime';

export interface RecordNeeds {
  store: Store;
  workspaceId: string;
  exported: SessionExport;
  runExport: RunExport;
  /** How OpenCode's server runs as the agent does; null: not OpenCode, nothing to ask. */
  definitions: Omit<DefinitionsOptions, 'extraMcp'> | null;
  /**
   * The MCP servers the agent process is given through ACP (investibook's own report), which
   * OpenCode's configuration does not list: recorded as the agent has them.
   */
  acpMcp: { servers: readonly McpServer[]; revoke: () => void } | null;
}

export class RuntimeRecorder {
  /** Recordings still under way after their turns ended. */
  private readonly recording = new Set<Promise<void>>();
  /** Closing: nothing new is recorded (the session's next turn records what is missing). */
  closing = false;

  constructor(private readonly log: (line: string) => void) {}

  async keep(needs: RecordNeeds): Promise<void> {
    const { store, workspaceId, exported } = needs;
    const keep = { store, workspaceId, exported, log: this.log };
    try {
      const children = await keepChildren({ ...keep, exportSession: needs.runExport });
      if (this.closing) {
        needs.acpMcp?.revoke();
        return;
      }
      const extraMcp = localMcp(needs.acpMcp?.servers ?? []);
      const definitions = needs.definitions ? { ...needs.definitions, extraMcp } : null;
      // The rows first, before the turn's last event: the report made now already counts the
      // runtime's change points, and the recording (seconds) only fills their definitions in.
      const reserved = await reserveDefinitions({
        ...keep,
        children,
        mcpServers: Object.keys(extraMcp),
        now: Date.now(),
      });
      const recording: Promise<void> = keepDefinitions({ ...keep, reserved, definitions })
        .then(
          () => {},
          (error: unknown) =>
            this.log(`the definitions of session ${exported.info.id} were not kept: ${(error as Error).message}`),
        )
        // Then the turn's texts counted once (their definitions' too), so no report counts them again.
        .then(() =>
          this.closing
            ? undefined
            : this.count(store, workspaceId, [exported.info.id, ...children.map((c) => c.sessionId)]),
        )
        .finally(() => {
          needs.acpMcp?.revoke();
          this.recording.delete(recording);
        });
      this.recording.add(recording);
    } catch (error) {
      needs.acpMcp?.revoke();
      this.log(`the subagents of session ${exported.info.id} were not kept: ${(error as Error).message}`);
    }
  }

  /** The sessions' token counts stored (counting/count-sessions.ts); a failure is logged, never a turn's. */
  private async count(store: Store, workspaceId: string, sessionIds: string[]): Promise<void> {
    try {
      await countSessions(store, workspaceId, sessionIds);
    } catch (error) {
      this.log(`the token counts of session ${sessionIds[0]} were not stored: ${(error as Error).message}`);
    }
  }

  /** Resolves once every turn's definitions are recorded and its texts counted (tests; close). */
  async settled(): Promise<void> {
    while (this.recording.size > 0) await Promise.allSettled([...this.recording]);
  }
}

/** ACP's MCP servers as OpenCode's configuration would name them (`mcp.<name>`). */
function localMcp(servers: readonly McpServer[]): NonNullable<DefinitionsOptions['extraMcp']> {
  return Object.fromEntries(
    servers
      .flatMap((s) => ('command' in s ? [[s.name, s] as const] : []))
      .map(([name, s]) => [
        name,
        {
          type: 'local' as const,
          command: [s.command, ...s.args],
          environment: Object.fromEntries(s.env.map((e) => [e.name, e.value])),
        },
      ]),
  );
}
