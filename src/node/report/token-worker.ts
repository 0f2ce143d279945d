/**
 * A tokenizer thread of the pool (token-pool.ts, on piscina): counts the texts of a batch in the
 * encoding asked for (the same code as on the main thread) and answers with the counts, in order.
 */
import { workerData } from 'node:worker_threads';
import type { Encoding } from '../core';
import { countEncoded, scaledCount } from '../tokenizer/encoded';

export interface CountRequest {
  texts: string[];
  encoding: Encoding;
  multiplier: number;
}

// Load the tokenizer at once: piscina imports this module when the thread starts, before the
// pool has work for it.
countEncoded(' ', (workerData as { encoding?: Encoding } | null)?.encoding ?? 'o200k_base');

export default function count({ texts, encoding, multiplier }: CountRequest): number[] {
  return texts.map((text) => scaledCount(countEncoded(text, encoding), multiplier));
}
