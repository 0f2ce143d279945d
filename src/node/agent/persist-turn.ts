/**
 * What a turn leaves in investibook's database: the session as OpenCode recorded it, read back
 * with its own export (`opencode export`, run as the agent is) and upserted message by message —
 * a message grows as a turn goes on, so rows are replaced by id — in one transaction with the
 * kept prompts its user messages now stand for: a prompt is never shown twice, and stays when the
 * agent has no copy of it.
 */
import type { NewMessage, Store } from '../storage/store';
import { isKeptPrompt, promptText } from '../user-message';
import { exportSession } from './opencode/export-session';
import { messageRows, type SessionExport } from './opencode/session-export';

/** Runs the export program for a session as the agent runs (its sandbox, its storage). */
export type RunExport = (sessionId: string) => Promise<SessionExport>;

/**
 * Saves the session's messages; the export, or null when there is no export program or it
 * failed (the kept prompt then stands for the turn: nothing typed is lost). `saved` is how many
 * messages the chat gains.
 */
export async function persistTurn(
  store: Store,
  turn: { workspaceId: string; sessionId: string; kept: NewMessage },
  runExport: RunExport | null,
  log: (line: string) => void,
): Promise<{ saved: number; exported: SessionExport | null }> {
  if (!runExport) return { saved: 1, exported: null };
  let exported: SessionExport;
  try {
    exported = await runExport(turn.sessionId);
  } catch (error) {
    log(`session ${turn.sessionId} could not be read back: ${(error as Error).message}`);
    return { saved: 1, exported: null };
  }
  const { workspaceId, sessionId, kept } = turn;
  const rows = messageRows(exported);
  const theirs = new Set(
    rows.flatMap((row) => ((row.info as { role?: unknown }).role === 'user' ? [promptText(row.parts)] : [])),
  );
  let replaced = 0;
  await store.transaction(async (tx) => {
    for (const row of rows) await tx.upsertMessage({ ...row, workspaceId, sessionId });
    // This turn's prompt, and any a crash left behind, once the agent's record holds them.
    for (const stored of await tx.listMessages(workspaceId, sessionId)) {
      const parts = JSON.parse(String(stored.parts)) as unknown[];
      if (!isKeptPrompt(JSON.parse(String(stored.info)))) continue;
      if (!theirs.has(promptText(parts))) continue;
      await tx.deleteMessage(workspaceId, sessionId, stored.id);
      if (stored.id === kept.id) replaced++;
    }
  });
  return { saved: rows.length + 1 - replaced, exported };
}

/** The kept prompt, moved from its provisional session to the one the agent opened. */
export async function moveKept(store: Store, kept: NewMessage, sessionId: string): Promise<NewMessage> {
  const moved = { ...kept, sessionId };
  await store.transaction(async (tx) => {
    await tx.deleteMessage(kept.workspaceId, kept.sessionId, kept.id);
    await tx.insertMessage(moved);
  });
  return moved;
}

export { exportSession };
