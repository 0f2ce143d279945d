/**
 * Each message's analysis made once, on the write path, beside its token counts
 * (report/stored-counts.ts), and read by a cold report instead of made again. An analysis is a
 * function of the message's row, the analyzer's code and the report's context; it is stored with
 * all three and used only while all three hold:
 *
 * - the row: the SHA-256 of its columns as the snapshot read them (any writer's change shows);
 * - the code: `analyzerVersion()`, investibook's version, ANALYSIS_RULES and, in the compiled
 *   programs, the digest of every source they were built from (so a change to the code that
 *   forgot to bump ANALYSIS_RULES still never reads an older build's analyses);
 * - the context: the core's `storedKey` (the estimator, live or history, the runtime, the
 *   workspace's sources, the session's facts) and, checked by the core, the file sizes it read.
 *
 * Anything else is made again from the row, so a report never depends on who wrote the rows
 * (test/node/stored-analyses.test.ts proves stored = fresh on both backends).
 */
import { createHash } from 'node:crypto';
import type { AnalysisEntry, StoredAnalyses, StoredRow } from '../core';
import { PROJECT_VERSION } from '../project';
import type { MessageAnalysisRow, ReadSnapshot } from '../storage/store';

/**
 * Bumped whenever the analysis of a message changes (the runtime adapters' `analyze`, `toItem`,
 * attribution, quotes, warnings): analyses made by the old code are then never read. Released
 * versions differ by investibook's version as well.
 */
const ANALYSIS_RULES = 1;

/** Set by the build (scripts/build-node.mjs); absent when the sources run as they are (tests, tsx). */
declare const __INVESTIBOOK_CODE_DIGEST__: string | undefined;
const CODE_DIGEST = typeof __INVESTIBOOK_CODE_DIGEST__ === 'string' ? __INVESTIBOOK_CODE_DIGEST__ : 'sources';

const VERSION = `investibook@${PROJECT_VERSION}/${ANALYSIS_RULES}/${CODE_DIGEST}`;

/** The version stored analyses are read and written under. */
export function analyzerVersion(): string {
  return VERSION;
}

/** Up to this many rows read, their analyses are asked for by id (well under every backend's parameter limit). */
const FEW_ROWS = 200;

type Stored = Omit<MessageAnalysisRow, 'workspace_id' | 'session_id' | 'analyzer_version'>;

/** The row's columns as stored, hashed: what the analysis was made from. */
function contentDigest(row: StoredRow): string {
  const hash = createHash('sha256');
  for (const column of [row.info, row.parts]) {
    // A null column and an empty one are told apart by the prefix. The hash takes the text and
    // encodes it itself: no Buffer of each column (a 1M-token session is 23 MB of them, each
    // allocated outside the heap and let go at once), only its UTF-8 length counted.
    if (column === null) hash.update('n');
    else hash.update(`t${Buffer.byteLength(column, 'utf8')}:`).update(column, 'utf8');
  }
  hash.update(JSON.stringify([row.size, row.notes ?? []]));
  return hash.digest('hex');
}

/** A report's stored analyses: what its snapshot read, and (on the write path) what it made. */
export class MessageAnalyses implements StoredAnalyses {
  private readonly stored = new Map<string, Stored>();
  /** The rows the snapshot read, by message id, with their session. */
  private readonly rows = new Map<string, { row: StoredRow; sessionId: string }>();
  private readonly fresh = new Map<string, MessageAnalysisRow>();

  /** `record`: keep each analysis made for `newRows` (the write path). */
  constructor(private readonly record = false) {}

  /** The rows of a session as its snapshot read them: an analysis is used only for the row it was made from. */
  addRows(sessionId: string, rows: Iterable<StoredRow>): void {
    for (const row of rows) this.rows.set(row.id, { row, sessionId });
  }

  /** The analyses stored for the sessions read (their JSON is parsed only when used). */
  addStored(rows: readonly Stored[]): void {
    for (const row of rows) this.stored.set(row.message_id, row);
  }

  find(id: string, key: string): AnalysisEntry | undefined {
    const stored = this.stored.get(id);
    const read = this.rows.get(id);
    if (!stored || !read || stored.analysis_key !== key) return undefined;
    if (stored.content_sha256 !== contentDigest(read.row)) return undefined;
    try {
      return {
        analysis: JSON.parse(stored.analysis) as AnalysisEntry['analysis'],
        deps: JSON.parse(stored.deps) as AnalysisEntry['deps'],
      };
    } catch {
      return undefined; // not as this program writes it: made again
    }
  }

  made(id: string, key: string, entry: AnalysisEntry): void {
    if (!this.record) return;
    const read = this.rows.get(id);
    if (!read) return;
    this.fresh.set(id, {
      workspace_id: '',
      session_id: read.sessionId,
      message_id: id,
      analyzer_version: analyzerVersion(),
      analysis_key: key,
      content_sha256: contentDigest(read.row),
      deps: JSON.stringify(entry.deps),
      analysis: JSON.stringify(entry.analysis),
    });
  }

  /** The analyses made here, as rows of a workspace. */
  newRows(workspaceId: string): MessageAnalysisRow[] {
    return [...this.fresh.values()].map((row) => ({ ...row, workspace_id: workspaceId }));
  }
}

/** The stored analyses of the sessions whose rows a report's snapshot read, with those rows. */
export async function readAnalyses(
  r: ReadSnapshot,
  workspaceId: string,
  sessions: readonly { sessionId: string | null; rows: ReadonlyMap<string, StoredRow> }[],
  analyses: MessageAnalyses,
): Promise<void> {
  const read = sessions.filter((s) => s.sessionId !== null && s.rows.size > 0);
  if (read.length === 0) return;
  for (const s of read) analyses.addRows(s.sessionId!, s.rows.values());
  // A warm report reads a few rows: only their analyses, not the session's.
  const ids = read.flatMap((s) => [...s.rows.keys()]);
  const some = ids.length <= FEW_ROWS ? ids : undefined;
  analyses.addStored(
    await r.messageAnalyses(
      workspaceId,
      read.map((s) => s.sessionId!),
      analyzerVersion(),
      some,
    ),
  );
}
