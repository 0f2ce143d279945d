/** Small pure helpers for the report's figures: sums, rounding, shares, and item ids. */
import { percentOf } from '../../shared/format';
import { contentHash } from './hash';
import type { UsageInput } from './types';

export function percentOfWindow(usage: UsageInput): number | null {
  return usage.contextSize ? percentOf(usage.contextUsed, usage.contextSize) : null;
}

/** A total as the wire tells it (the report's `actual`, the meter's `latest`): whose count it is, and when. */
export function totalOnWire(usage: UsageInput) {
  return {
    contextUsed: usage.contextUsed,
    contextSize: usage.contextSize,
    percent: percentOfWindow(usage),
    recordedAt: new Date(usage.recordedAt).toISOString(),
    source: usage.source ?? ('acp' as const),
  };
}

/** A short stable id for an item, safe in URLs. */
export const itemId = (sourceRef: string): string => `it_${contentHash(sourceRef)}`;

export { percentOf };

export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
export const round2 = (n: number): number => Math.round(n * 100) / 100;
export const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;
