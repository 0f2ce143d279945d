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
  iterateMessageHeaders,
  iterateMessagesFrom,
  listSessions,
  messageParts,
  resolveRoot,
  sessionExists,
  type Db,
} from '../storage/store';
import { analyzeMessage, type MessageAnalysis } from './attribute';
import { buildReport, DEFAULT_ITEMS, type UsageInput } from './build-report';
import { headerOf, liveStartIndex, partsHaveCompaction, type MessageHeader } from './compaction';
import { estimatorFor } from './estimator';
import { readWorkspace, type ReadOptions } from './read-workspace';

export interface ReportRequest {
  workspaceId: string;
  sessionId?: string | undefined;
  estimator?: EstimatorId | undefined;
  items?: number | 'all' | undefined;
}

export interface ReportOptions extends ReadOptions {
  now?: () => Date;
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

  // One read transaction: the report sees one consistent snapshot of the database.
  db.transaction(() => {
    if (sessionId === null) {
      warnings.push('this workspace has no sessions yet: only always-loaded content is shown');
      return;
    }
    usage = latestAcpUsage(db, workspace.id, sessionId, warnings);
    const headers: (MessageHeader & { size: number })[] = [];
    for (const row of iterateMessageHeaders(db, workspace.id, sessionId)) {
      const info = parseJson(row.info);
      if (info === undefined) warnings.push(`messages_v2/${row.id}: info is not valid JSON`);
      const compaction = row.maybe_compaction === 1 && partsHaveCompaction(parseJson(messageParts(db, row.id) ?? ''));
      headers.push({ ...headerOf(row.id, info, compaction), size: row.size });
    }
    const start = liveStartIndex(headers);
    history = { messages: start, bytes: headers.slice(0, start).reduce((n, h) => n + h.size, 0) };
    const first = headers[start];
    if (!first) return;
    const context = { estimator, root, instructionFiles: new Set<string>() };
    for (const row of iterateMessagesFrom(db, workspace.id, sessionId, first.id)) {
      const info = parseJson(row.info);
      const parts = parseJson(row.parts);
      const analysis = analyzeMessage(row.id, info ?? {}, parts ?? null, context);
      if (parts === undefined) {
        analysis.warnings.splice(0, analysis.warnings.length, `messages_v2/${row.id}: parts is not valid JSON; skipped`);
      }
      messages.push({ id: row.id, analysis });
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

function parseJson(text: string): unknown {
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
