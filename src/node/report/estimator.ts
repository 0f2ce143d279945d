/**
 * Token estimators. The default is a real BPE tokenizer over ai-tokenizer's tables (the same
 * counts as tiktoken), counted by this project's own counter (tokenizer/bpe-counter.ts: the
 * package's counts exactly, from a binary copy of its tables that loads without parsing):
 * o200k_base, or the Claude table for Anthropic models (core/providers.ts). chars/4 is the cheap,
 * model-free alternative. None is exact for the agent's model: the report calibrates them all by
 * the provider's own counts.
 */
import type { EstimatorId } from '../../shared/wire';
import { chars4Estimator, familyRules, type Encoding, type Estimator, type ProviderFamily } from '../core';
import { BPE_SAMPLE_LIMIT, countEncoded, scaledCount } from '../tokenizer/encoded';

export type { Estimator, Encoding };
// The counting itself (no core: the tokenizer thread loads only it).
export {
  BPE_SAMPLE_LIMIT,
  countEncoded,
  countSampled,
  encodingCounter,
  packageTable,
  rankTable,
  scaledCount,
  tableFile,
  tokenizerVersion,
} from '../tokenizer/encoded';

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
