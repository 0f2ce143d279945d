/**
 * In-memory memo of per-message work, keyed by message id and `time_updated` (and by estimator
 * and workspace root, which the analysis depends on). A second report over unchanged data reads
 * only the stamp index. Bounded: the least recently used entries are dropped. Never written
 * anywhere but memory.
 */
import type { MessageAnalysis } from './attribute';
import type { MessageHeader } from './compaction';

export interface CachedMessage {
  timeUpdated: number;
  size: number;
  header: MessageHeader;
  infoValid: boolean;
  /** Filled once the message has been in live context. */
  analysis: MessageAnalysis | null;
}

export const DEFAULT_CACHE_ENTRIES = 100_000;

export class ReportCache {
  private readonly entries = new Map<string, CachedMessage>();

  constructor(readonly maxEntries = DEFAULT_CACHE_ENTRIES) {}

  get(scope: string, id: string, timeUpdated: number): CachedMessage | undefined {
    const key = `${scope}\u0000${id}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.timeUpdated !== timeUpdated) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert: Map order is the LRU order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(scope: string, id: string, entry: CachedMessage): void {
    const key = `${scope}\u0000${id}`;
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
