/**
 * Token estimators. The default is a real BPE tokenizer (o200k_base through tiktoken's WASM
 * build); chars/4 is the cheap, model-free alternative. Neither is exact for the agent's model:
 * the report scales both to the agent-reported total.
 */
import { get_encoding, type Tiktoken } from 'tiktoken';
import type { EstimatorId } from '../../shared/wire';

export interface Estimator {
  readonly id: EstimatorId;
  /** Human name, reported as `estimate.method`. */
  readonly method: string;
  count(text: string): number;
}

/** Above this many characters a text is sampled and extrapolated rather than tokenized whole. */
export const BPE_SAMPLE_LIMIT = 512 * 1024;

// BPE merges are quadratic in the length of one pre-tokenized piece, and a run without
// whitespace (base64, minified JSON, a hex dump) is one piece: 200 k such characters take
// minutes. Long runs are therefore tokenized in short slices; ordinary text in chunks cut at
// whitespace, which the pre-tokenizer would have split at anyway.
const LONG_RUN = /\S{256,}/g;
const RUN_SLICE = 128;
const CHUNK = 16 * 1024;

let encoder: Tiktoken | null = null;

function o200k(): Tiktoken {
  encoder ??= get_encoding('o200k_base');
  return encoder;
}

function countChunked(enc: Tiktoken, text: string): number {
  let total = 0;
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + CHUNK);
    if (end < text.length) {
      const cut = text.lastIndexOf(' ', end);
      if (cut > start) end = cut;
    }
    total += enc.encode_ordinary(text.slice(start, end)).length;
    start = end;
  }
  return total;
}

function countBpe(text: string): number {
  const enc = o200k();
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    if (match.index > last) total += countChunked(enc, text.slice(last, match.index));
    const run = match[0];
    for (let i = 0; i < run.length; i += RUN_SLICE) {
      total += enc.encode_ordinary(run.slice(i, i + RUN_SLICE)).length;
    }
    last = match.index + run.length;
  }
  if (last < text.length) total += countChunked(enc, text.slice(last));
  return total;
}

export const bpeEstimator: Estimator = {
  id: 'bpe',
  method: 'o200k_base BPE (tiktoken)',
  count(text) {
    if (text.length === 0) return 0;
    if (text.length <= BPE_SAMPLE_LIMIT) return countBpe(text);
    // Sample the head, middle and tail and extrapolate: bounded time for a 50 MB output.
    const third = Math.floor(BPE_SAMPLE_LIMIT / 3);
    const middle = Math.floor(text.length / 2 - third / 2);
    const sampled =
      countBpe(text.slice(0, third)) +
      countBpe(text.slice(middle, middle + third)) +
      countBpe(text.slice(text.length - third));
    return Math.round((sampled * text.length) / (third * 3));
  },
};

export const chars4Estimator: Estimator = {
  id: 'chars4',
  method: 'chars/4',
  count(text) {
    return Math.ceil(text.length / 4);
  },
};

export function estimatorFor(id: EstimatorId): Estimator {
  return id === 'chars4' ? chars4Estimator : bpeEstimator;
}

/**
 * Counts each distinct long text once per report: agents re-read the same file, and identical
 * outputs need not be tokenized again. Lives only as long as one report.
 */
export function memoized(estimator: Estimator, minLength = 1024): Estimator {
  const counts = new Map<string, number>();
  return {
    id: estimator.id,
    method: estimator.method,
    count(text) {
      if (text.length < minLength) return estimator.count(text);
      let n = counts.get(text);
      if (n === undefined) counts.set(text, (n = estimator.count(text)));
      return n;
    },
  };
}
