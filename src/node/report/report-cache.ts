/**
 * In-memory memo of per-message work, keyed by message id and its stamp (`time_updated`, and the
 * row version where the database keeps one, so that a change made by another server instance is
 * never answered from this one's memory) within a scope
 * (estimator, workspace root, enabled skills, the model requests go to — what the analysis
 * depends on). A second report over unchanged data reads only the stamp index. Bounded: past
 * `maxEntries` the oldest entries are dropped. Never written anywhere but memory.
 */
import type { MessageAnalysis } from '../core/analyze';
import type { MessageInfo, CompactionPart } from '../../shared/opencode/format';

export interface CachedMessage {
  /** The message's stamp when this was made (see `stampOf`). */
  stamp: string;
  size: number;
  info: MessageInfo;
  compaction: CompactionPart | null;
  infoWarnings: string[];
  /** Filled once analysed. */
  analysis: MessageAnalysis | null;
}

export const DEFAULT_CACHE_ENTRIES = 100_000;

/** Whole report inputs kept, by the digest of everything they were made from. */
const COLLECTED_ENTRIES = 8;

export class ReportCache {
  private readonly scopes = new Map<string, Map<string, CachedMessage>>();
  private entries = 0;
  private readonly inputs = new Map<string, unknown>();

  /** A report input made from exactly these inputs (the snapshot digest), if one was. */
  collected<T>(key: string): T | undefined {
    const found = this.inputs.get(key) as T | undefined;
    if (found !== undefined) {
      this.inputs.delete(key);
      this.inputs.set(key, found); // most recently used last
    }
    return found;
  }

  remember(key: string, value: unknown): void {
    this.inputs.set(key, value);
    while (this.inputs.size > COLLECTED_ENTRIES) this.inputs.delete(this.inputs.keys().next().value!);
  }

  constructor(readonly maxEntries = DEFAULT_CACHE_ENTRIES) {}

  get(scope: string, id: string, stamp: string): CachedMessage | undefined {
    const entry = this.scopes.get(scope)?.get(id);
    return entry && entry.stamp === stamp ? entry : undefined;
  }

  set(scope: string, id: string, entry: CachedMessage): void {
    let messages = this.scopes.get(scope);
    if (!messages) {
      messages = new Map();
      this.scopes.set(scope, messages);
    }
    if (!messages.has(id)) this.entries++;
    messages.set(id, entry);
    // Oldest scopes first, oldest entries of a scope first (Map order is insertion order).
    while (this.entries > this.maxEntries) {
      const [oldestScope, oldest] = this.scopes.entries().next().value as [string, Map<string, CachedMessage>];
      const first = oldest.keys().next();
      if (first.done) {
        this.scopes.delete(oldestScope);
        continue;
      }
      oldest.delete(first.value);
      this.entries--;
      if (oldest.size === 0) this.scopes.delete(oldestScope);
    }
  }

  get size(): number {
    return this.entries;
  }
}

/** What tells one state of a stored message from another. */
export const stampOf = (s: { time_updated: number; version?: string | undefined }): string =>
  s.version === undefined ? String(s.time_updated) : `${s.time_updated}/${s.version}`;
