/**
 * What the bridge keeps of a session besides its messages: the subagents' sessions its `task`
 * calls made (OpenCode's export of each child, stored under the child's own session id in the
 * same workspace, like the parent) and OpenCode's own definitions for every agent and model the
 * sessions used (runtime-definitions.ts), recorded once per session and key. Pure helpers on
 * OpenCode's export, and the one function the bridge calls after it saved a turn.
 */
import { isObject } from '../../../shared/opencode/format';
import { definitionsKey } from '../../../shared/opencode/definitions';
import { columnText } from '../../storage/column-text';
import type { Store } from '../../storage/store';
import { messageRows, type SessionExport } from './session-export';
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

/** What a use's definitions are recorded under, and from when they describe its calls. */
export interface ReservedDefinitions {
  sessionId: string;
  use: RuntimeUse;
  /** `definitionsKey(…)`; a later set of the same agent and model: `… @<since>`. */
  key: string;
  /** Kept as it is reserved, so the report's snapshot does not move when the recording lands. */
  recordedAt: number;
  parentSessionId: string | null;
}

/** What a row holds before its definitions are in: the report says they are being recorded. */
export const PENDING_DEFINITIONS = 'pending';

/**
 * Right after a turn was saved, before its definitions are asked for (seconds, in the
 * background): the rows they will be kept in, each with its final key and time, so that the
 * report made at the turn's end already has the runtime's change points and its snapshot holds
 * once the definitions land. A use is recorded when it has no row yet (or only one still
 * pending: a recording cut short), and again — under a key of its own, from the turn's prompt
 * on — when the agent now has an MCP server (given over ACP, investibook's own) that its latest
 * definitions lack: the seeded demo's were recorded without it.
 */
export async function reserveDefinitions(
  keep: KeepRuntime & { children: readonly KeptChild[]; mcpServers: readonly string[]; now: number },
): Promise<ReservedDefinitions[]> {
  const { store, workspaceId, exported, children } = keep;
  const reserved: ReservedDefinitions[] = [];
  // Rows to write now: a pending row an earlier turn reserved is there already.
  const fresh: ReservedDefinitions[] = [];
  const childIds = new Set(children.map((c) => c.sessionId));
  for (const session of [{ sessionId: exported.info.id, exported }, ...children]) {
    const rows = await store.sessionRuntime(workspaceId, session.sessionId);
    for (const use of sessionUses(session.exported)) {
      const base = definitionsKey(use.agent, use.providerID, use.modelID);
      const mine = rows.filter((r) => r.runtime_key === base || r.runtime_key.startsWith(`${base} @`));
      const pending = mine.find((r) => kindOf(r.definitions) === PENDING_DEFINITIONS);
      const latest = mine
        .filter((r) => kindOf(r.definitions) === 'opencode')
        .sort((a, b) => Number(b.recorded_at) - Number(a.recorded_at))[0];
      const lacks = latest ? keep.mcpServers.filter((name) => !mcpNames(latest.definitions).includes(name)) : [];
      const since = lastPrompt(session.exported);
      const target = pending
        ? { key: pending.runtime_key, recordedAt: Number(pending.recorded_at) }
        : mine.length === 0
          ? { key: base, recordedAt: keep.now }
          : lacks.length > 0 && Number.isFinite(since) && !mine.some((r) => r.runtime_key === `${base} @${since}`)
            ? { key: `${base} @${since}`, recordedAt: since }
            : null;
      if (!target) continue;
      const row = {
        sessionId: session.sessionId,
        use,
        ...target,
        parentSessionId: childIds.has(session.sessionId) ? exported.info.id : (pending?.parent_session_id ?? null),
      };
      reserved.push(row);
      if (!pending) fresh.push(row);
    }
  }
  if (fresh.length > 0)
    await store.transaction(async (tx) => {
      for (const r of fresh)
        await tx.putSessionRuntime({
          workspaceId,
          sessionId: r.sessionId,
          runtimeKey: r.key,
          parentSessionId: r.parentSessionId,
          recordedAt: r.recordedAt,
          definitions: { kind: PENDING_DEFINITIONS, ...r.use, mcp: keep.mcpServers },
        });
    });
  return reserved;
}

/**
 * OpenCode's definitions for the uses reserved (reserveDefinitions), asked of OpenCode's own
 * server and kept in their rows, at their reserved times. Without a way to ask OpenCode
 * (`definitions` null), each is stored as not recorded, with the reason.
 */
export async function keepDefinitions(
  keep: KeepRuntime & { reserved: readonly ReservedDefinitions[]; definitions: DefinitionsOptions | null },
): Promise<number> {
  const { store, workspaceId, log, reserved } = keep;
  if (reserved.length === 0) return 0;
  const wanted: SessionUses[] = [...new Set(reserved.map((r) => r.sessionId))].map((sessionId) => ({
    sessionId,
    uses: reserved.filter((r) => r.sessionId === sessionId).map((r) => r.use),
  }));
  const recorded = keep.definitions
    ? await recordDefinitions(wanted, keep.definitions)
    : notRecorded(wanted, 'no OpenCode server to ask: the agent command is not OpenCode’s `acp`');
  await store.transaction(async (tx) => {
    for (const r of recorded) {
      const target = reserved.find(
        (x) => x.sessionId === r.sessionId && definitionsKey(x.use.agent, x.use.providerID, x.use.modelID) === r.key,
      );
      if (!target) continue;
      if (r.definitions.failed)
        log(`OpenCode's definitions for ${r.sessionId} (${target.key}): ${r.definitions.failed}`);
      await tx.putSessionRuntime({
        workspaceId,
        sessionId: r.sessionId,
        runtimeKey: target.key,
        // A child's parent is known from its parent's call even when OpenCode's server could not say.
        parentSessionId: r.parentSessionId ?? target.parentSessionId,
        recordedAt: target.recordedAt,
        definitions: r.definitions,
      });
    }
  });
  return recorded.length;
}

/** What a stored definitions column says it is: `opencode`, `pending`, or nothing known. */
function kindOf(column: unknown): string | null {
  const value = parseColumn(column);
  return isObject(value) && typeof value.kind === 'string' ? value.kind : null;
}

/** The MCP servers a stored set of definitions names. */
function mcpNames(column: unknown): string[] {
  const value = parseColumn(column);
  const mcp = isObject(value) ? value.mcp : undefined;
  return Array.isArray(mcp) ? mcp.flatMap((m) => (isObject(m) && typeof m.name === 'string' ? [m.name] : [])) : [];
}

function parseColumn(column: unknown): unknown {
  const { text } = columnText(column);
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
