/**
 * The read-only report service: the calls behind the API and the CLI. It resolves the workspace
 * and session, reads the folder and the store in one consistent snapshot (never writing
 * either), and hands plain data to the core's one entry point (core/context-report.ts) with the
 * runtime adapter, the estimators, the memo and the thread pool: nothing else. One snapshot
 * per report, reading only the rows the core's memo lacks (as core/read-plan.ts decides), and
 * one call of the core.
 */
import { parseDeclaredSources } from './declared-sources';
import type { ContextReport, EstimatorId, ItemContent, ReaderPage } from '../../shared/wire';
import { ITEM_PAGE_CHARS } from '../../shared/item-pages';
import {
  CallUnavailable,
  contextReport,
  headerRowsToRead,
  PageOutOfRange,
  pageText,
  previewText,
  rowsToRead,
  subagentInput,
  subagentsNamed,
  type AgentRuntime,
  type ContextInput,
  type ContextResult,
  type ContextServices,
  type RecordedRuntime,
  type SessionInput,
  type SessionRows,
  type StoredRow,
  useKeyHash,
} from '../core';
import { AppError, notFound } from '../errors';
import { resolveSession } from '../sessions';
import { columnText } from '../storage/column-text';
import type { ReadSnapshot, Store, WorkspaceRow } from '../storage/store';
import { latestAcpUsage } from '../usage';
import { estimatorFor, memoized } from './estimator';
import { readWorkspace, WorkspaceReader, type ReadOptions } from './read-workspace';
import { ReportCache, stampOf } from './report-cache';
import { DEFAULT_RUNTIME, runtimeOfRows } from './runtimes';
import { countsVersion, storedFirst, StoredCounts, withStoredCounts } from './stored-counts';
import { MessageAnalyses, readAnalyses } from './stored-analyses';
import { claimTokenPool, PARALLEL_MIN_CHARS } from './token-pool';
import { nativeKeyHash } from './native-hash';

// Every memo key, the snapshot id and each text's content key, natively (report/native-hash.ts).
useKeyHash(nativeKeyHash);

export interface ReportRequest {
  workspaceId: string;
  sessionId?: string | undefined;
  estimator?: EstimatorId | undefined;
  items?: number | 'all' | undefined;
  /** The context as of this model call (1-based); absent: now. */
  call?: number | undefined;
}

export interface ContentRequest extends ReportRequest {
  /** The report's snapshotId; when given and no longer current, the answer is 410. */
  snapshotId?: string | undefined;
  page?: number | undefined;
}

export interface ServiceOptions extends ReadOptions {
  now?: () => Date;
  /** Memo shared between reports of a long-lived process (the server); a fresh one otherwise. */
  cache?: ReportCache;
  /** Live text (characters) from which BPE counting moves to worker threads. */
  parallelMinChars?: number;
  /**
   * Sources declared outside the workspace (`debug context --sources FILE`): they replace its
   * own `.investibook/sources.json`, for a session with no workspace of its own (an export).
   */
  sources?: { file: string; text: string };
  /** Sessions that exist though nothing is stored yet (the live agent's, mid-turn). */
  live?: (workspaceId: string, sessionId: string) => boolean;
  /**
   * The primary database when reports read a replica: a session the replica does not have yet
   * but the primary does answers 503 replica_behind, never 404.
   */
  primary?: Pick<ReadSnapshot, 'sessionOwner'>;
  /** The agent runtime whose rows these are, or how to tell from the workspace (default: what the session's rows say). */
  runtime?: AgentRuntime | ((workspace: WorkspaceRow) => AgentRuntime);
  /**
   * The write path's recorder (report/count-sessions.ts): what has no stored count is counted
   * into it, on this thread, for the caller to store. Absent: the report reads the stored counts
   * and writes nothing.
   */
  counts?: StoredCounts;
  /**
   * The write path's recorder of analyses (report/stored-analyses.ts): each message's analysis
   * made is kept for the caller to store. Absent: the report reads the stored analyses only.
   */
  analyses?: MessageAnalyses;
}

export const READER_BLOCKS_PER_PAGE = 200;
const READER_PREVIEW_CHARS = 600;

/** The report, item pages and reader pages of one store, read-only. */
export class ReportService {
  private readonly cache: ReportCache;

  constructor(
    private readonly store: Store,
    private readonly options: ServiceOptions = {},
  ) {
    this.cache = options.cache ?? new ReportCache(Infinity);
  }

  async report(request: ReportRequest): Promise<ContextReport> {
    return (await this.context(request)).report;
  }

  /** One page of an item's text as the model sees it. */
  async itemContent(request: ContentRequest & { itemId: string }): Promise<ItemContent> {
    const made = await this.context(request, { items: [request.itemId] });
    checkSnapshot(made.report, request.snapshotId);
    const block = made.blocks.find((b) => b.itemId === request.itemId);
    if (!block) throw notFound('item_not_found', `no item ${request.itemId} in this context`);
    const text = made.texts.get(block.itemId) ?? '';
    const paged = withRange(() => pageText({ source: block.source, text }, request.page ?? 0));
    return {
      snapshotId: made.report.snapshotId,
      itemId: request.itemId,
      label: block.label,
      source: block.source,
      sourceRef: block.sourceRef,
      pageSize: ITEM_PAGE_CHARS,
      ...paged,
    };
  }

  /** The live context in request order, a page of blocks at a time, each with a bounded preview. */
  async readerPage(request: ContentRequest): Promise<ReaderPage> {
    const page = request.page ?? 0;
    const start = Number.isInteger(page) && page >= 0 ? page * READER_BLOCKS_PER_PAGE : 0;
    const made = await this.context(request, { blocks: { start, count: READER_BLOCKS_PER_PAGE } });
    checkSnapshot(made.report, request.snapshotId);
    const all = made.blocks;
    const pageCount = Math.max(1, Math.ceil(all.length / READER_BLOCKS_PER_PAGE));
    if (!Number.isInteger(page) || page < 0 || page >= pageCount) {
      throw new AppError('invalid', 'page_out_of_range', new PageOutOfRange(page, pageCount, 'the reader').message);
    }
    return {
      snapshotId: made.report.snapshotId,
      page,
      pageCount,
      blockCount: all.length,
      blocks: all.slice(start, start + READER_BLOCKS_PER_PAGE).map((b, i) => ({
        itemId: b.itemId,
        order: start + i,
        source: b.source,
        label: b.label,
        estimatedTokens: b.estimatedTokens,
        tokens: b.tokens,
        bytes: b.bytes,
        ...previewText({ source: b.source, text: made.texts.get(b.itemId) ?? '' }, READER_PREVIEW_CHARS),
      })),
    };
  }

  /**
   * The core's answer for a request: one snapshot of the store — the session's stamps, usage and
   * runtime records, its subagents' sessions, and only the rows the memo lacks (core/read-plan,
   * which asks for every row the report can need: nothing is read again) — with the folder read
   * alongside, then one call of the core. The analysis — seconds of tokenizing for a large cold
   * session — runs after the snapshot, so it never holds a read transaction (or, on SQLite, the
   * connection's queue) open.
   */
  private async context(request: ReportRequest, texts?: ContextInput['texts']): Promise<ContextResult> {
    const stored = this.options.counts ?? new StoredCounts();
    const analyses = this.options.analyses ?? new MessageAnalyses();
    const services = { ...this.services(stored), stored: analyses };
    const generatedAt = (this.options.now?.() ?? new Date()).toISOString();
    // The folder is read before the snapshot (it is no part of the database's), so that no read
    // transaction waits on the file system; again inside only if the root or the runtime moved.
    const folders = new Map<string, ContextInput['workspace']>();
    const folderOf = (workspace: WorkspaceRow, runtime: AgentRuntime) => {
      const root = this.store.resolveRoot(workspace.root_path);
      const key = `${root}\u0000${runtime.id}`;
      let folder = folders.get(key);
      if (!folder) {
        folder = readWorkspace(new WorkspaceReader(root, this.options), runtime.layout);
        if (this.options.sources) withSources(folder, this.options.sources);
        folders.set(key, folder);
      }
      return folder;
    };
    const known = await this.store.getWorkspace(request.workspaceId);
    if (known) folderOf(known, this.chosenRuntime(known) ?? DEFAULT_RUNTIME);
    const input = await this.store.snapshot(async (r) => {
      const workspace = await r.getWorkspace(request.workspaceId);
      if (!workspace) throw notFound('workspace_not_found', `workspace not found: ${request.workspaceId}`);
      const sessionId = await this.session(r, workspace.id, request.sessionId);
      services.runtime = await this.runtimeOf(r, workspace, sessionId);
      const folder = folderOf(workspace, services.runtime);
      const session = await this.readSession(r, workspace.id, sessionId, services);
      const input: ContextInput = {
        ...session,
        workspaceId: workspace.id,
        generatedAt,
        estimator: request.estimator ?? 'bpe',
        workspace: folder,
        items: request.items ?? undefined,
        ...(request.call !== undefined ? { asOfCall: request.call } : {}),
        ...(texts ? { texts } : {}),
        subagents: await this.readSubagents(r, workspace.id, session, { folder, generatedAt }, services),
      };
      await readRows(r, input, rowsToRead(input, services));
      await readCounts(r, workspace.id, input, stored);
      await readAnalyses(r, workspace.id, sessionsOf(input), analyses);
      return input;
    });
    return withRange(() => contextReport(input, services));
  }

  /**
   * The services the core is lent for one report: the memo held for its length (see pinned),
   * the estimators reading the stored counts first. The write path's recorder counts on this
   * thread (what it counts it keeps).
   */
  private services(stored: StoredCounts): ContextServices {
    const estimators = new Map<string, ReturnType<typeof memoized>>();
    return {
      runtime: DEFAULT_RUNTIME, // the workspace's, once its row is read
      estimator: (id, family) => {
        const key = `${id}:${family}`;
        let found = estimators.get(key);
        if (!found) estimators.set(key, (found = memoized(withStoredCounts(estimatorFor(id, family), stored))));
        return found;
      },
      memo: this.cache.pinned(),
      ...(this.options.counts
        ? {}
        : {
            threads: {
              minChars: this.options.parallelMinChars ?? PARALLEL_MIN_CHARS,
              open: (estimator) =>
                storedFirst(stored, estimator, () => claimTokenPool(estimator.encoding, estimator.multiplier)),
            },
          }),
    };
  }

  /** The runtime the options name, if they do. */
  private chosenRuntime(workspace: WorkspaceRow): AgentRuntime | null {
    const chosen = this.options.runtime;
    return chosen ? (typeof chosen === 'function' ? chosen(workspace) : chosen) : null;
  }

  /** The runtime the options name, else the one the session's rows say wrote them. */
  private async runtimeOf(r: ReadSnapshot, workspace: WorkspaceRow, sessionId: string | null): Promise<AgentRuntime> {
    const chosen = this.chosenRuntime(workspace);
    if (chosen) return chosen;
    return runtimeOfRows(sessionId === null ? [] : await r.messageRuntimes(workspace.id, sessionId), sessionId);
  }

  /** A session's stamps, usage and runtime records, and the rows of the headers the memo lacks. */
  private async readSession(
    r: ReadSnapshot,
    workspaceId: string,
    sessionId: string | null,
    services: ContextServices,
  ): Promise<SessionInput> {
    if (sessionId === null) {
      const warnings = ['this workspace has no sessions yet: only always-loaded content is shown'];
      return { sessionId, warnings, usage: null, messages: [], rows: new Map(), runtimeRecords: [] };
    }
    const warnings: string[] = [];
    const usage = await latestAcpUsage(r, workspaceId, sessionId, warnings);
    const messages = (await r.messageStamps(workspaceId, sessionId)).map((s) => ({ id: s.id, stamp: stampOf(s) }));
    const runtimeRecords = (await r.sessionRuntime(workspaceId, sessionId)).map((row): RecordedRuntime => ({
      key: row.runtime_key,
      parentSessionId: row.parent_session_id,
      recordedAt: Number(row.recorded_at),
      definitions: row.definitions === null ? null : columnText(row.definitions).text,
    }));
    // A subagent's session: it shares its parent's window, and has no ACP total of its own.
    // The bridge records the parent with the runtime; an import with where the session came from.
    const [originRow] = await r.sessionOrigins(workspaceId, sessionId);
    const parentId =
      runtimeRecords.find((x) => x.parentSessionId)?.parentSessionId ?? originRow?.parent_session_id ?? null;
    // The file it was imported from, named in every view (contract §8); none when OpenCode was asked.
    const origin = originRow && {
      kind: originRow.kind,
      title: originRow.title,
      directory: originRow.directory,
      ...(originRow.source_file ? { files: [originRow.source_file] } : {}),
      version: originRow.agent_version,
    };
    const parent = parentId
      ? { sessionId: parentId, contextSize: (await latestAcpUsage(r, workspaceId, parentId, []))?.contextSize ?? null }
      : undefined;
    const session: SessionInput = {
      sessionId,
      warnings,
      usage,
      messages,
      rows: new Map(),
      runtimeRecords,
      ...(parent ? { parent } : {}),
      ...(origin ? { origin } : {}),
    };
    await readRows(r, session, headerRowsToRead(session, services));
    return session;
  }

  /**
   * The sessions of the subagents the session's headers name, each with the rows its summary
   * needs; null when one is not stored in this workspace, or is the session itself.
   */
  private async readSubagents(
    r: ReadSnapshot,
    workspaceId: string,
    session: SessionInput,
    { folder: workspace, generatedAt }: { folder: ContextInput['workspace']; generatedAt: string },
    services: ContextServices,
  ): Promise<Map<string, SessionInput | null>> {
    const out = new Map<string, SessionInput | null>();
    for (const id of subagentsNamed(session, services)) {
      if (id === session.sessionId) {
        out.set(id, null);
        continue;
      }
      try {
        await this.session(r, workspaceId, id);
      } catch (error) {
        if (error instanceof AppError && error.code === 'session_not_found') {
          out.set(id, null);
          continue;
        }
        throw error;
      }
      const child = await this.readSession(r, workspaceId, id, services);
      const planned = subagentInput({ workspaceId, generatedAt, workspace }, child);
      await readRows(r, child, rowsToRead(planned, services));
      out.set(id, child);
    }
    return out;
  }

  /** The session asked for (see resolveSession), telling a replica that lags from a session that is not there. */
  private async session(read: ReadSnapshot, workspaceId: string, requested: string | undefined) {
    try {
      return await resolveSession(read, workspaceId, requested, this.options.live);
    } catch (error) {
      const primary = this.options.primary;
      if (requested && primary && primary !== this.store && (await primary.sessionOwner(requested)) === workspaceId) {
        throw new AppError(
          'unavailable',
          'replica_behind',
          'The report database has not caught up with this session yet: try again in a moment',
          { cause: error },
        );
      }
      throw error;
    }
  }
}

/**
 * Reads into a session the rows the read plan names, in one visit. A row the snapshot names (by
 * its stamp) but does not give is a database that changed under its own snapshot: the report
 * says so rather than be made from part of the session.
 */
async function readRows(r: ReadSnapshot, session: SessionRows, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const stamps = new Map(session.messages.map((m) => [m.id, m.stamp]));
  const rows = session.rows as Map<string, StoredRow>;
  for (const row of await r.messages([...ids])) rows.set(row.id, storedRow(row, stamps.get(row.id)!));
  const missing = ids.filter((id) => !rows.has(id));
  if (missing.length > 0)
    throw new AppError(
      'unavailable',
      'snapshot_incomplete',
      `The database named ${missing.length} message${missing.length === 1 ? '' : 's'} it then did not give in the same snapshot: try again in a moment`,
    );
}

/**
 * The stored token counts of the session and its subagents' sessions, when the snapshot read
 * rows to analyse (with nothing to analyse, as in a warm report, there is little to count).
 */
async function readCounts(r: ReadSnapshot, workspaceId: string, input: ContextInput, stored: StoredCounts) {
  const sessions = sessionsOf(input);
  if (sessions.every((s) => s.rows.size === 0)) return;
  const ids = sessions.flatMap((s) => (s.sessionId === null ? [] : [s.sessionId]));
  stored.add(await r.tokenCounts(workspaceId, ids, countsVersion()));
}

/** The session and its subagents' sessions, as read. */
const sessionsOf = (input: ContextInput): SessionInput[] => [
  input,
  ...[...(input.subagents?.values() ?? [])].filter((s) => s !== null),
];

/** A stored row as the core reads it: its JSON columns as text, how oddly they were stored, its size. */
function storedRow(row: { id: string; info: unknown; parts: unknown }, stamp: string): StoredRow {
  const ref = `messages_v2/${row.id}`;
  const notes: string[] = [];
  const column = (value: unknown, name: string) => {
    const { text, odd } = columnText(value);
    if (odd) notes.push(`${ref}: ${name} ${odd}`);
    return text;
  };
  return {
    id: row.id,
    stamp,
    size: storedBytes(row.info) + storedBytes(row.parts),
    info: column(row.info, 'info'),
    parts: column(row.parts, 'parts'),
    ...(notes.length ? { notes } : {}),
  };
}

/** Bytes a column holds as stored (UTF-8 text, or a BLOB's length). */
const storedBytes = (value: unknown): number =>
  typeof value === 'string' ? Buffer.byteLength(value) : value instanceof Uint8Array ? value.length : 0;

/** The core's range errors (a page, a call) in the service's words. */
function withRange<T>(work: () => T): T {
  const words = (error: unknown): never => {
    if (error instanceof PageOutOfRange || error instanceof CallUnavailable)
      throw new AppError('invalid', error.code, error.message, { cause: error });
    throw error;
  };
  try {
    const result = work();
    return result instanceof Promise ? (result.catch(words) as T) : result;
  } catch (error) {
    return words(error);
  }
}

function checkSnapshot(report: ContextReport, requested: string | undefined): void {
  if (requested !== undefined && requested !== report.snapshotId)
    throw new AppError('gone', 'context_changed', 'The context changed since this report was made: run /debug again');
}

/** The sources a file outside the workspace declares, in place of the workspace's own. */
function withSources(folder: ContextInput['workspace'], sources: { file: string; text: string }): void {
  const parsed = parseDeclaredSources(sources.text, sources.file);
  folder.warnings.push(...parsed.warnings);
  if (parsed.sources.length) folder.declaredSources = parsed.sources;
  else delete folder.declaredSources;
}
