/**
 * What OpenCode leaves beside a turn's messages: the subagents' sessions its `task` calls made
 * (each read back with `opencode export` and stored under its own id) and its definitions for
 * each agent and model not recorded yet, or recorded without an MCP server the agent now has
 * (session-runtime.ts) — their rows reserved at once, then asked of OpenCode's own server
 * (`opencode serve`, run as the agent is), which takes seconds: returned as `later`. Its answers
 * about the agent's set-up are kept (definitions-cache.ts): a later session of the same set-up
 * starts no server at all, and a turn that ends while the workspace's last recording is still in
 * flight waits for it, then finds its answers kept.
 */
import { join } from 'node:path';
import type { McpServer } from '@agentclientprotocol/sdk';
import { workspaceKey } from '../agent-home';
import type { RecordContext } from '../runtime-seam';
import type { AgentSettings } from '../settings';
import type { DefinitionsOptions, SessionInfo } from './runtime-definitions';
import type { SessionExport } from './session-export';
import { keepChildren, keepDefinitions, reserveDefinitions } from './session-runtime';

/** Each workspace's definitions recording in flight, by its answers' file. */
const inFlight = new Map<string, Promise<void>>();

export async function recordOpencode(
  context: RecordContext,
  settings: AgentSettings,
  exported: SessionExport,
  runExport: (sessionId: string) => Promise<SessionExport>,
): Promise<{ sessions: readonly string[]; later?: Promise<void> }> {
  const { store, workspaceId, log } = context;
  const keep = { store, workspaceId, exported, log };
  const children = await keepChildren({ ...keep, exportSession: runExport });
  const sessions = [exported.info.id, ...children.map((c) => c.sessionId)];
  if (context.closing()) return { sessions };
  const server = settings.runtimeServer ?? null;
  // The agent's own MCP server reaches OpenCode through ACP, not its configuration: it is
  // listed as the agent process has it (a grant of its own, dropped once recorded).
  const acpMcp = server ? context.reportMcp() : null;
  const extraMcp = localMcp(acpMcp?.servers ?? []);
  try {
    // The rows first, before the turn's last event: the report made now already counts the
    // runtime's change points, and the recording (seconds) only fills their definitions in.
    const reserved = await reserveDefinitions({
      ...keep,
      children,
      mcpServers: Object.keys(extraMcp),
      now: Date.now(),
    });
    const definitions: DefinitionsOptions | null = server
      ? {
          launch: (program, needs) => context.launch(program, needs),
          isolatedNetwork: context.isolatedNetwork,
          serve: server,
          // OpenCode's server starts as slowly as its agent does: bounded the same.
          ...(settings.startTimeoutMs ? { startTimeoutMs: settings.startTimeoutMs } : {}),
          reaches: (url) => context.reaches(url),
          extraMcp,
          cache: { file: definitionsCacheFile(settings.stateDir, workspaceId) },
          sessions: new Map(
            [exported, ...children.map((c) => c.exported)].map((e) => [e.info.id, sessionInfo(e.info)] as const),
          ),
        }
      : null;
    const cacheFile = definitionsCacheFile(settings.stateDir, workspaceId);
    // After the workspace's recording still in flight (a turn that ended while the last one's
    // server was starting): its answers are then kept, and this one starts no second server.
    const later = (inFlight.get(cacheFile) ?? Promise.resolve())
      .then(() => keepDefinitions({ ...keep, reserved, definitions }))
      .then(
        () => {},
        (error: unknown) =>
          log(`the definitions of session ${exported.info.id} were not kept: ${(error as Error).message}`),
      )
      .finally(() => {
        acpMcp?.revoke();
        if (inFlight.get(cacheFile) === later) inFlight.delete(cacheFile);
      });
    inFlight.set(cacheFile, later);
    return { sessions, later };
  } catch (error) {
    acpMcp?.revoke();
    throw error;
  }
}

/**
 * Where the answers about a workspace agent's set-up are kept (definitions-cache.ts): in the
 * agents' state, in the folder hidden from every agent's sandbox, owner-only.
 */
export function definitionsCacheFile(stateDir: string, workspaceId: string): string {
  return join(stateDir, 'workspaces', 'definitions', `${workspaceKey(workspaceId)}.json`);
}

/** A session's parent and permission rules as its export records them (OpenCode's `Session.Info`). */
function sessionInfo(info: SessionExport['info']): SessionInfo {
  const { parentID, permission } = info as { parentID?: unknown; permission?: unknown };
  return {
    ...(typeof parentID === 'string' ? { parentID } : {}),
    ...(Array.isArray(permission) ? { permission: permission as NonNullable<SessionInfo['permission']> } : {}),
  };
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
