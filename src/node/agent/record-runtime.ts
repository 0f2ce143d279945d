/**
 * What the bridge keeps of a turn besides its messages, after they were saved: what the runtime
 * records beside them (runtime-seam.ts `ReadBack.record`: for OpenCode its subagents' sessions
 * and its definitions), then the sessions' texts counted and the counts stored (the write path's
 * counting: reports read them). What takes seconds runs in the background — the turn has ended
 * by then — and `settled()` waits for it. None may fail a turn: what cannot be kept is logged.
 */
import { countSessions } from '../counting/count-sessions';
import type { Store } from '../storage/store';
import type { ReadBack, RecordContext } from './runtime-seam';

export class RuntimeRecorder {
  /** Recordings still under way after their turns ended. */
  private readonly recording = new Set<Promise<void>>();
  /** Closing: nothing new is recorded (the session's next turn records what is missing). */
  closing = false;

  constructor(private readonly log: (line: string) => void) {}

  /** Records what the runtime made beside the session's rows, then counts the sessions' texts. */
  async keep(read: ReadBack, context: Omit<RecordContext, 'closing' | 'log'>, sessionId: string): Promise<void> {
    const { store, workspaceId } = context;
    let recorded: { sessions: readonly string[]; later?: Promise<void> } = { sessions: [sessionId] };
    try {
      if (read.record) recorded = await read.record({ ...context, log: this.log, closing: () => this.closing });
    } catch (error) {
      this.log(`what session ${sessionId} made besides its messages was not kept: ${(error as Error).message}`);
      return;
    }
    if (this.closing) return;
    const recording: Promise<void> = Promise.resolve(recorded.later)
      // Then the turn's texts counted once (their definitions' too), so no report counts them again.
      .then(() => (this.closing ? undefined : this.count(store, workspaceId, [...recorded.sessions])))
      .finally(() => this.recording.delete(recording));
    this.recording.add(recording);
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
