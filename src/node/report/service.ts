/**
 * The read-only report service: the calls behind the API and the CLI. It resolves the
 * workspace and session, reads the folder and one consistent snapshot of the store (never
 * writing either), and hands plain data to the pure core: every message is analysed once
 * (memoised by id and time_updated), the session is calibrated call by call, the report built.
 * Item content and the reader reuse the same collection, so they describe what the report does.
 */
import { createHash } from 'node:crypto';
import { parsePart, parseInfo, type CompactionPart } from '../../shared/opencode/format';
import type { SourceId } from '../../shared/sources';
import {
  ITEM_PAGE_CHARS,
  type ContextReport,
  type EstimatorId,
  type ItemContent,
  type ReaderPage,
} from '../../shared/wire';
import { analyzeMessage, type AnalyzeOptions, type MessageAnalysis } from '../core/analyze';
import type { AttributionContext } from '../core/attribute';
import { buildReport, DEFAULT_ITEMS, RUNTIME_REF, type ReportInput } from '../core/build-report';
import type { Item } from '../core/calibrate';
import { pageText, previewText } from '../core/content-pages';
import { PageOutOfRange } from '../core/errors';
import { itemId, type UsageInput } from '../core/figures';
import { analysisPlan, reportInput, type MessageHeader, type SessionFacts } from '../core/pipeline';
import { workspaceContributions } from '../core/workspace-items';
import { AppError, notFound } from '../errors';
import { resolveSession } from '../sessions';
import { columnText } from '../storage/column-text';
import type { MessageRow, MessageStamp, ReadSnapshot, Store } from '../storage/store';
import { latestAcpUsage } from '../usage';
import { familyRules } from '../core/providers';
import { bpeEstimatorFor, chars4Estimator, estimatorFor, memoized, type Estimator } from './estimator';
import { readWorkspace, WorkspaceReader, type ReadOptions } from './read-workspace';
import { claimTokenPool, PARALLEL_MIN_CHARS, type TokenPool } from './token-pool';
import { ReportCache, stampOf, type CachedMessage } from './report-cache';

export interface ReportRequest {
  workspaceId: string;
  sessionId?: string | undefined;
  estimator?: EstimatorId | undefined;
  items?: number | 'all' | undefined;
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
}

export const READER_BLOCKS_PER_PAGE = 200;
const READER_PREVIEW_CHARS = 600;

const RUNTIME_TEXT =
  "OpenCode's own system prompt, environment block and tool schemas. The server never sees this text: its size is what the provider counted for the first model call beyond everything the server can see, re-measured when a later call showed it changed.";

interface Collected {
  input: Omit<ReportInput, 'itemsLimit'>;
  attribution: AttributionContext;
  facts: SessionFacts;
  /** The stamp of every message the report read: item text is served only from the same state. */
  stamps: ReadonlyMap<string, string>;
}

/** The report, item pages and reader pages of one store, read-only. */
export class ReportService {
  private readonly cache: ReportCache;

  constructor(
    private readonly store: Store,
    private readonly options: ServiceOptions = {},
  ) {
    this.cache = options.cache ?? new ReportCache(Number.MAX_SAFE_INTEGER);
  }

  private now(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  async report(request: ReportRequest): Promise<ContextReport> {
    const { input } = await this.collect(request);
    return buildReport({ ...input, itemsLimit: request.items ?? DEFAULT_ITEMS });
  }

  /** One page of an item's text as the model sees it. */
  async itemContent(request: ContentRequest & { itemId: string }): Promise<ItemContent> {
    const collected = await this.collect(request);
    checkSnapshot(collected, request.snapshotId);
    const found = blocks(collected).find((b) => itemId(b.item.sourceRef) === request.itemId);
    if (!found) throw notFound('item_not_found', `no item ${request.itemId} in this context`);
    const text = (await this.texts(collected, [found.item])).get(found.item.key) ?? '';
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
  async readerPage(request: ContentRequest): Promise<ReaderPage> {
    const collected = await this.collect(request);
    checkSnapshot(collected, request.snapshotId);
    const all = blocks(collected);
    const pageCount = Math.max(1, Math.ceil(all.length / READER_BLOCKS_PER_PAGE));
    const page = request.page ?? 0;
    if (!Number.isInteger(page) || page < 0 || page >= pageCount) {
      throw new AppError('invalid', 'page_out_of_range', new PageOutOfRange(page, pageCount, 'the reader').message);
    }
    const start = page * READER_BLOCKS_PER_PAGE;
    const slice = all.slice(start, start + READER_BLOCKS_PER_PAGE);
    // Each block with its figure in the report: one number per item, whatever the view.
    const report = buildReport({ ...collected.input, itemsLimit: 'all' });
    const figures = new Map(report.sources.flatMap((s) => s.items.map((i) => [i.id, i.scaledTokens] as const)));
    const texts = await this.texts(
      collected,
      slice.map((b) => b.item),
    );
    return {
      snapshotId: collected.input.snapshotId,
      page,
      pageCount,
      blockCount: all.length,
      blocks: slice.map((b, i) => ({
        itemId: itemId(b.item.sourceRef),
        order: start + i,
        source: b.source,
        label: b.item.label,
        estimatedTokens: b.item.tokens,
        tokens: figures.get(itemId(b.item.sourceRef)) ?? null,
        bytes: b.item.bytes,
        ...previewText({ source: b.source, text: texts.get(b.item.key) ?? '' }, READER_PREVIEW_CHARS),
      })),
    };
  }

  /**
   * The texts behind some items. The report keeps no text, so only the messages these items
   * come from are read and analysed again, texts kept: a page costs a few messages.
   */
  private async texts(collected: Collected, items: readonly Item[]): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    const wanted = new Set(items.map((i) => i.key));
    if (wanted.has(RUNTIME_REF)) texts.set(RUNTIME_REF, RUNTIME_TEXT);
    if (items.some((i) => i.sourceRef.startsWith('file:'))) {
      for (const c of workspaceContributions(collected.input.workspace)) texts.set(c.key, c.texts.join('\n'));
    }
    const ids = [...new Set(items.flatMap((i) => /^messages_v2\/(.+?)\/parts\//.exec(i.sourceRef)?.[1] ?? []))];
    if (ids.length === 0) return texts;
    // The rows and their stamps in one snapshot: text is served only from the state the report
    // described (a message changed since is 410, like a changed report).
    const { workspaceId, sessionId } = collected.input;
    const current = await this.store.snapshot(async (read) => ({
      rows: await read.messages(ids),
      stamps: sessionId === null ? [] : await read.messageStamps(workspaceId, sessionId),
    }));
    const now = new Map(current.stamps.map((s) => [s.id, stampOf(s)]));
    if (ids.some((id) => now.get(id) !== collected.stamps.get(id))) throw contextChanged();
    for (const row of current.rows) {
      const analysis = analyzeRow(row, {
        attribution: collected.attribution,
        estimator: chars4Estimator,
        targetModel: collected.facts.targetModel,
        family: familyRules(collected.facts.family),
        keepText: true,
      });
      analysis.items.forEach((item, k) => {
        if (wanted.has(item.key)) texts.set(item.key, analysis.texts![k]!.join('\n'));
      });
    }
    return texts;
  }

  /**
   * Everything the core needs. What is read comes from one consistent snapshot of the store;
   * the analysis — seconds of tokenizing for a large cold session — runs after it commits, so
   * it never holds a read transaction (or, on SQLite, the connection's queue) open.
   */
  private async collect(request: ReportRequest): Promise<Collected> {
    const read = await this.read(request);
    if (read.kind === 'unchanged')
      return { ...read.collected, input: { ...read.collected.input, generatedAt: this.now() } };
    const { cache } = this;
    const {
      workspace,
      sessionId,
      snapshot,
      attribution,
      headers,
      rows,
      wants,
      plan,
      scope,
      usage,
      warnings,
      estimator,
    } = read;
    const { facts } = plan;
    const family = familyRules(facts.family);
    // Much live text to tokenize: threads count it while this one attributes.
    const fresh = wants.flatMap((want, index) => (!want.cached && want.chosen === estimator ? [index] : []));
    const freshBytes = fresh.reduce((n, i) => n + headers[i]!.size, 0);
    const pool =
      estimator.id === 'bpe' && freshBytes >= (this.options.parallelMinChars ?? PARALLEL_MIN_CHARS)
        ? claimTokenPool(estimator.encoding, estimator.multiplier)
        : null;
    try {
      const context = { ...attribution, sessionRoots: facts.sessionRoots };
      // Each message is analysed once; its row is let go at once (a large session's rows are
      // most of the report's memory).
      const analyzeAt = (index: number, chosen: Estimator, keepText = false) => {
        const id = headers[index]!.id;
        const row = rows.get(id) ?? missingRow(id);
        rows.delete(id);
        return analyzeRow(row, {
          attribution: context,
          estimator: chosen,
          targetModel: facts.targetModel,
          family,
          rough: wants[index]!.rough,
          keepText,
        });
      };
      const precounted = new Map<number, MessageAnalysis>(); // analysed ahead, while threads count
      let pipelineEstimator: Estimator = estimator;
      if (pool) {
        const counted = countOnThreads(
          pool,
          estimator,
          fresh,
          (index) => analyzeAt(index, uncounted(estimator), true),
          workspaceContributions(snapshot).flatMap((c) => c.texts),
        );
        counted.analyses.forEach((analysis, index) => precounted.set(index, analysis));
        // While the threads count: the history, with the cheap estimator.
        wants.forEach((want, index) => {
          if (!want.cached && !precounted.has(index)) precounted.set(index, analyzeAt(index, want.chosen));
        });
        pipelineEstimator = precountedEstimator(estimator, await counted.counts);
      }

      const input = reportInput({
        workspaceId: workspace.id,
        sessionId,
        generatedAt: this.now(),
        snapshotId: `snap_${read.digest.slice(0, 24)}`,
        estimator: pipelineEstimator,
        historyEstimator: chars4Estimator,
        workspace: snapshot,
        headers,
        plan,
        usage,
        warnings: [...warnings, ...headers.flatMap((h) => h.warnings)],
        analyze: (index) => {
          const want = wants[index]!;
          if (want.cached) return want.cached;
          const header = headers[index]!;
          const analysis = precounted.get(index) ?? analyzeAt(index, want.chosen);
          cache.set(scope, header.id, { ...headerEntry(header), analysis });
          return analysis;
        },
      });
      const collected: Collected = {
        input,
        attribution: context,
        facts,
        stamps: new Map(headers.map((h) => [h.id, h.stamp])),
      };
      cache.remember(`${request.estimator ?? 'bpe'}\u0000${read.digest}`, collected);
      return collected;
    } finally {
      await pool?.close();
    }
  }

  /** The reads of a report, in one snapshot: the session, its rows, its usage, the workspace files. */
  private async read(request: ReportRequest) {
    const { cache, store } = this;
    const asked = request.estimator ?? 'bpe';
    return store.snapshot(async (read) => {
      const workspace = await read.getWorkspace(request.workspaceId);
      if (!workspace) throw notFound('workspace_not_found', `workspace not found: ${request.workspaceId}`);
      const sessionId = await this.session(read, workspace.id, request.sessionId);
      const root = store.resolveRoot(workspace.root_path);
      const reader = new WorkspaceReader(root, this.options);
      const snapshot = readWorkspace(reader);
      const attribution: AttributionContext = {
        root,
        instructionFiles: new Set(snapshot.instructions.map((i) => i.path)),
        fileSize: memo((path) => reader.size(path)),
        skillNames: snapshot.skills.map((s) => s.name),
        hash: (text) => createHash('sha1').update(text).digest('base64'),
      };
      const digest = createHash('sha256').update(JSON.stringify([workspace.id, sessionId, snapshot.stamps]));
      const warnings: string[] = [];
      let usage: UsageInput | null = null;
      let headers: (MessageHeader & { stamp: string; warnings: string[] })[] = [];
      const rows = new Map<string, MessageRow>();
      if (sessionId === null) warnings.push('this workspace has no sessions yet: only always-loaded content is shown');
      else {
        usage = await latestAcpUsage(read, workspace.id, sessionId, warnings);
        digest.update(JSON.stringify(usage));
        const stamps = await read.messageStamps(workspace.id, sessionId);
        digest.update(stamps.map((s) => `${s.id}:${stampOf(s)}`).join('\n'));
        // Nothing changed since a report of this process: its whole input stands.
        const seen = cache.collected<Collected>(`${asked}\u0000${digest.copy().digest('hex')}`);
        if (seen) return { kind: 'unchanged' as const, collected: seen };
        headers = await this.headers(read, root, stamps, rows);
      }

      // Which messages need analysing, and with which estimator — the tokenizer of the model
      // family the session talks to — their rows are read here.
      const plan = analysisPlan(headers);
      const estimator = memoized(asked === 'bpe' ? bpeEstimatorFor(plan.facts.family) : estimatorFor(asked));
      const scope = [
        estimator.key,
        root,
        attribution.skillNames!.join('\u0001'),
        plan.facts.targetModel ?? '',
        plan.facts.sessionRoots.join('\u0001'),
      ].join('\u0000');
      const wants = headers.map((h, index) => {
        const good = plan.good[index]!;
        const chosen: Estimator = good ? estimator : chars4Estimator;
        const cached = cache.get(scope, h.id, h.stamp)?.analysis;
        // A message analysed live keeps its better estimate when it later becomes history.
        const usable =
          cached && (cached.estimator === chosen.key || cached.estimator === estimator.key) ? cached : null;
        return { chosen, rough: !good, cached: usable };
      });
      const missing = headers.filter((h, i) => !wants[i]!.cached && !rows.has(h.id)).map((h) => h.id);
      for (const row of await read.messages(missing)) rows.set(row.id, row);
      return {
        kind: 'read' as const,
        workspace,
        sessionId,
        snapshot,
        attribution,
        headers,
        rows,
        wants,
        plan,
        scope,
        usage,
        warnings,
        estimator,
        digest: digest.digest('hex'),
      };
    });
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

  /**
   * Headers of every message: from the memo where the stamp is unchanged, else from the row
   * itself, read whole — a message whose header is not known needs analysing anyway, so its row
   * is kept for that (`rows`) and never read twice.
   */
  private async headers(
    read: ReadSnapshot,
    root: string,
    stamps: readonly MessageStamp[],
    rows: Map<string, MessageRow>,
  ) {
    const scope = `headers\u0000${root}`;
    const entries = new Map<string, CachedMessage>();
    const unknown: string[] = [];
    for (const stamp of stamps) {
      const entry = this.cache.get(scope, stamp.id, stampOf(stamp));
      if (entry) entries.set(stamp.id, entry);
      else unknown.push(stamp.id);
    }
    const stampById = new Map(stamps.map((s) => [s.id, stampOf(s)]));
    for (const row of await read.messages(unknown)) {
      rows.set(row.id, row);
      const entry = headerFromRow(row, stampById.get(row.id)!);
      this.cache.set(scope, row.id, entry);
      entries.set(row.id, entry);
    }
    return stamps.flatMap((stamp) => {
      const entry = entries.get(stamp.id);
      if (!entry) return [];
      return [
        {
          id: stamp.id,
          info: entry.info,
          compaction: entry.compaction,
          size: entry.size,
          stamp: entry.stamp,
          warnings: entry.infoWarnings,
        },
      ];
    });
  }
}

const headerEntry = (h: MessageHeader & { stamp: string }): Omit<CachedMessage, 'analysis'> => ({
  stamp: h.stamp,
  size: h.size,
  info: h.info,
  compaction: h.compaction,
  infoWarnings: [],
});

function headerFromRow(row: MessageRow, stamp: string): CachedMessage {
  const infoWarnings: string[] = [];
  const ref = `messages_v2/${row.id}`;
  const infoText = columnTextOf(row.info, ref, 'info', infoWarnings);
  const infoJson = parseJson(infoText);
  if (infoJson === undefined && infoWarnings.length === 0) infoWarnings.push(`${ref}: info is not valid JSON`);
  const info = parseInfo(infoJson ?? {}, () => {});
  let compaction: CompactionPart | null = null;
  const partsText = columnTextOf(row.parts, ref, 'parts', []);
  if (partsText?.includes('"compaction"')) {
    const parts = parseJson(partsText);
    if (Array.isArray(parts)) {
      for (const raw of parts) {
        const part = parsePart(raw, () => {});
        if (part?.type === 'compaction') compaction = part;
      }
    }
  }
  const size = storedBytes(row.info) + storedBytes(row.parts);
  return { stamp, size, info, compaction, infoWarnings, analysis: null };
}

/** Bytes a column holds as stored (UTF-8 text, or a BLOB's length). */
const storedBytes = (value: unknown): number =>
  typeof value === 'string' ? Buffer.byteLength(value) : value instanceof Uint8Array ? value.length : 0;

const missingRow = (id: string): MessageRow => ({
  id,
  workspace_id: '',
  session_id: '',
  time_created: 0,
  time_updated: 0,
  info: null,
  parts: null,
});

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

function withRange<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof PageOutOfRange) throw new AppError('invalid', error.code, error.message);
    throw error;
  }
}

const contextChanged = () =>
  new AppError('gone', 'context_changed', 'The context changed since this report was made: run /debug again');

function checkSnapshot(collected: Collected, requested: string | undefined): void {
  if (requested !== undefined && requested !== collected.input.snapshotId) throw contextChanged();
}

/** A function of a path, asked once per path per report (tool calls name the same files again and again). */
function memo<T>(work: (path: string) => T): (path: string) => T {
  const seen = new Map<string, T>();
  return (path) => {
    if (!seen.has(path)) seen.set(path, work(path));
    return seen.get(path)!;
  };
}

/** The estimator's identity without its work: texts are kept and counted elsewhere. */
const uncounted = (estimator: Estimator): Estimator => ({ ...estimator, count: () => 0 });

/** Counts looked up first (texts counted on the threads), the estimator for anything else. */
function precountedEstimator(estimator: Estimator, counts: ReadonlyMap<string, number>): Estimator {
  return { ...estimator, count: (text) => counts.get(text) ?? estimator.count(text) };
}

/**
 * Analyses messages with their texts kept, has a pool of threads count every distinct text
 * (and `extra` ones) while the analysis goes on, and fills each item's tokens from the counts.
 */
function countOnThreads(
  pool: TokenPool,
  estimator: Estimator,
  indexes: readonly number[],
  analyze: (index: number) => MessageAnalysis,
  extra: readonly string[],
): { analyses: Map<number, MessageAnalysis>; counts: Promise<Map<string, number>> } {
  const pending = new Map<string, Promise<number>>();
  // A thread that fails costs time, never the report: its texts are counted here instead.
  const ask = (text: string) => {
    let found = pending.get(text);
    if (!found) pending.set(text, (found = pool.count(text).catch(() => estimator.count(text))));
    return found;
  };
  for (const text of extra) void ask(text);
  const analyses = new Map<number, MessageAnalysis>();
  const filled: Promise<void>[] = [];
  for (const index of indexes) {
    const analysis = analyze(index);
    const texts = analysis.texts!;
    delete analysis.texts;
    analyses.set(index, analysis);
    analysis.items.forEach((item, k) => {
      filled.push(
        Promise.all(texts[k]!.map(ask)).then((counts) => {
          item.tokens = counts.reduce((a, b) => a + b, 0) + (item.vision ?? 0);
          if (item.producedTexts) item.produced = counts.slice(0, item.producedTexts).reduce((a, b) => a + b, 0);
        }),
      );
    });
  }
  pool.flush();
  const counts = Promise.all(filled).then(async () => {
    const found = new Map<string, number>();
    for (const [text, count] of pending) found.set(text, await count);
    return found;
  });
  return { analyses, counts };
}

function analyzeRow(row: MessageRow, options: AnalyzeOptions): MessageAnalysis {
  const notes: string[] = [];
  const ref = `messages_v2/${row.id}`;
  const info = parseJson(columnTextOf(row.info, ref, 'info', notes));
  const parts = parseJson(columnTextOf(row.parts, ref, 'parts', notes));
  const analysis = analyzeMessage(row.id, info ?? {}, parts ?? null, options);
  if (parts === undefined) {
    analysis.warnings.splice(0, analysis.warnings.length, `${ref}: parts is not valid JSON; skipped`);
  }
  analysis.warnings.unshift(...notes);
  return analysis;
}

/** A JSON column as text, with a warning naming the message when it is stored oddly. */
function columnTextOf(value: unknown, ref: string, column: string, warnings: string[]): string | null {
  const { text, odd } = columnText(value);
  if (odd) warnings.push(`${ref}: ${column} ${odd}`);
  return text;
}

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
