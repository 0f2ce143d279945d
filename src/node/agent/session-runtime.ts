/**
 * What the bridge keeps of a session besides its messages: the subagents' sessions its `task`
 * calls made (OpenCode's export of each child, stored under the child's own session id in the
 * same workspace, like the parent) and OpenCode's own definitions for every agent and model the
 * sessions used (runtime-definitions.ts), recorded once per session and key. Pure helpers on
 * OpenCode's export, and the one function the bridge calls after it saved a turn.
 */
import { isObject } from '../../shared/opencode/format';
import { definitionsKey } from '../../shared/opencode/definitions';
import type { Store } from '../storage/store';
import { messageRows, type SessionExport } from './opencode-export';
import {
  notRecorded,
  recordDefinitions,
  type DefinitionsOptions,
  type RuntimeUse,
  type SessionUses,
} from './runtime-definitions';

/** Every agent and model the session's replies were made by, in order of first use. */
export function sessionUses(exported: SessionExport): RuntimeUse[] {
  const seen = new Map<string, RuntimeUse>();
  for (const { info } of exported.messages) {
    if (info.role !== 'assistant') continue;
    const { agent, providerID, modelID } = info as { agent?: unknown; providerID?: unknown; modelID?: unknown };
    if (typeof providerID !== 'string' || typeof modelID !== 'string') continue;
    const use = { agent: typeof agent === 'string' ? agent : 'build', providerID, modelID };
    const key = definitionsKey(use.agent, use.providerID, use.modelID);
    if (!seen.has(key)) seen.set(key, use);
  }
  return [...seen.values()];
}

/** The subagents' sessions the session's `task` calls made (OpenCode records the child's id on the call). */
export function childSessions(exported: SessionExport): string[] {
  const found = new Set<string>();
  for (const message of exported.messages) {
    for (const part of message.parts) {
      if (part.type !== 'tool' || part.tool !== 'task' || !isObject(part.state)) continue;
      const metadata = part.state.metadata;
      const id = isObject(metadata) ? metadata.sessionId : undefined;
      if (typeof id === 'string' && id !== '' && id !== exported.info.id) found.add(id);
    }
  }
  return [...found];
}

/** When the session's latest user message was written: the start of the turn just saved. */
function lastPrompt(exported: SessionExport): number {
  let last = -Infinity;
  for (const message of exported.messages) {
    const info = message.info as { role?: unknown; time?: { created?: unknown } };
    if (info.role === 'user' && typeof info.time?.created === 'number') last = Math.max(last, info.time.created);
  }
  return last;
}

/** The children every `task` call of which had ended before `time` (one still running never has). */
function finishedBefore(exported: SessionExport, time: number): Set<string> {
  const ended = new Map<string, boolean>();
  for (const message of exported.messages) {
    for (const part of message.parts) {
      if (part.type !== 'tool' || part.tool !== 'task' || !isObject(part.state)) continue;
      const metadata = part.state.metadata;
      const id = isObject(metadata) ? metadata.sessionId : undefined;
      if (typeof id !== 'string') continue;
      const end = isObject(part.state.time) ? part.state.time.end : undefined;
      ended.set(id, (ended.get(id) ?? true) && typeof end === 'number' && end < time);
    }
  }
  return new Set([...ended].filter(([, before]) => before).map(([id]) => id));
}

export interface KeepRuntime {
  store: Store;
  workspaceId: string;
  /** The session as exported after the turn. */
  exported: SessionExport;
  log: (line: string) => void;
}

export interface KeptChild {
  sessionId: string;
  exported: SessionExport;
}

/**
 * After a turn was saved: each subagent's session the session's `task` calls made, read back
 * (`exportSession`, run as the agent) and stored under its own id in the same workspace, the way
 * the parent is. A child that cannot be read is logged; the turn stays saved.
 */
export async function keepChildren(
  keep: KeepRuntime & { exportSession: (sessionId: string) => Promise<SessionExport> },
): Promise<KeptChild[]> {
  const { store, workspaceId, exported, log } = keep;
  const children: KeptChild[] = [];
  const stored = new Set((await store.listSessions(workspaceId)).map((s) => s.session_id));
  const earlier = finishedBefore(exported, lastPrompt(exported));
  for (const child of childSessions(exported)) {
    // A child stored after an earlier turn, whose task calls all ended before this turn's prompt,
    // has not changed: it is not read back again (a session's turns would otherwise grow slower).
    if (stored.has(child) && earlier.has(child)) continue;
    try {
      const read = await keep.exportSession(child);
      if (read.info.id !== child) throw new Error(`the export names another session (${read.info.id})`);
      const rows = messageRows(read);
      await store.transaction(async (tx) => {
        for (const row of rows) await tx.upsertMessage({ ...row, workspaceId, sessionId: child });
      });
      children.push({ sessionId: child, exported: read });
    } catch (error) {
      log(`subagent session ${child} of ${exported.info.id} could not be read back: ${describe(error)}`);
    }
  }
  return children;
}

/**
 * OpenCode's definitions for every agent and model of the session and its subagents' sessions
 * not recorded yet, stored with each session (and each child's parent). Without a way to ask
 * OpenCode (`definitions` null), each is stored as not recorded, with the reason.
 */
export async function keepDefinitions(
  keep: KeepRuntime & { children: readonly KeptChild[]; definitions: DefinitionsOptions | null },
): Promise<number> {
  const { store, workspaceId, exported, log, children } = keep;
  const sessionId = exported.info.id;
  const wanted: SessionUses[] = [];
  for (const session of [{ sessionId, exported }, ...children]) {
    const recorded = new Set((await store.sessionRuntime(workspaceId, session.sessionId)).map((r) => r.runtime_key));
    const uses = sessionUses(session.exported).filter(
      (u) => !recorded.has(definitionsKey(u.agent, u.providerID, u.modelID)),
    );
    if (uses.length > 0) wanted.push({ sessionId: session.sessionId, uses });
  }
  if (wanted.length === 0) return 0;
  const recorded = keep.definitions
    ? await recordDefinitions(wanted, keep.definitions)
    : notRecorded(wanted, 'no OpenCode server to ask: the agent command is not OpenCode’s `acp`');
  const childIds = new Set(children.map((c) => c.sessionId));
  await store.transaction(async (tx) => {
    for (const r of recorded) {
      if (r.definitions.failed) log(`OpenCode's definitions for ${r.sessionId} (${r.key}): ${r.definitions.failed}`);
      await tx.putSessionRuntime({
        workspaceId,
        sessionId: r.sessionId,
        runtimeKey: r.key,
        // A child's parent is known from its parent's call even when OpenCode's server could not say.
        parentSessionId: r.parentSessionId ?? (childIds.has(r.sessionId) ? sessionId : null),
        recordedAt: Date.now(),
        definitions: r.definitions,
      });
    }
  });
  return recorded.length;
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
