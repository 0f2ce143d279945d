/**
 * BPE counts of texts under the report's rules (long runs sliced, text chunked at whitespace,
 * very long texts sampled), over the tables the build writes. Kept apart from the estimators so
 * that the tokenizer thread (report/token-worker.ts) loads only this and the counter.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Encoding } from '../core';
import { PROJECT_ROOT } from '../project';
import { BpeCounter } from './bpe-counter';
import { deserialize, fromPackage, RankTable, TABLE_FORMAT, type PackageTable } from './bpe-table';

/** Above this many characters a text is sampled and extrapolated rather than tokenized whole. */
export const BPE_SAMPLE_LIMIT = 512 * 1024;

// BPE merges are quadratic in the length of one pre-tokenized piece, and a run without
// whitespace (base64, minified JSON, a hex dump) is one piece: 200 k such characters take
// minutes. Long runs are therefore tokenized in short slices; ordinary text in chunks cut at
// whitespace, which the pre-tokenizer would have split at anyway.
// Runs are found where they start (`(?<!\S)`): the same matches as `\S{256,}` (counts stored
// under these rules must not move; test/node/token-counter.test.ts), which tried again at every
// character of every shorter word — 4× the time on the 1M-token workspace's texts.
export const LONG_RUN = /(?<!\S)\S{256,}/g;
const RUN_SLICE = 128;
const CHUNK = 16 * 1024;

const counters = new Map<Encoding, BpeCounter>();
// The encoding tables are megabytes: loaded on first use, not at start-up (a chars/4 report
// never needs them).
const load = createRequire(import.meta.url);

/** The table file the build writes for an encoding (scripts/build-node.mjs), named by the package's version and the format. */
export const tableFile = (encoding: Encoding): string =>
  join(PROJECT_ROOT, 'build', 'tokenizer', `${encoding}@${tokenizerVersion()}.v${TABLE_FORMAT}.bin`);

/**
 * An encoding's ranks: from the binary copy the build writes (read in place: ~20 ms, the 5.7 MB
 * file read included, against 360–460 ms for JSON.parse of the package's 200 k keys), else from the package itself (a
 * checkout not yet built).
 */
export function rankTable(encoding: Encoding, from: 'any' | 'package' = 'any'): RankTable {
  if (from === 'any') {
    try {
      return new RankTable(deserialize(readFileSync(tableFile(encoding))));
    } catch {
      // not built (or unreadable): the package's own tables below
    }
  }
  return new RankTable(fromPackage(packageTable(encoding)));
}

/** An encoding's table as ai-tokenizer ships it (JavaScript: ~340 ms to load o200k). */
export const packageTable = (encoding: Encoding): PackageTable =>
  load(`ai-tokenizer/encoding/${encoding}`) as PackageTable;

/** ai-tokenizer's version (its package.json is not exported: found beside its entry point). */
export function tokenizerVersion(): string {
  const entry = load.resolve('ai-tokenizer');
  const manifest = join(entry.slice(0, entry.lastIndexOf('/dist/')), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

function counter(encoding: Encoding): BpeCounter {
  let found = counters.get(encoding);
  if (!found) counters.set(encoding, (found = new BpeCounter(rankTable(encoding))));
  return found;
}

/** Counts one stretch of text: special-token look-alikes (`<|endoftext|>`) are ordinary text. */
type PieceCounter = (text: string) => number;

function countChunked(count: PieceCounter, text: string): number {
  let total = 0;
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + CHUNK);
    if (end < text.length) {
      const cut = text.lastIndexOf(' ', end);
      if (cut > start) end = cut;
    }
    total += count(text.slice(start, end));
    start = end;
  }
  return total;
}

function countBpe(text: string, count: PieceCounter): number {
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    if (match.index > last) total += countChunked(count, text.slice(last, match.index));
    const run = match[0];
    for (let i = 0; i < run.length; i += RUN_SLICE) {
      total += count(run.slice(i, i + RUN_SLICE));
    }
    last = match.index + run.length;
  }
  if (last < text.length) total += countChunked(count, text.slice(last));
  return total;
}

/** Tokens of a text in an encoding, sampled (head, middle, tail) above the sample limit. */
export function countEncoded(text: string, encoding: Encoding): number {
  if (text.length === 0) return 0;
  const enc = counter(encoding);
  return countSampled(text, (piece) => enc.count(piece));
}

/**
 * The counting rules (slices, chunks, samples) over any counter of one stretch of text: the
 * tests run them over ai-tokenizer's own encoder too, to prove the counts equal.
 */
export function countSampled(text: string, count: PieceCounter): number {
  if (text.length <= BPE_SAMPLE_LIMIT) return countBpe(text, count);
  // Sample the head, middle and tail and extrapolate: bounded time for a 50 MB output.
  const third = Math.floor(BPE_SAMPLE_LIMIT / 3);
  const middle = Math.floor(text.length / 2 - third / 2);
  const sampled =
    countBpe(text.slice(0, third), count) +
    countBpe(text.slice(middle, middle + third), count) +
    countBpe(text.slice(text.length - third), count);
  return Math.round((sampled * text.length) / (third * 3));
}

/** A count in an encoding as a family's estimator gives it (its multiplier applied). */
export const scaledCount = (tokens: number, multiplier: number): number =>
  multiplier === 1 ? tokens : Math.round(tokens * multiplier);

/**
 * Exact token counts in a named encoding, the whole text at once, as a provider's tokenizer
 * counts them (the scripted model and the ground-truth tests; slow on pathological input).
 */
export function encodingCounter(encoding: Encoding): (text: string) => number {
  return (text) => counter(encoding).count(text);
}
