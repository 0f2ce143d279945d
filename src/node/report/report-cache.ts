/**
 * The memo a long-lived process (the server) lends the core: whatever the core keeps under the
 * keys it derives (core/context-report.ts) — message headers, message analyses, whole sessions.
 * In memory only, bounded: past `maxEntries` the least recently used entries go. It changes how
 * fast a report comes, never what it says: the keys carry everything the values depend on.
 */
import type { Memo } from '../core/context-report';

export const DEFAULT_CACHE_ENTRIES = 100_000;

export class ReportCache implements Memo {
  private readonly entries = new Map<string, unknown>();

  constructor(readonly maxEntries = DEFAULT_CACHE_ENTRIES) {}

  get(key: string): unknown {
    const found = this.entries.get(key);
    if (found !== undefined) {
      // Most recently used last (Map order is insertion order).
      this.entries.delete(key);
      this.entries.set(key, found);
    }
    return found;
  }

  set(key: string, value: unknown): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** What tells one state of a stored message from another. */
export const stampOf = (s: { time_updated: number; version?: string | undefined }): string =>
  s.version === undefined ? String(s.time_updated) : `${s.time_updated}/${s.version}`;
