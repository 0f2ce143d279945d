/** Small pure helpers for the report's figures: sums, rounding, shares, and item ids. */
import { percentOf } from '../../shared/format';
import { contentHash } from './hash';
import type { UsageInput } from './types';

export function percentOfWindow(usage: UsageInput): number | null {
  return usage.contextSize ? percentOf(usage.contextUsed, usage.contextSize) : null;
}

/** A short stable id for an item, safe in URLs. */
export const itemId = (sourceRef: string): string => `it_${contentHash(sourceRef)}`;

export { percentOf };

export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
export const round2 = (n: number): number => Math.round(n * 100) / 100;
export const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;
