/**
 * BPE counting on worker threads (a piscina pool), for cold reports with a lot of live text. The
 * threads start (and load the tokenizer) as soon as the report knows the work is large; texts
 * are queued in batches while the main thread goes on attributing, and each thread takes the
 * next batch when it is done with one, so none idles while another has a backlog. Small reports
 * never start a thread: starting one costs more than it saves.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as piscina from 'piscina';
import type { Piscina } from 'piscina';
import type { Encoding } from '../core';
import { tokenizerThreadsSetting } from '../cli-env';
import type { CountRequest } from './token-worker';

/** Below this many characters of live text to tokenize, counting stays on the main thread. */
export const PARALLEL_MIN_CHARS = 1_500_000;

/**
 * Tokenizer threads for a large cold report: INVESTIBOOK_TOKENIZER_THREADS (0: none, counting
 * stays on the main thread), else one per core besides the main thread's, at least one, at most
 * four. Each holds its own tokenizer tables, piece cache and heap
 * (about 30 MB of peak RSS at 1M tokens), and BPE's cost is
 * mostly merging pieces it has not seen yet, which every thread learns again: more threads than
 * cores only add memory (docs/benchmarks.md). A bad value is refused when the program starts
 * (server/main.ts, cli/main.ts parse the environment first).
 */
export function tokenizerThreads(env: NodeJS.ProcessEnv = process.env): number {
  return tokenizerThreadsSetting(env) ?? Math.max(1, Math.min(4, availableParallelism() - 1));
}
const BATCH_CHARS = 128 * 1024;
/**
 * A thread's young generation, MB (V8's default lets it grow to ~50 MB). A thread counts pieces
 * of text: nearly all it allocates dies at once, and what lives (the tables, the merge cache) is
 * promoted after two scavenges whatever their size. Measured on the 1M-token workspace: the same
 * CPU, 15 MB less peak RSS (docs/benchmarks.md).
 */
const THREAD_YOUNG_GENERATION_MB = 2;

interface Batch {
  texts: string[];
  chars: number;
  resolve: ((count: number) => void)[];
  reject: ((error: Error) => void)[];
}

const emptyBatch = (): Batch => ({ texts: [], chars: 0, resolve: [], reject: [] });

/**
 * Worker code: the compiled worker beside this bundle (the ES modules' or the CLI's script,
 * cli.cjs), or the TypeScript source through tsx. The script's case was missed once: the CLI's
 * report started a thread on the source path, which failed, and every text was counted on the
 * main thread after the thread had cost ~300 ms of CPU (docs/benchmarks.md, issue 42.2).
 */
export function workerFile(here = import.meta.url): { filename: string; execArgv?: string[] } {
  if (/\.[cm]js$/.test(here)) return { filename: fileURLToPath(new URL('./token-worker.mjs', here)) };
  // From sources (tests, the bench): tsx's loader in the thread (tsx is a devDependency; the
  // compiled programs never come here).
  const tsx = pathToFileURL(join(dirname(createRequire(here).resolve('tsx/package.json')), 'dist/loader.mjs'));
  return {
    filename: fileURLToPath(new URL('./token-worker.ts', here)),
    execArgv: [...process.execArgv, '--import', tsx.href],
  };
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

/**
 * Texts are gathered into batches of about 128 KB (one message per text would cost more in
 * postMessage than in counting); piscina queues the batches and hands each to the next idle
 * thread. A thread that fails fails the pool: every text not yet counted is rejected at once,
 * and the caller counts it on its own thread.
 */
export class TokenPool {
  private readonly pool: Piscina<CountRequest, number[]>;
  private filling = emptyBatch();
  private failure: Error | null = null;

  /** Starts the threads now: each loads the tokenizer while the caller reads and attributes. */
  constructor(
    size = tokenizerThreads(),
    private readonly encoding: Encoding = 'o200k_base',
    private readonly multiplier = 1,
  ) {
    // Loaded when a report first needs threads: most CLI runs never do, and each pays for the
    // modules it loads at start.
    const { Piscina: Pool } = createRequire(import.meta.url)('piscina') as typeof piscina;
    this.pool = new Pool({
      ...workerFile(),
      minThreads: size,
      maxThreads: size,
      workerData: { encoding },
      // Threads stay up for the pool's life (one report), however long a batch takes.
      idleTimeout: Number.POSITIVE_INFINITY,
      resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
    });
    // A thread that dies (out of memory, killed) must not leave its batch waiting: piscina
    // rejects that batch's task, and `fail` rejects the rest.
    this.pool.on('error', (error: Error) => this.fail(error));
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
    const batch = this.filling;
    if (batch.texts.length === 0) return;
    this.filling = emptyBatch();
    this.pool.run({ texts: batch.texts, encoding: this.encoding, multiplier: this.multiplier }).then(
      (counts) => counts.forEach((count, k) => batch.resolve[k]!(count)),
      (error: Error) => {
        batch.reject.forEach((reject) => reject(error));
        this.fail(error);
      },
    );
  }

  async close(): Promise<void> {
    if (active === this) active = null;
    await this.pool.destroy();
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = new Error(`tokenizer thread failed: ${error.message}`, { cause: error });
    const filling = this.filling;
    this.filling = emptyBatch();
    filling.reject.forEach((reject) => reject(this.failure!));
    // Batches still queued are rejected by the pool's end (their texts are counted inline).
    void this.pool.destroy().catch(() => {});
  }
}
