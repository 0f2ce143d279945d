/**
 * A report's revert on the live agent (contract §7 `change.request`): the session taken like a
 * turn's, so no prompt runs in it meanwhile; the runtime's own revert made (runtime-seam.ts
 * `reverter`); then the session's messages from that one on deleted here as well — the runtime
 * drops them itself at the session's next prompt — so that the chat and the report hold what the
 * next call will. Streamed like a turn: `turn`, `saved`, then `done` (stop reason `reverted`) or
 * an error.
 */
import type { AgentEvent } from '../../shared/agent';
import type { Store } from '../storage/store';
import type { AgentPool, Turn, WorkspaceAgent } from './agent-pool';
import { RevertFailed, type RevertContext } from './runtime-seam';
import { TurnInProgress } from './turn-errors';

export interface RevertRequest {
  workspaceId: string;
  root: string;
  sessionId: string;
  messageId: string;
}

/** A revert whose session is taken, not yet made. */
export interface AcceptedRevert {
  request: RevertRequest;
  workspace: WorkspaceAgent;
  turn: Turn;
  turnId: string;
  revert: (context: RevertContext) => Promise<void>;
}

/** Takes the session for the revert; throws when a turn runs in it. */
export function takeForRevert(
  pool: AgentPool,
  request: RevertRequest,
  revert: AcceptedRevert['revert'],
  turnId: string,
): AcceptedRevert {
  const workspace = pool.workspace(request.workspaceId, request.root);
  if (workspace.turns.has(request.sessionId)) throw new TurnInProgress(request.sessionId);
  // A revert cannot be stopped half-way: Stop waits for it like for a saving turn.
  const turn: Turn = { sessionId: request.sessionId, startedAt: new Date(), stopped: false, cancel: async () => {} };
  workspace.turns.set(request.sessionId, turn);
  return { request, workspace, turn, turnId, revert };
}

/** Makes the revert and streams what happened; never throws (a failure is an event). */
export async function runRevert(
  accepted: AcceptedRevert,
  needs: {
    store: Store;
    pool: AgentPool;
    context: Omit<RevertContext, 'sessionId' | 'messageId'>;
    log: (line: string) => void;
  },
  emit: (event: AgentEvent) => void,
): Promise<void> {
  const { request, workspace, turn, turnId } = accepted;
  const { workspaceId, sessionId, messageId } = request;
  emit({ type: 'turn', turnId, sessionId, newSession: false });
  try {
    await accepted.revert({ ...needs.context, sessionId, messageId });
    await dropFrom(needs.store, workspaceId, sessionId, messageId);
    // The chat gains nothing; it refetches the history, which lost the reverted messages.
    emit({ type: 'saved', messages: 0 });
    emit({ type: 'done', stopReason: 'reverted' });
  } catch (error) {
    const message = error instanceof RevertFailed ? error.message : `the revert failed: ${(error as Error).message}`;
    needs.log(`revert of session ${sessionId} in workspace ${workspaceId}: ${message}`);
    emit({ type: 'error', code: 'revert_failed', message });
  } finally {
    if (workspace.turns.get(sessionId) === turn) workspace.turns.delete(sessionId);
    needs.pool.turnEnded(workspace);
  }
}

/** Deletes the session's messages from `messageId` on (rows are in id order, as the runtime's ids rise). */
async function dropFrom(store: Store, workspaceId: string, sessionId: string, messageId: string): Promise<void> {
  await store.transaction(async (tx) => {
    const rows = await tx.listMessages(workspaceId, sessionId);
    const from = rows.findIndex((row) => row.id === messageId);
    if (from < 0) return;
    for (const row of rows.slice(from)) await tx.deleteMessage(workspaceId, sessionId, row.id);
  });
}
