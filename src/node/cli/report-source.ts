/** Where the CLI gets its answers: the database directly (read-only), or a running server. */
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import {
  contextReportSchema,
  errorBodySchema,
  itemContentSchema,
  type ContextReport,
  type ItemContent,
} from '../../shared/wire';
import { AppError, failed, notFound, usageError } from '../errors';
import { generateReport, itemContent, type ContentRequest, type ReportRequest } from '../report/context-report';
import { listWorkspaces, openReadOnly, resolveRoot, type Db } from '../storage/store';

type Cli<T> = Omit<T, 'workspaceId'> & { workspaceId: string | undefined };

export interface ReportSource {
  report(request: Cli<ReportRequest>): Promise<ContextReport>;
  item(request: Cli<ContentRequest> & { itemId: string }): Promise<ItemContent>;
}

export function localSource(dbPath: string, cwd: string): ReportSource {
  const withDb = <T>(work: (db: Db) => T): T => {
    const db = openReadOnly(dbPath);
    try {
      return work(db);
    } finally {
      db.close();
    }
  };
  return {
    report: async (request) =>
      withDb((db) => generateReport(db, { ...request, workspaceId: request.workspaceId ?? workspaceAt(db, cwd) })),
    item: async (request) =>
      withDb((db) => itemContent(db, { ...request, workspaceId: request.workspaceId ?? workspaceAt(db, cwd) })),
  };
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

export function apiSource(api: string, token: string): ReportSource {
  return {
    async report(request) {
      const body = await get(api, token, request.workspaceId, '/debug/context', {
        session_id: request.sessionId,
        items: request.items === undefined ? undefined : String(request.items),
        estimator: request.estimator,
      });
      const report = contextReportSchema.safeParse(body);
      if (!report.success) throw failed('bad_response', `${api} sent a report that does not match schema version 1`);
      return report.data;
    },
    async item(request) {
      const body = await get(
        api,
        token,
        request.workspaceId,
        `/debug/context/items/${encodeURIComponent(request.itemId)}`,
        {
          session_id: request.sessionId,
          snapshot: request.snapshotId,
          page: request.page === undefined ? undefined : String(request.page),
        },
      );
      const content = itemContentSchema.safeParse(body);
      if (!content.success) throw failed('bad_response', `${api} sent item content this CLI cannot read`);
      return content.data;
    },
  };
}

async function get(
  api: string,
  token: string,
  workspaceId: string | undefined,
  path: string,
  query: Record<string, string | undefined>,
): Promise<unknown> {
  if (!workspaceId)
    throw usageError('with --api, name the workspace: investibook debug context WORKSPACE_ID --api URL');
  let url: URL;
  try {
    url = new URL(`api/workspace/${encodeURIComponent(workspaceId)}${path}`, api.endsWith('/') ? api : `${api}/`);
  } catch {
    throw usageError(`--api is not a URL: ${api}`);
  }
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  let response: Response;
  try {
    response = await fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
  } catch (error) {
    throw failed(
      'api_unreachable',
      `cannot reach ${url.origin}: ${(error as Error).cause ?? (error as Error).message}`,
    );
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.ok) return body;
  const parsed = errorBodySchema.safeParse(body);
  const message = parsed.success ? parsed.data.error.message : `HTTP ${response.status}`;
  const code = parsed.success ? parsed.data.error.code : 'http_error';
  if (response.status === 404) throw notFound(code, `${message} (${workspaceId})`);
  if (response.status === 400) throw usageError(message);
  throw new AppError(
    response.status === 410 ? 'gone' : 'failed',
    code,
    `${url.origin} answered ${response.status}: ${message}`,
  );
}
