/**
 * Answers the scripted model holds back (a step's `hold`): each waits until the model is
 * released or its client goes away. A test that interrupts a turn mid-call holds the call
 * instead of delaying it, so the turn is still running however long the interruption takes to
 * land on a loaded machine, and nobody waits out a delay afterwards.
 */
export class HeldAnswers {
  private readonly waiting = new Set<() => void>();
  private released = false;

  /** Resolves at `release()` (at once after it), or when `signal` aborts (the client went away). */
  wait(signal: AbortSignal): Promise<void> {
    if (this.released) return Promise.resolve();
    return new Promise((done) => {
      const finish = () => {
        this.waiting.delete(finish);
        done();
      };
      this.waiting.add(finish);
      signal.addEventListener('abort', finish, { once: true });
    });
  }

  /**
   * Lets every held answer go, those waiting and those still to come: a call interrupted by Stop
   * may reach the model only after the Stop.
   */
  release(): void {
    this.released = true;
    for (const finish of [...this.waiting]) finish();
  }
}
