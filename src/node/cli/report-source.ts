/** Where the CLI gets its report: the database directly (read-only), or a running server. */
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import { contextReportSchema, errorBodySchema, type ContextReport } from '../../shared/wire';
import { AppError, failed, notFound, usageError } from '../errors';
import { generateReport, type ReportRequest } from '../report/context-report';
import { listWorkspaces, openReadOnly, resolveRoot, type Db } from '../storage/store';

type CliRequest = Omit<ReportRequest, 'workspaceId'> & { workspaceId: string | undefined };

export function localReport(dbPath: string, cwd: string, request: CliRequest): ContextReport {
  const db = openReadOnly(dbPath);
  try {
    const workspaceId = request.workspaceId ?? workspaceAt(db, cwd);
    return generateReport(db, { ...request, workspaceId });
  } finally {
    db.close();
  }
}

/** The workspace whose folder contains `cwd` (the deepest, if folders nest). */
function workspaceAt(db: Db, cwd: string): string {
  const here = realOrSelf(cwd);
  const workspaces = listWorkspaces(db);
  const matches = workspaces
    .map((w) => ({ id: w.id, root: realOrSelf(resolveRoot(db, w.root_path)) }))
    .filter(({ root }) => here === root || here.startsWith(root + sep))
    .sort((a, b) => b.root.length - a.root.length);
  if (matches[0]) return matches[0].id;
  const list = workspaces.length ? workspaces.map((w) => w.id).join(', ') : 'none';
  throw usageError(`no workspace contains ${cwd}; name one of: ${list}`);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export async function fetchReport(api: string, token: string, request: CliRequest): Promise<ContextReport> {
  if (!request.workspaceId) throw usageError('with --api, name the workspace: investibook debug context WORKSPACE_ID --api URL');
  let url: URL;
  try {
    url = new URL(`api/workspace/${encodeURIComponent(request.workspaceId)}/debug/context`, api.endsWith('/') ? api : `${api}/`);
  } catch {
    throw usageError(`--api is not a URL: ${api}`);
  }
  if (request.sessionId) url.searchParams.set('session_id', request.sessionId);
  if (request.items !== undefined) url.searchParams.set('items', String(request.items));
  if (request.estimator) url.searchParams.set('estimator', request.estimator);
  let response: Response;
  try {
    response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
  } catch (error) {
    throw failed('api_unreachable', `cannot reach ${url.origin}: ${(error as Error).cause ?? (error as Error).message}`);
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const parsed = errorBodySchema.safeParse(body);
    const message = parsed.success ? parsed.data.error.message : `HTTP ${response.status}`;
    const code = parsed.success ? parsed.data.error.code : 'http_error';
    if (response.status === 404) throw notFound(code, `${message} (${request.workspaceId})`);
    if (response.status === 400) throw usageError(message);
    throw new AppError('failed', code, `${url.origin} answered ${response.status}: ${message}`);
  }
  const report = contextReportSchema.safeParse(body);
  if (!report.success) throw failed('bad_response', `${url.origin} sent a report that does not match schema version 1`);
  return report.data;
}
