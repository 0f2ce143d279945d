/**
 * A tokenizer thread: counts the texts it is sent with the BPE estimator (the same code as on
 * the main thread) and answers with the counts, in order. See token-pool.ts.
 */
import { parentPort } from 'node:worker_threads';
import { bpeEstimator } from './estimator';

export interface CountRequest {
  id: number;
  texts: string[];
}
export interface CountAnswer {
  id: number;
  counts?: number[];
  error?: string;
}

// Load the tokenizer at once: the pool starts threads before it has work for them.
bpeEstimator.count(' ');

parentPort!.on('message', ({ id, texts }: CountRequest) => {
  try {
    parentPort!.postMessage({ id, counts: texts.map((text) => bpeEstimator.count(text)) } satisfies CountAnswer);
  } catch (error) {
    parentPort!.postMessage({
      id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies CountAnswer);
  }
});
