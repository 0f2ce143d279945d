/**
 * The memo a long-lived process (the server) lends the core: whatever the core keeps under the
 * keys it derives (core/context-report.ts) — message headers, message analyses, whole sessions.
 * In memory only, bounded: past `maxEntries` the least recently used entries go (lru-cache). It
 * changes how fast a report comes, never what it says: the keys carry everything the values
 * depend on.
 */
import { LRUCache } from 'lru-cache';
import type { Memo } from '../core/context-report';

export const DEFAULT_CACHE_ENTRIES = 100_000;

export class ReportCache implements Memo {
  // Counted by entries (`maxSize` with a size of 1 each) rather than `max`, which lru-cache
  // allocates up front — the CLI's memo is unbounded (Number.MAX_SAFE_INTEGER).
  private readonly entries: LRUCache<string, { value: unknown }>;

  constructor(readonly maxEntries = DEFAULT_CACHE_ENTRIES) {
    this.entries = new LRUCache({ maxSize: maxEntries, sizeCalculation: () => 1 });
  }

  get(key: string): unknown {
    return this.entries.get(key)?.value;
  }

  set(key: string, value: unknown): void {
    this.entries.set(key, { value });
  }

  get size(): number {
    return this.entries.size;
  }
}

/** What tells one state of a stored message from another. */
export const stampOf = (s: { time_updated: number; version?: string | undefined }): string =>
  s.version === undefined ? String(s.time_updated) : `${s.time_updated}/${s.version}`;
