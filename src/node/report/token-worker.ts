/**
 * A tokenizer thread: counts the texts it is sent in the encoding asked for (the same code as on
 * the main thread) and answers with the counts, in order. See token-pool.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Encoding } from '../core/providers';
import { countEncoded } from './estimator';

export interface CountRequest {
  id: number;
  texts: string[];
  encoding: Encoding;
  multiplier: number;
}
export interface CountAnswer {
  id: number;
  counts?: number[];
  error?: string;
}

// Load the tokenizer at once: the pool starts threads before it has work for them.
countEncoded(' ', (workerData as { encoding?: Encoding } | null)?.encoding ?? 'o200k_base');

parentPort!.on('message', ({ id, texts, encoding, multiplier }: CountRequest) => {
  try {
    const counts = texts.map((text) =>
      multiplier === 1 ? countEncoded(text, encoding) : Math.round(countEncoded(text, encoding) * multiplier),
    );
    parentPort!.postMessage({ id, counts } satisfies CountAnswer);
  } catch (error) {
    parentPort!.postMessage({
      id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies CountAnswer);
  }
});
