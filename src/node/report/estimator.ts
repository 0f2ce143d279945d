/**
 * Token estimators. The default is a real BPE tokenizer through ai-tokenizer, a pure-JavaScript
 * implementation with the same counts as tiktoken at several times its speed and without its
 * WASM start-up: o200k_base, or the Claude table for Anthropic models (core/providers.ts).
 * chars/4 is the cheap, model-free alternative. None is exact for the agent's model: the report
 * calibrates them all by the provider's own counts.
 */
import Tokenizer from 'ai-tokenizer';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../project';
import type { EstimatorId } from '../../shared/wire';
import { chars4Estimator, familyRules, type Encoding, type Estimator, type ProviderFamily } from '../core';

export type { Estimator };

/** Above this many characters a text is sampled and extrapolated rather than tokenized whole. */
export const BPE_SAMPLE_LIMIT = 512 * 1024;

// BPE merges are quadratic in the length of one pre-tokenized piece, and a run without
// whitespace (base64, minified JSON, a hex dump) is one piece: 200 k such characters take
// minutes. Long runs are therefore tokenized in short slices; ordinary text in chunks cut at
// whitespace, which the pre-tokenizer would have split at anyway.
const LONG_RUN = /\S{256,}/g;
const RUN_SLICE = 128;
const CHUNK = 16 * 1024;

export type { Encoding };
const encoders = new Map<Encoding, Tokenizer>();
// The encoding tables are megabytes of JavaScript: loaded on first use, not at start-up (a
// chars/4 report never needs them).
const load = createRequire(import.meta.url);
type TokenizerData = ConstructorParameters<typeof Tokenizer>[0];

/**
 * The tables from the JSON copy the install step writes (scripts/build-node.mjs; parsing JSON
 * takes ~130 ms against ~340 ms for the package's JavaScript), else from the package itself.
 * Counting never decodes, so the decoder table is left out.
 */
export function tokenizerData(encoding: Encoding, from: 'any' | 'package' = 'any'): TokenizerData {
  if (from === 'any') {
    try {
      const path = join(PROJECT_ROOT, 'build', 'tokenizer', `${encoding}@${tokenizerVersion()}.json`);
      const table = JSON.parse(readFileSync(path, 'utf8')) as Omit<TokenizerData, 'binaryEncoder' | 'decoder'> & {
        binaryEncoder: [number[], number][];
      };
      return {
        ...table,
        binaryEncoder: table.binaryEncoder.map(([bytes, rank]) => [Uint8Array.from(bytes), rank]),
        decoder: {},
      } as unknown as TokenizerData;
    } catch {
      // not built (or unreadable): the package's own tables below
    }
  }
  return load(`ai-tokenizer/encoding/${encoding}`) as TokenizerData;
}

/** ai-tokenizer's version (its package.json is not exported: found beside its entry point). */
export function tokenizerVersion(): string {
  const entry = load.resolve('ai-tokenizer');
  const manifest = join(entry.slice(0, entry.lastIndexOf('/dist/')), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

function tokenizer(encoding: Encoding): Tokenizer {
  let found = encoders.get(encoding);
  if (!found) encoders.set(encoding, (found = new Tokenizer(tokenizerData(encoding))));
  return found;
}

/** Tokens of one piece; special-token look-alikes (`<|endoftext|>`) are ordinary text here. */
const encodeLength = (enc: Tokenizer, text: string): number => enc.encode(text, [], []).length;

function countChunked(enc: Tokenizer, text: string): number {
  let total = 0;
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + CHUNK);
    if (end < text.length) {
      const cut = text.lastIndexOf(' ', end);
      if (cut > start) end = cut;
    }
    total += encodeLength(enc, text.slice(start, end));
    start = end;
  }
  return total;
}

function countBpe(text: string, encoding: Encoding): number {
  const enc = tokenizer(encoding);
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    if (match.index > last) total += countChunked(enc, text.slice(last, match.index));
    const run = match[0];
    for (let i = 0; i < run.length; i += RUN_SLICE) {
      total += encodeLength(enc, run.slice(i, i + RUN_SLICE));
    }
    last = match.index + run.length;
  }
  if (last < text.length) total += countChunked(enc, text.slice(last));
  return total;
}

/** Tokens of a text in an encoding, sampled (head, middle, tail) above the sample limit. */
export function countEncoded(text: string, encoding: Encoding): number {
  if (text.length === 0) return 0;
  if (text.length <= BPE_SAMPLE_LIMIT) return countBpe(text, encoding);
  // Sample the head, middle and tail and extrapolate: bounded time for a 50 MB output.
  const third = Math.floor(BPE_SAMPLE_LIMIT / 3);
  const middle = Math.floor(text.length / 2 - third / 2);
  const sampled =
    countBpe(text.slice(0, third), encoding) +
    countBpe(text.slice(middle, middle + third), encoding) +
    countBpe(text.slice(text.length - third), encoding);
  return Math.round((sampled * text.length) / (third * 3));
}

/** A count in an encoding as a family's estimator gives it (its multiplier applied). */
export const scaledCount = (tokens: number, multiplier: number): number =>
  multiplier === 1 ? tokens : Math.round(tokens * multiplier);

function bpeFor(encoding: Encoding, multiplier: number, method: string): Estimator {
  return {
    id: 'bpe',
    key: `bpe:${encoding}${multiplier === 1 ? '' : `x${multiplier}`}`,
    encoding,
    multiplier,
    method,
    sampleLimit: BPE_SAMPLE_LIMIT,
    count: (text) => scaledCount(countEncoded(text, encoding), multiplier),
  };
}

export const bpeEstimator: Estimator = bpeFor('o200k_base', 1, 'o200k_base BPE');

const byFamily = new Map<ProviderFamily, Estimator>();

/** The BPE estimator for a provider family: the Claude table (×1.1) for Anthropic, o200k otherwise. */
export function bpeEstimatorFor(family: ProviderFamily): Estimator {
  let found = byFamily.get(family);
  if (!found) {
    const rules = familyRules(family);
    found =
      rules.encoding === 'o200k_base' && rules.multiplier === 1
        ? bpeEstimator
        : bpeFor(rules.encoding, rules.multiplier, rules.tokenizer);
    byFamily.set(family, found);
  }
  return found;
}

export { chars4Estimator };

/** The estimator for an id, for the provider family the session talks to (its tokenizer). */
export function estimatorFor(id: EstimatorId, family: ProviderFamily = 'other'): Estimator {
  return id === 'chars4' ? chars4Estimator : bpeEstimatorFor(family);
}

/**
 * Counts each distinct long text once per report: agents re-read the same file, and identical
 * outputs need not be tokenized again. Lives only as long as one report.
 */
export function memoized(estimator: Estimator, minLength = 1024): Estimator {
  const counts = new Map<string, number>();
  return {
    ...estimator,
    count(text) {
      if (text.length < minLength) return estimator.count(text);
      let n = counts.get(text);
      if (n === undefined) counts.set(text, (n = estimator.count(text)));
      return n;
    },
  };
}

/**
 * Exact token counts in a named encoding, the whole text at once, as a provider's tokenizer
 * counts them (the scripted model and the ground-truth tests; slow on pathological input).
 */
export function encodingCounter(encoding: Encoding): (text: string) => number {
  return (text) => encodeLength(tokenizer(encoding), text);
}
