/**
 * What a turn leaves in investibook's database: the session as its runtime recorded it, read back
 * from the runtime's own store (runtime-seam.ts `readBack`: for OpenCode `opencode export`, run
 * as the agent is) and upserted message by message — a message grows as a turn goes on, so rows
 * are replaced by id — in one transaction with the kept prompts its user messages now stand for:
 * a prompt is never shown twice, and stays when the agent has no copy of it.
 */
import type { NewMessage, Store } from '../storage/store';
import { isKeptPrompt, promptText } from '../user-message';
import type { ReadBack } from './runtime-seam';

/**
 * Saves the session's messages; the read-back, or null when the runtime cannot read its sessions
 * back or it failed (the kept prompt then stands for the turn: nothing typed is lost). `saved` is
 * how many messages the chat gains.
 */
export async function persistTurn(
  store: Store,
  turn: { workspaceId: string; sessionId: string; kept: NewMessage },
  readBack: () => Promise<ReadBack | null>,
  log: (line: string) => void,
): Promise<{ saved: number; read: ReadBack | null }> {
  let read: ReadBack | null;
  try {
    read = await readBack();
  } catch (error) {
    log(`session ${turn.sessionId} could not be read back: ${(error as Error).message}`);
    return { saved: 1, read: null };
  }
  if (!read) return { saved: 1, read: null };
  const { workspaceId, sessionId, kept } = turn;
  const theirs = new Set(read.prompts);
  let replaced = 0;
  await store.transaction(async (tx) => {
    for (const row of read.rows) await tx.upsertMessage({ ...row, workspaceId, sessionId });
    // This turn's prompt, and any a crash left behind, once the agent's record holds them.
    for (const stored of await tx.listMessages(workspaceId, sessionId)) {
      const parts = JSON.parse(String(stored.parts)) as unknown[];
      if (!isKeptPrompt(JSON.parse(String(stored.info)))) continue;
      const text = promptText(parts);
      if (text === null || !theirs.has(text)) continue;
      await tx.deleteMessage(workspaceId, sessionId, stored.id);
      if (stored.id === kept.id) replaced++;
    }
  });
  return { saved: read.rows.length + 1 - replaced, read };
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
