/**
 * The read-only report service: the calls behind the API and the CLI. It resolves the
 * workspace and session, reads the folder and the database (never writing either), and hands
 * plain data to the pure core. Item content and the reader reuse the same collection step, so
 * they describe exactly what the report describes.
 */
import { createHash } from 'node:crypto';
import {
  ESTIMATORS,
  ITEM_PAGE_CHARS,
  type ContextReport,
  type EstimatorId,
  type ItemContent,
  type ReaderPage,
} from '../../shared/wire';
import { AppError, notFound, usageError } from '../errors';
import {
  getWorkspace,
  listSessions,
  messageById,
  messageHeader,
  messageParts,
  messageStamps,
  resolveRoot,
  sessionExists,
  type Db,
} from '../storage/store';
import { latestAcpUsage } from '../usage';
import { analyzeMessage, type AttributionContext, type Contribution, type MessageAnalysis } from './attribute';
import { buildReport, DEFAULT_ITEMS, orderedContributions, type ReportInput } from './build-report';
import { headerOf, liveStartIndex, partsHaveCompaction } from './compaction';
import { pageText, previewText } from './content-pages';
import { estimatorFor, memoized } from './estimator';
import { itemId, type UsageInput } from './figures';
import { readWorkspace, type ReadOptions } from './read-workspace';
import { ReportCache, type CachedMessage } from './report-cache';

export interface ReportRequest {
  workspaceId: string;
  sessionId?: string | undefined;
  estimator?: EstimatorId | undefined;
  items?: number | 'all' | undefined;
}

export interface ReportOptions extends ReadOptions {
  now?: () => Date;
  /** Memo shared between reports of a long-lived process (the server); none in the CLI. */
  cache?: ReportCache;
}

/** The most recently active session of a workspace (contract §5), or null when it has none. */
export function defaultSession(db: Db, workspaceId: string): string | null {
  return listSessions(db, workspaceId)[0]?.session_id ?? null;
}

export function generateReport(db: Db, request: ReportRequest, options: ReportOptions = {}): ContextReport {
  const input = collect(db, request, options);
  return buildReport({ ...input, itemsLimit: request.items ?? DEFAULT_ITEMS });
}

export const READER_BLOCKS_PER_PAGE = 200;
const READER_PREVIEW_CHARS = 600;

export interface ContentRequest extends ReportRequest {
  /** The report's snapshotId; when given and no longer current, the answer is 410. */
  snapshotId?: string | undefined;
  page?: number | undefined;
}

/** One page of an item's text as the model sees it. */
export function itemContent(
  db: Db,
  request: ContentRequest & { itemId: string },
  options: ReportOptions = {},
): ItemContent {
  const input = collect(db, request, options);
  checkSnapshot(input, request.snapshotId);
  const found = orderedContributions(input).find((c) => itemId(c.sourceRef) === request.itemId);
  if (!found) throw notFound('item_not_found', `no item ${request.itemId} in this context`);
  const text = textsOf(db, input, [found.sourceRef]).get(found.sourceRef) ?? '';
  const paged = pageText({ ...found, text }, request.page ?? 0);
  return {
    snapshotId: input.snapshotId,
    itemId: request.itemId,
    label: found.label,
    source: found.source,
    sourceRef: found.sourceRef,
    pageSize: ITEM_PAGE_CHARS,
    ...paged,
  };
}

/** The live context in request order, a page of blocks at a time, each with a bounded preview. */
export function readerPage(db: Db, request: ContentRequest, options: ReportOptions = {}): ReaderPage {
  const input = collect(db, request, options);
  checkSnapshot(input, request.snapshotId);
  const all = orderedContributions(input);
  const pageCount = Math.max(1, Math.ceil(all.length / READER_BLOCKS_PER_PAGE));
  const page = request.page ?? 0;
  if (!Number.isInteger(page) || page < 0 || page >= pageCount) {
    throw new AppError(
      'invalid',
      'page_out_of_range',
      `page ${page} is out of range: the reader has ${pageCount} page${pageCount === 1 ? '' : 's'} (0–${pageCount - 1})`,
    );
  }
  const start = page * READER_BLOCKS_PER_PAGE;
  const blocks = all.slice(start, start + READER_BLOCKS_PER_PAGE);
  const texts = textsOf(
    db,
    input,
    blocks.map((c) => c.sourceRef),
  );
  return {
    snapshotId: input.snapshotId,
    page,
    pageCount,
    blockCount: all.length,
    blocks: blocks.map((c, i) => {
      const preview = previewText({ ...c, text: texts.get(c.sourceRef) ?? '' }, READER_PREVIEW_CHARS);
      return {
        itemId: itemId(c.sourceRef),
        order: start + i,
        source: c.source,
        label: c.label,
        estimatedTokens: c.tokens,
        bytes: c.bytes,
        ...preview,
      };
    }),
  };
}

/**
 * The texts behind some items. The report keeps no text, so only the messages these items come
 * from are read and analysed again, with texts kept: a page costs a few messages, not the session.
 */
function textsOf(db: Db, input: Collected, refs: readonly string[]): Map<string, string> {
  const texts = new Map<string, string>();
  const withText = { ...input.context, keepText: true };
  if (refs.some((ref) => ref.startsWith('file:'))) {
    for (const c of orderedContributions({ ...input, messages: [], keepText: true }))
      texts.set(c.sourceRef, c.text ?? '');
  }
  const messageIds = new Set(
    refs.map((ref) => /^messages_v2\/(.+?)\/parts\//.exec(ref)?.[1]).filter((id): id is string => id !== undefined),
  );
  for (const id of messageIds) {
    for (const c of analyze(db, id, withText).contributions) texts.set(c.sourceRef, c.text ?? '');
  }
  return texts;
}

function checkSnapshot(input: Collected, requested: string | undefined): void {
  if (requested !== undefined && requested !== input.snapshotId) {
    throw new AppError('gone', 'context_changed', 'The context changed since this report was made: run /debug again');
  }
}

type Collected = Omit<ReportInput, 'itemsLimit'> & { context: AttributionContext };

/** Everything the core needs, read in one consistent pass. */
function collect(db: Db, request: ReportRequest, options: ReportOptions): Collected {
  const workspace = getWorkspace(db, request.workspaceId);
  if (!workspace) throw notFound('workspace_not_found', `workspace not found: ${request.workspaceId}`);
  let sessionId: string | null;
  if (request.sessionId !== undefined) {
    if (!sessionExists(db, workspace.id, request.sessionId)) {
      throw notFound('session_not_found', `session not found in workspace ${workspace.id}: ${request.sessionId}`);
    }
    sessionId = request.sessionId;
  } else {
    sessionId = defaultSession(db, workspace.id);
  }

  const estimator = memoized(estimatorFor(request.estimator ?? 'bpe'));
  const root = resolveRoot(db, workspace.root_path);
  const snapshot = readWorkspace(root, options);
  const skillNames = snapshot.skills.map((s) => s.name);
  const context: AttributionContext = {
    estimator,
    root,
    instructionFiles: new Set(snapshot.instructions.map((i) => i.path)),
    skillNames,
  };
  const cache = options.cache ?? new ReportCache(Number.MAX_SAFE_INTEGER);
  const scope = `${estimator.id}\u0000${root}\u0000${skillNames.join('\u0001')}`;
  const digest = createHash('sha256').update(JSON.stringify([workspace.id, sessionId, snapshot.stamps]));

  const warnings: string[] = [];
  const messages: { id: string; analysis: MessageAnalysis }[] = [];
  let history = { messages: 0, bytes: 0 };
  let usage: UsageInput | null = null;

  // One read transaction: the report sees one consistent snapshot of the database.
  db.transaction(() => {
    if (sessionId === null) {
      warnings.push('this workspace has no sessions yet: only always-loaded content is shown');
      return;
    }
    usage = latestAcpUsage(db, workspace.id, sessionId, warnings);
    digest.update(JSON.stringify(usage));
    const entries: { id: string; entry: CachedMessage }[] = [];
    const stamps = messageStamps(db, workspace.id, sessionId);
    digest.update(stamps.map((s) => `${s.id}:${s.time_updated}`).join('\n'));
    for (const stamp of stamps) {
      let entry = cache.get(scope, stamp.id, stamp.time_updated);
      if (!entry) {
        const row = messageHeader(db, stamp.id);
        if (!row) continue;
        const info = parseJson(columnText(row.info, `messages_v2/${stamp.id}`, 'info', []));
        const compaction =
          row.maybe_compaction === 1 &&
          partsHaveCompaction(parseJson(columnText(messageParts(db, stamp.id), stamp.id, 'parts', [])));
        entry = {
          timeUpdated: stamp.time_updated,
          size: row.size,
          header: headerOf(stamp.id, info, compaction),
          infoValid: info !== undefined,
          analysis: null,
        };
        cache.set(scope, stamp.id, entry);
      }
      if (!entry.infoValid) warnings.push(`messages_v2/${stamp.id}: info is not valid JSON`);
      entries.push({ id: stamp.id, entry });
    }
    const start = liveStartIndex(entries.map((e) => e.entry.header));
    history = { messages: start, bytes: entries.slice(0, start).reduce((n, e) => n + e.entry.size, 0) };
    for (const { id, entry } of entries.slice(start)) {
      entry.analysis ??= analyze(db, id, context);
      messages.push({ id, analysis: entry.analysis });
    }
  })();

  return {
    workspaceId: workspace.id,
    sessionId,
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
    snapshotId: `snap_${digest.digest('hex').slice(0, 24)}`,
    estimator,
    workspace: snapshot,
    messages,
    history,
    usage,
    warnings,
    context,
  };
}

function analyze(db: Db, id: string, context: AttributionContext): MessageAnalysis {
  const row = messageById(db, id);
  const notes: string[] = [];
  const ref = `messages_v2/${id}`;
  const info = parseJson(columnText(row?.info, ref, 'info', notes));
  const parts = parseJson(columnText(row?.parts, ref, 'parts', notes));
  const analysis = analyzeMessage(id, info ?? {}, parts ?? null, context);
  if (parts === undefined)
    analysis.warnings.splice(0, analysis.warnings.length, `${ref}: parts is not valid JSON; skipped`);
  analysis.warnings.unshift(...notes);
  return analysis;
}

/** A JSON column as text: other writers may store a BLOB or a number where text belongs. */
function columnText(value: unknown, ref: string, column: string, warnings: string[]): string | null {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) {
    warnings.push(`${ref}: ${column} is stored as a BLOB; read as UTF-8`);
    return value.toString('utf8');
  }
  if (value !== null && value !== undefined)
    warnings.push(`${ref}: ${column} is stored as a ${typeof value}, not JSON text`);
  return null;
}

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `N` (1–10000) or `all`; undefined keeps the default. Shared by the API and the CLI. */
export function parseItemsOption(value: string | undefined): number | 'all' | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'all') return 'all';
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 10_000) {
    throw usageError(`items must be a number from 1 to 10000 or "all", not "${value}"`);
  }
  return Number(value);
}

export function parseEstimatorOption(value: string | undefined): EstimatorId | undefined {
  if (value === undefined || value === '') return undefined;
  if ((ESTIMATORS as readonly string[]).includes(value)) return value as EstimatorId;
  throw usageError(`estimator must be one of ${ESTIMATORS.join(', ')}, not "${value}"`);
}

/** A zero-based page number; undefined means the first page. */
export function parsePageOption(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,9}$/.test(value))
    throw new AppError('invalid', 'invalid_page', `page must be a whole number from 0, not "${value}"`);
  return Number(value);
}

export type { Contribution };
