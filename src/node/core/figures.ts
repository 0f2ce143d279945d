/** Small pure helpers for the report's figures: sums, rounding, shares, and item ids. */
import { contentHash } from './hash';

/** The agent-reported total: the newest usable ACP usage_update of the session. */
export interface UsageInput {
  contextUsed: number;
  contextSize: number | null;
  recordedAt: number;
}

export function percentOfWindow(usage: UsageInput): number | null {
  return usage.contextSize ? round2((usage.contextUsed / usage.contextSize) * 100) : null;
}

/** A short stable id for an item, safe in URLs. */
export const itemId = (sourceRef: string): string => `it_${contentHash(sourceRef)}`;

export function percentOf(scaled: number | null, used: number | null): number | null {
  if (scaled === null || used === null) return null;
  return used === 0 ? 0 : round2((scaled / used) * 100);
}

export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
export const round2 = (n: number): number => Math.round(n * 100) / 100;
export const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;
