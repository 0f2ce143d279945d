/**
 * The memo a long-lived process (the server) lends the core: whatever the core keeps under the
 * keys it derives (core/context-report.ts) — message headers, message analyses, whole sessions.
 * In memory only, bounded by bytes: past `maxBytes` (each value's size approximated by walking
 * it) the least recently used entries go (lru-cache). It changes how fast a report comes, never
 * what it says: the keys carry everything the values depend on.
 */
import { LRUCache } from 'lru-cache';
import type { Memo } from '../core';

/** The server's bound (docs/benchmarks.md: what a demo and a 1 M-token report keep). */
export const DEFAULT_CACHE_BYTES = 512 * 2 ** 20;

export class ReportCache implements Memo {
  /** Bounded: least recently used first out. */
  private readonly entries: LRUCache<string, { value: unknown }> | null;
  /**
   * Unbounded (the CLI's one report): a plain Map. An LRU cache that never evicts only costs —
   * its bookkeeping and a wrapper per entry, for some 20,000 entries of a 1M-token cold report,
   * and the pinned memo a second copy of each key (docs/benchmarks.md, issue 42.2).
   */
  private readonly all: Map<string, unknown> | null;

  /** `maxBytes`: Infinity keeps everything (the CLI's one report), without measuring. */
  constructor(readonly maxBytes = DEFAULT_CACHE_BYTES) {
    const bounded = Number.isFinite(maxBytes);
    this.entries = bounded
      ? new LRUCache({ maxSize: maxBytes, sizeCalculation: (entry) => Math.max(1, approximateBytes(entry.value)) })
      : null;
    this.all = bounded ? null : new Map();
  }

  get(key: string): unknown {
    return this.all ? this.all.get(key) : this.entries!.get(key)?.value;
  }

  set(key: string, value: unknown): void {
    if (this.all) this.all.set(key, value);
    else this.entries!.set(key, { value });
  }

  get size(): number {
    return this.all ? this.all.size : this.entries!.size;
  }

  /** Bytes kept, as approximated (bounded memos only). */
  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  /**
   * The memo for one report: what it found or kept stays found for that report even when other
   * reports push it out of the cache meanwhile — the rows the report read were chosen by what the
   * memo held (core/read-plan.ts). An unbounded cache pushes nothing out: it is its own pin.
   */
  pinned(): Memo {
    if (this.all) return this;
    const held = new Map<string, unknown>();
    return {
      get: (key) => {
        if (held.has(key)) return held.get(key);
        const value = this.get(key);
        if (value !== undefined) held.set(key, value);
        return value;
      },
      set: (key, value) => {
        held.set(key, value);
        this.set(key, value);
      },
    };
  }
}

/** What tells one state of a stored message from another. */
export const stampOf = (s: { time_updated: number; version?: string | undefined }): string =>
  s.version === undefined ? String(s.time_updated) : `${s.time_updated}/${s.version}`;

/**
 * Roughly what a value holds in V8's heap: strings by their length, numbers and booleans as
 * words, objects, arrays, Maps and Sets by their slots; a value reached twice counted once.
 */
export function approximateBytes(value: unknown): number {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  let bytes = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') bytes += 16 + v.length;
    else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') bytes += 8;
    else if (v === null || v === undefined || typeof v !== 'object') bytes += 8;
    else if (!seen.has(v)) {
      seen.add(v);
      if (v instanceof Map)
        for (const [k, x] of v) {
          stack.push(k, x);
          bytes += 16;
        }
      else if (v instanceof Set)
        for (const x of v) {
          stack.push(x);
          bytes += 8;
        }
      else if (Array.isArray(v)) for (const x of v) stack.push(x);
      else
        for (const [k, x] of Object.entries(v)) {
          stack.push(x);
          bytes += 8 + k.length;
        }
      bytes += 16 + (Array.isArray(v) ? 8 * v.length : 0);
    }
  }
  return bytes;
}
