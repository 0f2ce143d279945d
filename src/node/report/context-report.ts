/**
 * The read-only report service: the one call behind the API and the CLI. It resolves the
 * workspace and session, reads the folder and the database (never writing either), and hands
 * plain data to the pure core.
 */
import { ESTIMATORS, type ContextReport, type EstimatorId } from '../../shared/wire';
import { notFound, usageError } from '../errors';
import { latestAcpUsage } from '../usage';
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
import { analyzeMessage, type AttributionContext, type MessageAnalysis } from './attribute';
import { buildReport, DEFAULT_ITEMS, type UsageInput } from './build-report';
import { headerOf, liveStartIndex, partsHaveCompaction } from './compaction';
import { estimatorFor } from './estimator';
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

  const estimator = estimatorFor(request.estimator ?? 'bpe');
  const root = resolveRoot(db, workspace.root_path);
  const warnings: string[] = [];
  const messages: { id: string; analysis: MessageAnalysis }[] = [];
  let history = { messages: 0, bytes: 0 };
  let usage: UsageInput | null = null;

  const cache = options.cache ?? new ReportCache(Number.MAX_SAFE_INTEGER);
  const scope = `${estimator.id}\u0000${root}`;

  // One read transaction: the report sees one consistent snapshot of the database.
  db.transaction(() => {
    if (sessionId === null) {
      warnings.push('this workspace has no sessions yet: only always-loaded content is shown');
      return;
    }
    usage = latestAcpUsage(db, workspace.id, sessionId, warnings);
    const entries: { id: string; entry: CachedMessage }[] = [];
    for (const stamp of messageStamps(db, workspace.id, sessionId)) {
      let entry = cache.get(scope, stamp.id, stamp.time_updated);
      if (!entry) {
        const row = messageHeader(db, stamp.id);
        if (!row) continue; // deleted between the two reads: not possible inside the transaction
        const info = parseJson(columnText(row.info, `messages_v2/${stamp.id}`, 'info', []));
        const compaction =
          row.maybe_compaction === 1 && partsHaveCompaction(parseJson(columnText(messageParts(db, stamp.id), stamp.id, 'parts', [])));
        entry = { timeUpdated: stamp.time_updated, size: row.size, header: headerOf(stamp.id, info, compaction), infoValid: info !== undefined, analysis: null };
        cache.set(scope, stamp.id, entry);
      }
      if (!entry.infoValid) warnings.push(`messages_v2/${stamp.id}: info is not valid JSON`);
      entries.push({ id: stamp.id, entry });
    }
    const start = liveStartIndex(entries.map((e) => e.entry.header));
    history = { messages: start, bytes: entries.slice(0, start).reduce((n, e) => n + e.entry.size, 0) };
    const context = { estimator, root, instructionFiles: new Set<string>() };
    for (const { id, entry } of entries.slice(start)) {
      entry.analysis ??= analyze(db, id, context);
      messages.push({ id, analysis: entry.analysis });
    }
  })();

  const snapshot = readWorkspace(root, options);
  return buildReport({
    workspaceId: workspace.id,
    sessionId,
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
    estimator,
    workspace: snapshot,
    messages,
    history,
    usage,
    warnings,
    itemsLimit: request.items ?? DEFAULT_ITEMS,
  });
}

function analyze(db: Db, id: string, context: AttributionContext): MessageAnalysis {
  const row = messageById(db, id);
  const notes: string[] = [];
  const ref = `messages_v2/${id}`;
  const info = parseJson(columnText(row?.info, ref, 'info', notes));
  const parts = parseJson(columnText(row?.parts, ref, 'parts', notes));
  const analysis = analyzeMessage(id, info ?? {}, parts ?? null, context);
  if (parts === undefined) analysis.warnings.splice(0, analysis.warnings.length, `${ref}: parts is not valid JSON; skipped`);
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
  if (value !== null && value !== undefined) warnings.push(`${ref}: ${column} is stored as a ${typeof value}, not JSON text`);
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
