/**
 * The read-only report service: the calls behind the API and the CLI. It resolves the
 * workspace and session, reads the folder and the database (never writing either), and hands
 * plain data to the pure core: every message is analysed once (cached by id and time_updated),
 * the session is calibrated call by call, and the report is built. Item content and the reader
 * reuse the same collection step, so they describe exactly what the report describes.
 */
import { createHash } from 'node:crypto';
import { parsePart, type CompactionPart, parseInfo } from '../../shared/opencode/format';
import {
  ESTIMATORS,
  ITEM_PAGE_CHARS,
  type ContextReport,
  type EstimatorId,
  type ItemContent,
  type ReaderPage,
  type SourceId,
} from '../../shared/wire';
import { analyzeMessage, type MessageAnalysis } from '../core/analyze';
import type { AttributionContext } from '../core/attribute';
import { buildReport, DEFAULT_ITEMS, RUNTIME_REF, type ReportInput } from '../core/build-report';
import type { Item } from '../core/calibrate';
import { pageText, previewText } from '../core/content-pages';
import { PageOutOfRange } from '../core/errors';
import { itemId, type UsageInput } from '../core/figures';
import { reportInput, type MessageHeader, type SessionFacts } from '../core/pipeline';
import { workspaceContributions } from '../core/workspace-items';
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
import { chars4Estimator, estimatorFor, memoized } from './estimator';
import { readWorkspace, WorkspaceReader, type ReadOptions } from './read-workspace';
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
  const { input } = collect(db, request, options);
  return buildReport({ ...input, itemsLimit: request.items ?? DEFAULT_ITEMS });
}

export const READER_BLOCKS_PER_PAGE = 200;
const READER_PREVIEW_CHARS = 600;

export interface ContentRequest extends ReportRequest {
  /** The report's snapshotId; when given and no longer current, the answer is 410. */
  snapshotId?: string | undefined;
  page?: number | undefined;
}

const RUNTIME_TEXT =
  "OpenCode's own system prompt, environment block and tool schemas. The server never sees this text: its size is what the provider counted for the first model call beyond everything the server can see, re-measured when a later call showed it changed.";

interface Block {
  item: Item;
  source: SourceId;
}

/** The items in request order: the runtime's own prompt first when it was measured. */
function blocks(collected: Collected): Block[] {
  const { calibration } = collected.input;
  const out: Block[] = [];
  if (calibration.mode === 'measured') {
    out.push({
      item: {
        key: RUNTIME_REF,
        source: 'agent_instructions',
        label: 'OpenCode system prompt and tool schemas, measured',
        sourceRef: RUNTIME_REF,
        tokens: calibration.runtimeOverhead ?? 0,
        bytes: 0,
      },
      source: 'agent_instructions',
    });
  }
  for (const item of calibration.view) out.push({ item, source: item.source });
  return out;
}

/** One page of an item's text as the model sees it. */
export function itemContent(
  db: Db,
  request: ContentRequest & { itemId: string },
  options: ReportOptions = {},
): ItemContent {
  const collected = collect(db, request, options);
  checkSnapshot(collected, request.snapshotId);
  const found = blocks(collected).find((b) => itemId(b.item.sourceRef) === request.itemId);
  if (!found) throw notFound('item_not_found', `no item ${request.itemId} in this context`);
  const text = textsOf(db, collected, [found.item]).get(found.item.key) ?? '';
  const paged = withRange(() => pageText({ source: found.source, text }, request.page ?? 0));
  return {
    snapshotId: collected.input.snapshotId,
    itemId: request.itemId,
    label: found.item.label,
    source: found.source,
    sourceRef: found.item.sourceRef,
    pageSize: ITEM_PAGE_CHARS,
    ...paged,
  };
}

/** The live context in request order, a page of blocks at a time, each with a bounded preview. */
export function readerPage(db: Db, request: ContentRequest, options: ReportOptions = {}): ReaderPage {
  const collected = collect(db, request, options);
  checkSnapshot(collected, request.snapshotId);
  const all = blocks(collected);
  const pageCount = Math.max(1, Math.ceil(all.length / READER_BLOCKS_PER_PAGE));
  const page = request.page ?? 0;
  if (!Number.isInteger(page) || page < 0 || page >= pageCount) {
    throw new AppError('invalid', 'page_out_of_range', new PageOutOfRange(page, pageCount, 'the reader').message);
  }
  const start = page * READER_BLOCKS_PER_PAGE;
  const slice = all.slice(start, start + READER_BLOCKS_PER_PAGE);
  const texts = textsOf(
    db,
    collected,
    slice.map((b) => b.item),
  );
  return {
    snapshotId: collected.input.snapshotId,
    page,
    pageCount,
    blockCount: all.length,
    blocks: slice.map((b, i) => {
      const preview = previewText({ source: b.source, text: texts.get(b.item.key) ?? '' }, READER_PREVIEW_CHARS);
      return {
        itemId: itemId(b.item.sourceRef),
        order: start + i,
        source: b.source,
        label: b.item.label,
        estimatedTokens: b.item.tokens,
        bytes: b.item.bytes,
        ...preview,
      };
    }),
  };
}

function withRange<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof PageOutOfRange) throw new AppError('invalid', error.code, error.message);
    throw error;
  }
}

/**
 * The texts behind some items. The report keeps no text, so only the messages these items come
 * from are read and analysed again, with texts kept: a page costs a few messages, not the session.
 */
function textsOf(db: Db, collected: Collected, items: readonly Item[]): Map<string, string> {
  const texts = new Map<string, string>();
  const wanted = new Set(items.map((i) => i.key));
  if (wanted.has(RUNTIME_REF)) texts.set(RUNTIME_REF, RUNTIME_TEXT);
  if (items.some((i) => i.sourceRef.startsWith('file:'))) {
    for (const c of workspaceContributions(collected.input.workspace)) texts.set(c.key, c.texts.join('\n'));
  }
  const messageIds = new Set(
    items
      .map((i) => /^messages_v2\/(.+?)\/parts\//.exec(i.sourceRef)?.[1])
      .filter((id): id is string => id !== undefined),
  );
  for (const id of messageIds) {
    const row = messageById(db, id);
    if (!row) continue;
    const analysis = analyzeMessage(
      id,
      parseJson(columnText(row.info, id, 'info', [])),
      parseJson(columnText(row.parts, id, 'parts', [])),
      {
        attribution: collected.attribution,
        estimator: chars4Estimator,
        targetModel: collected.facts.targetModel,
        keepText: true,
      },
    );
    analysis.items.forEach((item, k) => {
      if (wanted.has(item.key)) texts.set(item.key, analysis.texts![k]!.join('\n'));
    });
  }
  return texts;
}

function checkSnapshot(collected: Collected, requested: string | undefined): void {
  if (requested !== undefined && requested !== collected.input.snapshotId) {
    throw new AppError('gone', 'context_changed', 'The context changed since this report was made: run /debug again');
  }
}

interface Collected {
  input: Omit<ReportInput, 'itemsLimit'>;
  attribution: AttributionContext;
  facts: SessionFacts;
}

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
  const reader = new WorkspaceReader(root, options);
  const snapshot = readWorkspace(reader);
  const attribution: AttributionContext = {
    root,
    instructionFiles: new Set(snapshot.instructions.map((i) => i.path)),
    fileSize: (path) => reader.size(path),
    skillNames: snapshot.skills.map((s) => s.name),
  };
  const cache = options.cache ?? new ReportCache(Number.MAX_SAFE_INTEGER);
  const digest = createHash('sha256').update(JSON.stringify([workspace.id, sessionId, snapshot.stamps]));
  const warnings: string[] = [];
  let facts: SessionFacts = { targetModel: undefined, sessionRoots: [] };
  // What every analysis depends on besides the message: the same for the whole session.
  let scope: string | undefined;
  let input!: Omit<ReportInput, 'itemsLimit'>;

  // One read transaction: the report sees one consistent snapshot of the database.
  db.transaction(() => {
    let usage: UsageInput | null = null;
    let headers: (MessageHeader & { timeUpdated: number })[] = [];
    if (sessionId === null) warnings.push('this workspace has no sessions yet: only always-loaded content is shown');
    else {
      usage = latestAcpUsage(db, workspace.id, sessionId, warnings);
      digest.update(JSON.stringify(usage));
      const stamps = messageStamps(db, workspace.id, sessionId);
      digest.update(stamps.map((s) => `${s.id}:${s.time_updated}`).join('\n'));
      const headerScope = `headers\u0000${root}`;
      headers = stamps.map((stamp) => {
        let entry = cache.get(headerScope, stamp.id, stamp.time_updated);
        if (!entry) {
          entry = readHeader(db, stamp.id, stamp.time_updated);
          cache.set(headerScope, stamp.id, entry);
        }
        warnings.push(...entry.infoWarnings);
        return {
          id: stamp.id,
          info: entry.info,
          compaction: entry.compaction,
          size: entry.size,
          timeUpdated: stamp.time_updated,
        };
      });
    }
    input = reportInput({
      workspaceId: workspace.id,
      sessionId,
      generatedAt: (options.now?.() ?? new Date()).toISOString(),
      snapshotId: '',
      estimator,
      historyEstimator: chars4Estimator,
      workspace: snapshot,
      headers,
      usage,
      warnings,
      analyze: (index, wanted, sessionFacts) => {
        if (scope === undefined) {
          facts = { targetModel: sessionFacts.targetModel, sessionRoots: sessionFacts.sessionRoots };
          scope = [
            estimator.id,
            root,
            attribution.skillNames!.join('\u0001'),
            facts.targetModel ?? '',
            facts.sessionRoots.join('\u0001'),
          ].join('\u0000');
        }
        const header = headers[index]!;
        const cached = cache.get(scope, header.id, header.timeUpdated)?.analysis;
        // A message analysed live keeps its better estimate when it later becomes history.
        if (cached && (cached.estimator === wanted.id || cached.estimator === estimator.id)) return cached;
        const analysis = analyzeRow(db, header.id, {
          attribution: { ...attribution, sessionRoots: facts.sessionRoots },
          estimator: wanted,
          targetModel: facts.targetModel,
          rough: sessionFacts.rough && wanted.id !== estimator.id,
        });
        cache.set(scope, header.id, { ...readHeaderShape(header), analysis });
        return analysis;
      },
    });
  })();
  input.snapshotId = `snap_${digest.digest('hex').slice(0, 24)}`;
  return { input, attribution: { ...attribution, sessionRoots: facts.sessionRoots }, facts };
}

const readHeaderShape = (h: MessageHeader & { timeUpdated: number }): Omit<CachedMessage, 'analysis'> => ({
  timeUpdated: h.timeUpdated,
  size: h.size,
  info: h.info,
  compaction: h.compaction,
  infoWarnings: [],
});

/** A message's info and compaction marker: enough to find the live context. */
function readHeader(db: Db, id: string, timeUpdated: number): CachedMessage {
  const row = messageHeader(db, id);
  const infoWarnings: string[] = [];
  const ref = `messages_v2/${id}`;
  const infoJson = parseJson(columnText(row?.info, ref, 'info', infoWarnings));
  if (row && infoJson === undefined && infoWarnings.length === 0) infoWarnings.push(`${ref}: info is not valid JSON`);
  const info = parseInfo(infoJson ?? {}, () => {});
  let compaction: CompactionPart | null = null;
  if (row?.maybe_compaction === 1) {
    const parts = parseJson(columnText(messageParts(db, id), ref, 'parts', []));
    if (Array.isArray(parts)) {
      for (const raw of parts) {
        const part = parsePart(raw, () => {});
        if (part?.type === 'compaction') compaction = part;
      }
    }
  }
  return { timeUpdated, size: row?.size ?? 0, info, compaction, infoWarnings, analysis: null };
}

function analyzeRow(db: Db, id: string, options: Parameters<typeof analyzeMessage>[3]): MessageAnalysis {
  const row = messageById(db, id);
  const notes: string[] = [];
  const ref = `messages_v2/${id}`;
  const info = parseJson(columnText(row?.info, ref, 'info', notes));
  const partsText = columnText(row?.parts, ref, 'parts', notes);
  const parts = parseJson(partsText);
  const analysis = analyzeMessage(id, info ?? {}, parts ?? null, options);
  if (parts === undefined) {
    analysis.warnings.splice(0, analysis.warnings.length, `${ref}: parts is not valid JSON; skipped`);
  }
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
