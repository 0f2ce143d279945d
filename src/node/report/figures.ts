/** Small pure helpers for the report's figures: sums, rounding, shares, and item ids. */

/** The agent-reported total: the newest usable ACP usage_update of the session. */
export interface UsageInput {
  contextUsed: number;
  contextSize: number | null;
  recordedAt: number;
}

export function percentOfWindow(usage: UsageInput): number | null {
  return usage.contextSize ? round2((usage.contextUsed / usage.contextSize) * 100) : null;
}

/** A short stable id for an item (FNV-1a of its sourceRef), safe in URLs. */
export function itemId(sourceRef: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < sourceRef.length; i++) {
    const code = sourceRef.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 0x01000193);
    h2 = Math.imul(h2 ^ code, 0x811c9dc5) ^ (h1 >>> 7);
  }
  return `it_${(h1 >>> 0).toString(16).padStart(8, '0')}${(h2 >>> 0).toString(16).padStart(8, '0')}`;
}

export function percentOf(scaled: number | null, used: number | null): number | null {
  if (scaled === null || used === null) return null;
  return used === 0 ? 0 : round2((scaled / used) * 100);
}

export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
export const round2 = (n: number): number => Math.round(n * 100) / 100;
export const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;
