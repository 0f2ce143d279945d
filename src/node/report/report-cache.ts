/**
 * In-memory memo of per-message work, keyed by message id and its stamp (`time_updated`, and the
 * row version where the database keeps one, so that a change made by another server instance is
 * never answered from this one's memory) within a scope
 * (estimator, workspace root, enabled skills, the model requests go to — what the analysis
 * depends on). A second report over unchanged data reads only the stamp index. Bounded: past
 * `maxEntries` the least recently used entries are dropped (lru-cache). Never written anywhere
 * but memory.
 */
import { LRUCache } from 'lru-cache';
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

/** Distinct scopes remembered (a root × skills × model each); past this the memo starts afresh. */
const MAX_SCOPES = 1024;

export class ReportCache {
  // One least-recently-used list over every scope: "scope NUL id" → entry. Counted by entries
  // (`maxSize` with a size of 1 each) rather than `max`, which lru-cache allocates up front —
  // the CLI's cache is unbounded (Number.MAX_SAFE_INTEGER).
  private readonly messages: LRUCache<string, CachedMessage>;
  // Scopes are long strings (a root, skill names, a model): each gets a short number, so a key is
  // "n NUL id" — building and hashing a key with the whole scope in it made a lookup ~10× slower.
  private readonly scopeIds = new Map<string, number>();
  private nextScope = 0;
  private readonly inputs = new LRUCache<string, { value: unknown }>({ max: COLLECTED_ENTRIES });

  constructor(readonly maxEntries = DEFAULT_CACHE_ENTRIES) {
    this.messages = new LRUCache({ maxSize: maxEntries, sizeCalculation: () => 1 });
  }

  /** A report input made from exactly these inputs (the snapshot digest), if one was. */
  collected<T>(key: string): T | undefined {
    return this.inputs.get(key)?.value as T | undefined;
  }

  remember(key: string, value: unknown): void {
    this.inputs.set(key, { value });
  }

  get(scope: string, id: string, stamp: string): CachedMessage | undefined {
    const entry = this.messages.get(this.key(scope, id));
    return entry && entry.stamp === stamp ? entry : undefined;
  }

  set(scope: string, id: string, entry: CachedMessage): void {
    this.messages.set(this.key(scope, id), entry);
  }

  private key(scope: string, id: string): string {
    let n = this.scopeIds.get(scope);
    if (n === undefined) {
      // Numbers are never reused; a process that saw very many scopes starts afresh.
      if (this.scopeIds.size >= MAX_SCOPES) {
        this.scopeIds.clear();
        this.messages.clear();
      }
      this.scopeIds.set(scope, (n = this.nextScope++));
    }
    return `${n}\u0000${id}`;
  }

  get size(): number {
    return this.messages.size;
  }
}

/** What tells one state of a stored message from another. */
export const stampOf = (s: { time_updated: number; version?: string | undefined }): string =>
  s.version === undefined ? String(s.time_updated) : `${s.time_updated}/${s.version}`;
