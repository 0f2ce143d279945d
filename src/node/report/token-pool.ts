/**
 * BPE counting on worker threads, for cold reports with a lot of live text. The threads start
 * (and load the tokenizer) as soon as the report knows the work is large; texts are queued in
 * batches while the main thread goes on attributing, and each thread takes the next batch when
 * it is done with one, so none idles while another has a backlog. Small reports never start a
 * thread: starting one costs more than it saves.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Encoding } from '../core/providers';
import type { CountAnswer, CountRequest } from './token-worker';

/** Below this many characters of live text to tokenize, counting stays on the main thread. */
export const PARALLEL_MIN_CHARS = 1_500_000;

/**
 * Tokenizer threads for a large cold report: INVESTIBOOK_TOKENIZER_THREADS (0: none, counting
 * stays on the main thread), else one per core besides the main thread's, at least one, at most
 * four. Each holds its own tokenizer tables and merge cache (about 40 MB), and BPE's cost is
 * mostly merging pieces it has not seen yet, which every thread learns again: more threads than
 * cores only add memory (docs/benchmarks.md).
 */
export function tokenizerThreads(env: NodeJS.ProcessEnv = process.env): number {
  const set = env.INVESTIBOOK_TOKENIZER_THREADS;
  if (set !== undefined && set !== '' && Number.isInteger(Number(set)) && Number(set) >= 0) return Number(set);
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}
const BATCH_CHARS = 128 * 1024;

interface Batch {
  texts: string[];
  chars: number;
  resolve: ((count: number) => void)[];
  reject: ((error: Error) => void)[];
}

const emptyBatch = (): Batch => ({ texts: [], chars: 0, resolve: [], reject: [] });

/** Worker code: the compiled worker beside this bundle, or the TypeScript source through tsx. */
function spawn(encoding: Encoding): Worker {
  const here = import.meta.url;
  if (here.endsWith('.mjs')) return new Worker(new URL('./token-worker.mjs', here), { workerData: { encoding } });
  // tsx's ESM entry (require.resolve would give its CommonJS one).
  const tsx = pathToFileURL(join(dirname(createRequire(here).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'));
  const target = new URL('./token-worker.ts', here);
  return new Worker(
    `import(${JSON.stringify(tsx.href)}).then(({ register }) => { register(); return import(${JSON.stringify(target.href)}); });`,
    { eval: true, workerData: { encoding } },
  );
}

let active: TokenPool | null = null;

/**
 * A pool for one large cold report, or null while another report holds the process's pool:
 * concurrent cold reports never multiply threads (and their memory); the second counts on its
 * own thread instead.
 */
export function claimTokenPool(encoding: Encoding = 'o200k_base', multiplier = 1): TokenPool | null {
  if (active || tokenizerThreads() === 0) return null;
  active = new TokenPool(tokenizerThreads(), encoding, multiplier);
  return active;
}

export class TokenPool {
  private readonly threads: { worker: Worker; busy: Batch | null }[] = [];
  private readonly queue: Batch[] = [];
  private filling = emptyBatch();
  private failure: Error | null = null;
  private closing = false;

  /** Starts the threads now: each loads the tokenizer while the caller reads and attributes. */
  constructor(
    size = tokenizerThreads(),
    private readonly encoding: Encoding = 'o200k_base',
    private readonly multiplier = 1,
  ) {
    for (let i = 0; i < size; i++) {
      const thread: { worker: Worker; busy: Batch | null } = { worker: spawn(encoding), busy: null };
      thread.worker.on('message', ({ counts, error }: CountAnswer) => {
        const batch = thread.busy!;
        thread.busy = null;
        if (counts) counts.forEach((count, k) => batch.resolve[k]!(count));
        else this.fail(new Error(`tokenizer thread failed: ${error}`), [batch]);
        this.dispatch();
      });
      thread.worker.on('error', (error) => this.fail(error, thread.busy ? [thread.busy] : []));
      // A thread that ends without an error (killed, out of memory) must not leave its batch waiting.
      thread.worker.on('exit', (code) => {
        if (!this.closing) this.fail(new Error(`tokenizer thread exited (${code})`), thread.busy ? [thread.busy] : []);
      });
      thread.worker.unref();
      this.threads.push(thread);
    }
  }

  /** The BPE count of one text, once a thread has counted it. */
  count(text: string): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    const promise = new Promise<number>((resolve, reject) => {
      this.filling.texts.push(text);
      this.filling.resolve.push(resolve);
      this.filling.reject.push(reject);
    });
    this.filling.chars += text.length;
    if (this.filling.chars >= BATCH_CHARS) this.flush();
    return promise;
  }

  /** Queues what has been asked for so far; call once every text has been asked for. */
  flush(): void {
    if (this.filling.texts.length === 0) return;
    this.queue.push(this.filling);
    this.filling = emptyBatch();
    this.dispatch();
  }

  async close(): Promise<void> {
    this.closing = true;
    if (active === this) active = null;
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
    this.threads.length = 0;
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (thread.busy) continue;
      const batch = this.queue.shift();
      // An idle thread never keeps the process alive; one with work does.
      if (!batch) {
        thread.worker.unref();
        continue;
      }
      thread.busy = batch;
      thread.worker.ref();
      thread.worker.postMessage({
        id: 0,
        texts: batch.texts,
        encoding: this.encoding,
        multiplier: this.multiplier,
      } satisfies CountRequest);
    }
  }

  private fail(error: Error, batches: Batch[]): void {
    this.failure ??= error;
    const filling = this.filling;
    this.filling = emptyBatch();
    for (const batch of [...batches, ...this.queue.splice(0), filling])
      for (const reject of batch.reject) reject(error);
    for (const thread of this.threads) thread.worker.unref();
  }
}
