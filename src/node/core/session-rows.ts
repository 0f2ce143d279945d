/**
 * A session's stored rows as the core reads them, and their headers. The caller reads only the
 * rows the memo lacks (core/read-plan.ts); a row counts only at its message's current stamp.
 * Headers — what the session-wide steps need of each message — come from the memo (by runtime,
 * id and stamp) or from the row. Pure.
 */
import { ReadPlanMissed } from './errors';
import type { AgentRuntime, Header, ParsedRow } from './runtime';

/** One stored message as the store holds it: its JSON columns as text. */
export interface StoredRow {
  id: string;
  /** What tells one state of the row from another (its update time, and version where kept). */
  stamp: string;
  /** Bytes of the stored row. */
  size: number;
  info: string | null;
  parts: string | null;
  /** How the store held a column, when oddly (e.g. "is a BLOB; read as UTF-8"). */
  notes?: readonly string[];
}

/** What the core reads of one session: its messages in order, and the rows read of them. */
export interface SessionRows {
  messages: readonly { id: string; stamp: string }[];
  /** Rows read: a row whose stamp differs from its message's is not used. */
  rows: ReadonlyMap<string, StoredRow>;
}

/** A memo the core may keep work in: any value under a key the core derives. */
export interface Memo {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

/** A row as the analysis reads it: its columns parsed (undefined: not valid JSON). */
export interface ReadRow extends ParsedRow {
  notes: readonly string[];
  size: number;
  partsInvalid: boolean;
}

export interface HeaderEntry {
  header: Header;
  warnings: string[];
}

/** The rows of a session at their messages' stamps, each parsed once while it is needed. */
export class Rows {
  private readonly parsed = new Map<string, ReadRow>();
  readonly stamps: ReadonlyMap<string, string>;

  constructor(private readonly session: SessionRows) {
    this.stamps = new Map(session.messages.map((m) => [m.id, m.stamp]));
  }

  has(id: string): boolean {
    const row = this.session.rows.get(id);
    return row !== undefined && row.stamp === this.stamps.get(id);
  }

  /** Bytes of a row read (0 when it was not). */
  size(id: string): number {
    return this.session.rows.get(id)?.size ?? 0;
  }

  get(id: string): ReadRow | undefined {
    let found = this.parsed.get(id);
    if (found || !this.has(id)) return found;
    found = this.parse(id);
    this.parsed.set(id, found);
    return found;
  }

  /**
   * The row parsed for one look, not kept: a cold report reads every row's header, and parsed
   * rows kept until the end of that pass all outlived the young generation — copied by each
   * collection, then promoted — where a row parsed and let go dies young (docs/benchmarks.md,
   * issue 42.2). A row the analysis needs after is parsed again then (rarely: most analyses are
   * stored or memoised).
   */
  peek(id: string): ReadRow | undefined {
    return this.parsed.get(id) ?? (this.has(id) ? this.parse(id) : undefined);
  }

  private parse(id: string): ReadRow {
    const row = this.session.rows.get(id)!;
    const parts = parseJson(row.parts);
    return {
      id,
      info: parseJson(row.info),
      parts,
      size: row.size,
      notes: row.notes ?? [],
      partsInvalid: parts === undefined,
    };
  }

  /** The row, which the caller was asked to read. */
  need(id: string): ReadRow {
    const row = this.get(id);
    if (!row) throw new ReadPlanMissed([id]);
    return row;
  }

  /** Once analysed, a message's parsed row is let go: a large session's rows are most of a cold report's memory. */
  drop(id: string): void {
    this.parsed.delete(id);
  }
}

const HEADER = 'h';

/**
 * Every message's header, from the memo or from its row (then kept in the memo), with the
 * warnings of reading it; `missing`: the messages whose row is needed and was not read.
 */
export function headersOf(
  session: SessionRows,
  rows: Rows,
  runtime: AgentRuntime,
  memo: Memo,
): { headers: Header[]; warnings: string[]; missing: string[] } {
  const headers: Header[] = [];
  const warnings: string[] = [];
  const missing: string[] = [];
  for (const { id, stamp } of session.messages) {
    const key = `${HEADER}\u0000${runtime.id}\u0000${id}\u0000${stamp}`;
    let entry = memo.get(key) as HeaderEntry | undefined;
    if (!entry) {
      const row = rows.peek(id);
      if (!row) {
        missing.push(id);
        continue;
      }
      const headerWarnings = [...row.notes];
      const header = runtime.header(row, row.size, (m) => headerWarnings.push(m));
      entry = { header, warnings: headerWarnings };
      memo.set(key, entry);
    }
    headers.push(entry.header);
    warnings.push(...entry.warnings);
  }
  return { headers, warnings, missing };
}

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
