/**
 * The session's total as the context meter shows it (the usage API), from its ACP usage or, for
 * a session no agent total was recorded for, its last measured model call.
 */
import type { AgentRuntime } from '../core';
import { columnText } from '../storage/column-text';
import type { ReadSnapshot } from '../storage/store';
import { latestAcpUsage, type LatestUsage } from '../usage';
import { runtimeOfRows } from './runtimes';

/** Messages read at a time from the end of a session, looking for its last measured model call. */
const TAIL_BATCH = 8;

/**
 * The session's total as the context meter shows it: its latest ACP usage, else — no agent total
 * was recorded (a session imported from an OpenCode export) — the prompt of its last measured
 * model call as the provider counted it, the total its report describes then (contract §8),
 * found from the session's last messages backwards, read by the runtime its rows name (not
 * every session is OpenCode's; one this program cannot read has no total).
 */
export async function latestTotal(
  read: Pick<ReadSnapshot, 'acpUsageNewestFirst' | 'messageStamps' | 'messages' | 'messageRuntimes'>,
  workspaceId: string,
  sessionId: string,
): Promise<LatestUsage | null> {
  const acp = await latestAcpUsage(read, workspaceId, sessionId);
  if (acp) return { ...acp, source: 'acp' };
  const runtime = await runtimeOf(read, workspaceId, sessionId);
  if (!runtime) return null;
  const stamps = await read.messageStamps(workspaceId, sessionId);
  for (let end = stamps.length; end > 0; end -= TAIL_BATCH) {
    const rows = await read.messages(stamps.slice(Math.max(0, end - TAIL_BATCH), end).map((s) => s.id));
    const headers = rows.map((row) =>
      runtime.header({ id: row.id, info: parsed(row.info), parts: parsed(row.parts) }, 0, () => {}),
    );
    const calls = runtime.session(headers, null).calls;
    const last = calls.filter((c) => !c.compaction && c.prompt !== null).at(-1);
    if (last) return { contextUsed: last.prompt!, contextSize: null, recordedAt: last.time, source: 'provider' };
  }
  return null;
}

function parsed(column: unknown): unknown {
  try {
    return JSON.parse(columnText(column).text ?? '');
  } catch {
    return undefined;
  }
}

async function runtimeOf(
  read: Pick<ReadSnapshot, 'messageRuntimes'>,
  workspaceId: string,
  sessionId: string,
): Promise<AgentRuntime | null> {
  try {
    return runtimeOfRows(await read.messageRuntimes(workspaceId, sessionId), sessionId);
  } catch {
    return null; // rows of a runtime this program cannot read: the report says so, the meter shows nothing
  }
}
