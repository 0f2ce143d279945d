/**
 * The read-only report service: the one call behind the API and the CLI. It resolves the
 * workspace and session, reads the folder and the database (never writing either), and hands
 * plain data to the pure core.
 */
import type { ContextReport, EstimatorId } from '../../shared/wire';
import { notFound } from '../errors';
import {
  acpUsageNewestFirst,
  getWorkspace,
  iterateMessageHeaders,
  iterateMessagesFrom,
  listSessions,
  messageParts,
  resolveRoot,
  sessionExists,
  type Db,
  type UsageRow,
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
    usage = latestUsage(acpUsageNewestFirst(db, workspace.id, sessionId), warnings);
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

/** The newest ACP row with a usable `context_used`; rows skipped on the way become warnings. */
function latestUsage(rows: UsageRow[], warnings: string[]): UsageInput | null {
  for (const row of rows) {
    const used = row.context_used;
    if (used === null || !Number.isSafeInteger(used) || used < 0) {
      warnings.push(`interaction_token_usage/${row.id}: context_used ${String(used)} is not a usable count; an older ACP row was used`);
      continue;
    }
    let size = row.context_size;
    if (size !== null && (!Number.isSafeInteger(size) || size <= 0)) {
      warnings.push(`interaction_token_usage/${row.id}: context_size ${String(size)} is not a window size; percent not shown`);
      size = null;
    } else if (size !== null && used > size) {
      warnings.push(`interaction_token_usage/${row.id}: context_used ${used} exceeds context_size ${size}`);
    }
    return { contextUsed: used, contextSize: size, recordedAt: row.created_at };
  }
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
