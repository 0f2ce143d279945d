/**
 * Token counts made once, where content arrives (the write path), and read by the report: a
 * text's count in one encoding is a fact about the text, so it is stored under the SHA-256 of
 * the text, the encoding and a version naming the tokenizer package and the counting rules
 * below (estimator.ts: slices, chunks, samples). A report looks each text it would count up
 * by its digest and counts only what has none — the same number either way, so a report never
 * depends on who wrote the rows (test/node/stored-counts.test.ts proves it on both backends).
 * The multiplier a provider family applies is applied after the look-up, as after a count.
 */
import { createHash } from 'node:crypto';
import type { Encoding, Estimator, ThreadCounter } from '../core';
import type { TokenCountRow } from '../storage/store';
import { countEncoded, scaledCount, tokenizerVersion } from './estimator';

/**
 * Bumped whenever estimator.ts counts a text differently (its slices, chunks, sample limit):
 * counts made by the old rules are then never read.
 */
const COUNTING_RULES = 1;

let version: string | null = null;

/** The version stored counts are read and written under: the package's, and the rules'. */
export function countsVersion(): string {
  return (version ??= `ai-tokenizer@${tokenizerVersion()}/${COUNTING_RULES}`);
}

const digest = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const keyOf = (encoding: string, sha256: string) => `${encoding}\u0000${sha256}`;

/** Counts by encoding and digest: what a report read in its snapshot, and what it counted since. */
export class StoredCounts {
  private readonly counts = new Map<string, number>();
  /** Counted here, not read: what the write path stores. */
  private readonly made = new Map<string, { encoding: Encoding; sha256: string; tokens: number }>();

  /**
   * `record`: count what has no stored count here and keep it for `newRows` (the write path);
   * otherwise a miss is left to the estimator (the report, which writes nothing).
   */
  constructor(private readonly record = false) {}

  add(rows: readonly Pick<TokenCountRow, 'tokenizer' | 'content_sha256' | 'tokens'>[]): void {
    for (const row of rows) this.counts.set(keyOf(row.tokenizer, row.content_sha256), Number(row.tokens));
  }

  get size(): number {
    return this.counts.size;
  }

  /** The count of a text in an encoding (unscaled), or undefined when none is stored (and none is recorded). */
  encoded(text: string, encoding: Encoding): number | undefined {
    if (this.counts.size === 0 && !this.record) return undefined;
    const sha256 = digest(text);
    const key = keyOf(encoding, sha256);
    let tokens = this.counts.get(key);
    if (tokens === undefined && this.record) {
      tokens = countEncoded(text, encoding);
      this.counts.set(key, tokens);
      this.made.set(key, { encoding, sha256, tokens });
    }
    return tokens;
  }

  /** The counts made here, as rows of a session. */
  newRows(workspaceId: string, sessionId: string): TokenCountRow[] {
    return [...this.made.values()].map((m) => ({
      workspace_id: workspaceId,
      session_id: sessionId,
      tokenizer: m.encoding,
      tokenizer_version: countsVersion(),
      content_sha256: m.sha256,
      tokens: m.tokens,
    }));
  }
}

/** An estimator that reads stored counts first (BPE only: chars/4 costs nothing to count). */
export function withStoredCounts(estimator: Estimator, stored: StoredCounts): Estimator {
  const { encoding } = estimator;
  if (encoding === undefined) return estimator;
  return {
    ...estimator,
    count(text) {
      const tokens = stored.encoded(text, encoding);
      return tokens === undefined ? estimator.count(text) : scaledCount(tokens, estimator.multiplier ?? 1);
    },
  };
}

/**
 * Threads that count only what has no stored count: the pool is claimed on the first text that
 * needs one, so a report whose texts are all counted never starts a thread or loads a table.
 */
export function storedFirst(
  stored: StoredCounts,
  estimator: Estimator,
  open: () => ThreadCounter | null,
): ThreadCounter | null {
  const { encoding } = estimator;
  if (encoding === undefined) return open();
  let pool: ThreadCounter | null | undefined;
  return {
    count(text) {
      const tokens = stored.encoded(text, encoding);
      if (tokens !== undefined) return Promise.resolve(scaledCount(tokens, estimator.multiplier ?? 1));
      if (pool === undefined) pool = open();
      return pool ? pool.count(text) : Promise.resolve(estimator.count(text));
    },
    flush: () => pool?.flush(),
    close: async () => {
      await pool?.close();
    },
  };
}
