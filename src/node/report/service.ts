/**
 * The read-only report service: the calls behind the API and the CLI. It resolves the workspace
 * and session, reads the folder once and the store in consistent snapshots (never writing
 * either), and hands plain data to the core's one entry point (core/context-report.ts) with the
 * runtime adapter, the estimators, the memo and the thread pool: nothing else. The core says
 * which rows it needs beyond those it remembers; they are read in the next snapshot.
 */
import type { ContextReport, EstimatorId, ItemContent, ReaderPage } from '../../shared/wire';
import { ITEM_PAGE_CHARS } from '../../shared/wire';
import { contextReport, type ContextInput, type ContextServices, type StoredRow } from '../core/context-report';
import { pageText, previewText } from '../core/content-pages';
import { CallUnavailable, PageOutOfRange } from '../core/errors';
import { opencodeRuntime } from '../core/opencode';
import type { AgentRuntime } from '../core/runtime';
import type { RecordedRuntime, SubagentSummary } from '../core/types';
import { AppError, notFound } from '../errors';
import { resolveSession } from '../sessions';
import { columnText } from '../storage/column-text';
import type { ReadSnapshot, Store, WorkspaceRow } from '../storage/store';
import { latestAcpUsage } from '../usage';
import { estimatorFor, memoized } from './estimator';
import { readWorkspace, WorkspaceReader, type ReadOptions } from './read-workspace';
import { ReportCache, stampOf } from './report-cache';
import { claimTokenPool, PARALLEL_MIN_CHARS } from './token-pool';

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
  /** Sessions that exist though nothing is stored yet (the live agent's, mid-turn). */
  live?: (workspaceId: string, sessionId: string) => boolean;
  /**
   * The primary database when reports read a replica: a session the replica does not have yet
   * but the primary does answers 503 replica_behind, never 404.
   */
  primary?: Pick<ReadSnapshot, 'sessionOwner'>;
  /** The agent runtime whose rows these are, or how to tell from the workspace (default: OpenCode). */
  runtime?: AgentRuntime | ((workspace: WorkspaceRow) => AgentRuntime);
}

export const READER_BLOCKS_PER_PAGE = 200;
const READER_PREVIEW_CHARS = 600;
/** Snapshots read for one report at most: the core asks for rows at most twice when nothing changes. */
const MAX_ROUNDS = 5;
/** The largest sources a subagent's item names. */
const SUBAGENT_LARGEST = 3;

/** The report, item pages and reader pages of one store, read-only. */
export class ReportService {
  private readonly cache: ReportCache;

  constructor(
    private readonly store: Store,
    private readonly options: ServiceOptions = {},
  ) {
    this.cache = options.cache ?? new ReportCache(Number.MAX_SAFE_INTEGER);
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
   * The core's answer for a request. The folder is read once; the store in a snapshot per round
   * (the stamps, the usage and the rows the core asked for), so the analysis — seconds of
   * tokenizing for a large cold session — never holds a read transaction (or, on SQLite, the
   * connection's queue) open.
   */
  private async context(
    request: ReportRequest,
    texts?: ContextInput['texts'],
    /** Sessions whose reports are being made (a subagent's is made for its parent's item). */
    within: ReadonlySet<string> = new Set(),
  ) {
    const choose = this.options.runtime ?? opencodeRuntime;
    const runtimeOf = (workspace: WorkspaceRow) => (typeof choose === 'function' ? choose(workspace) : choose);
    const asked = request.estimator ?? 'bpe';
    const estimators = new Map<string, ReturnType<typeof memoized>>();
    const services: ContextServices = {
      runtime: opencodeRuntime, // the workspace's, once its row is read
      estimator: (id, family) => {
        const key = `${id}:${family}`;
        let found = estimators.get(key);
        if (!found) estimators.set(key, (found = memoized(estimatorFor(id, family))));
        return found;
      },
      memo: this.cache,
      threads: {
        minChars: this.options.parallelMinChars ?? PARALLEL_MIN_CHARS,
        open: (estimator) => claimTokenPool(estimator.encoding, estimator.multiplier),
      },
    };
    const rows = new Map<string, StoredRow>();
    const subagents = new Map<string, SubagentSummary | null>();
    let needs: readonly string[] = [];
    let folder = null as { root: string; snapshot: ContextInput['workspace'] } | null;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const read = await this.store.snapshot(async (r) => {
        const workspace = await r.getWorkspace(request.workspaceId);
        if (!workspace) throw notFound('workspace_not_found', `workspace not found: ${request.workspaceId}`);
        const sessionId = await this.session(r, workspace.id, request.sessionId);
        const warnings: string[] = [];
        if (sessionId === null) {
          warnings.push('this workspace has no sessions yet: only always-loaded content is shown');
          return { workspace, sessionId, warnings, usage: null, messages: [], runtime: [], parent: undefined };
        }
        const usage = await latestAcpUsage(r, workspace.id, sessionId, warnings);
        const messages = (await r.messageStamps(workspace.id, sessionId)).map((s) => ({
          id: s.id,
          stamp: stampOf(s),
        }));
        const current = new Map(messages.map((m) => [m.id, m.stamp]));
        for (const row of await r.messages(needs.filter((id) => current.has(id)))) {
          rows.set(row.id, storedRow(row, current.get(row.id)!));
        }
        const recorded = await r.sessionRuntime(workspace.id, sessionId);
        const runtime = recorded.map((row): RecordedRuntime => ({
          key: row.runtime_key,
          parentSessionId: row.parent_session_id,
          recordedAt: Number(row.recorded_at),
          definitions: row.definitions === null ? null : columnText(row.definitions).text,
        }));
        // A subagent's session: it shares its parent's window, and has no ACP total of its own.
        // The bridge records the parent with the runtime; an import with where the session came from.
        const parentId =
          runtime.find((x) => x.parentSessionId)?.parentSessionId ??
          (await r.sessionOrigins(workspace.id, sessionId))[0]?.parent_session_id ??
          null;
        const parent = parentId
          ? {
              sessionId: parentId,
              contextSize: (await latestAcpUsage(r, workspace.id, parentId, []))?.contextSize ?? null,
            }
          : undefined;
        return { workspace, sessionId, warnings, usage, messages, runtime, parent };
      });
      const root = this.store.resolveRoot(read.workspace.root_path);
      services.runtime = runtimeOf(read.workspace);
      if (folder?.root !== root)
        folder = {
          root,
          snapshot: readWorkspace(new WorkspaceReader(root, this.options), services.runtime.layout),
        };
      const workspace = folder.snapshot;
      const result = await withRange(() =>
        contextReport(
          {
            workspaceId: read.workspace.id,
            sessionId: read.sessionId,
            generatedAt: (this.options.now?.() ?? new Date()).toISOString(),
            estimator: asked,
            workspace,
            usage: read.usage,
            messages: read.messages,
            rows,
            warnings: read.warnings,
            items: request.items ?? undefined,
            ...(request.call !== undefined ? { asOfCall: request.call } : {}),
            ...(texts ? { texts } : {}),
            runtimeRecords: read.runtime,
            subagents,
            ...(read.parent ? { parent: read.parent } : {}),
          },
          services,
        ),
      );
      if (result.kind === 'report') return result;
      needs = result.rows;
      for (const child of result.subagents ?? []) {
        subagents.set(child, await this.subagent(read.workspace.id, child, new Set([...within, read.sessionId!])));
      }
    }
    throw new AppError(
      'unavailable',
      'context_busy',
      'The session kept changing while the report was being read: try again in a moment',
    );
  }

  /**
   * What a subagent's session consumed, from its own report (as of its last measured call);
   * null when its rows are not stored in this workspace, or when it would be its own ancestor.
   */
  private async subagent(workspaceId: string, sessionId: string, within: ReadonlySet<string>) {
    if (within.has(sessionId)) return null;
    let report: ContextReport;
    try {
      report = (await this.context({ workspaceId, sessionId, items: 1 }, undefined, within)).report;
    } catch (error) {
      if (error instanceof AppError && error.code === 'session_not_found') return null;
      throw error;
    }
    return subagentSummary(report);
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

/** A subagent's report in brief: its total, its window, its calls, its largest sources and its cost. */
export function subagentSummary(report: ContextReport): SubagentSummary {
  const rows = [
    ...report.sources.map((s) => ({ id: s.id, label: s.label, tokens: s.scaledTokens ?? s.estimatedTokens })),
    ...(report.remainder ?? []).map((r) => ({ id: r.kind, label: r.label, tokens: r.tokens })),
  ];
  return {
    total: report.actual?.contextUsed ?? null,
    contextSize: report.actual?.contextSize ?? null,
    calls: report.calibration?.calls ?? 0,
    largest: rows
      .filter((x) => x.tokens > 0)
      .sort((a, b) => b.tokens - a.tokens)
      .slice(0, SUBAGENT_LARGEST),
    cost:
      report.cost && report.cost.total !== null ? { amount: report.cost.total, currency: report.cost.currency } : null,
  };
}

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
