/**
 * The CLI's answers from a running server (`--api URL --token TOKEN`): the same report and item
 * pages over HTTP. Needs no database driver, so the MCP server the live agent runs in its
 * sandbox (src/node/mcp/main.ts) is built from this alone.
 */
import { realpathSync } from 'node:fs';
import { sep } from 'node:path';
import type { ContextReport, EstimatorId, ItemContent } from '../../shared/wire';
import { AppError, failed, notFound, usageError } from '../errors';

/**
 * The wire's schemas, loaded when a server's answer is checked: building them costs a CLI start
 * time, and a report read from the database (report-source.ts, which imports this module) never
 * needs them.
 */
const wire = () => import('../../shared/wire');

/** A report request as the CLI makes it: the workspace may be left to the current folder. */
export interface SourceRequest {
  workspaceId: string | undefined;
  sessionId?: string | undefined;
  estimator?: EstimatorId | undefined;
  items?: number | 'all' | undefined;
  call?: number | undefined;
}

export interface ItemRequest extends SourceRequest {
  itemId: string;
  snapshotId?: string | undefined;
  page?: number | undefined;
}

export interface ReportSource {
  report(request: SourceRequest): Promise<ContextReport>;
  item(request: ItemRequest): Promise<ItemContent>;
  /** Where the answers come from, in words (`investibook mcp` says it on stderr). */
  describe(workspaceId: string | undefined): Promise<string>;
}

/** The workspace whose folder contains `cwd` (the deepest, if folders nest). */
export function workspaceAt(workspaces: { id: string; root: string }[], cwd: string): string {
  const here = realOrSelf(cwd);
  const matches = workspaces
    .map(({ id, root }) => ({ id, root: realOrSelf(root) }))
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

export function apiSource(api: string, token: string, cwd: string): ReportSource {
  /** Without a workspace id: the one of the user's workspaces whose folder holds `cwd`. */
  const resolve = async (workspaceId: string | undefined): Promise<string> => {
    if (workspaceId) return workspaceId;
    const list = (await wire()).workspaceListSchema.safeParse(await get(api, token, 'api/workspaces', {}));
    if (!list.success) throw failed('bad_response', `${api} sent a workspace list this CLI cannot read`);
    return workspaceAt(list.data.workspaces, cwd);
  };
  return {
    async report(request) {
      const id = await resolve(request.workspaceId);
      const body = await get(api, token, `api/workspace/${encodeURIComponent(id)}/debug/context`, {
        session_id: request.sessionId,
        items: request.items === undefined ? undefined : String(request.items),
        estimator: request.estimator,
        call: request.call === undefined ? undefined : String(request.call),
      });
      const report = (await wire()).contextReportSchema.safeParse(body);
      if (!report.success) throw failed('bad_response', `${api} sent a report that does not match schema version 1`);
      return report.data;
    },
    // A report grant reads one report route and nothing else: the workspace is not looked up here.
    describe: async (workspaceId) =>
      `${workspaceId ? `workspace ${workspaceId}` : `the workspace whose folder holds ${cwd}`}, from the server at ${api} (its read-only report route)`,
    async item(request) {
      const id = await resolve(request.workspaceId);
      const body = await get(
        api,
        token,
        `api/workspace/${encodeURIComponent(id)}/debug/context/items/${encodeURIComponent(request.itemId)}`,
        {
          session_id: request.sessionId,
          snapshot: request.snapshotId,
          page: request.page === undefined ? undefined : String(request.page),
        },
      );
      const content = (await wire()).itemContentSchema.safeParse(body);
      if (!content.success) throw failed('bad_response', `${api} sent item content this CLI cannot read`);
      return content.data;
    },
  };
}

async function get(
  api: string,
  token: string,
  path: string,
  query: Record<string, string | undefined>,
): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(path, api.endsWith('/') ? api : `${api}/`);
  } catch {
    throw usageError(`--api is not a URL: ${api}`);
  }
  for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    throw failed(
      'api_unreachable',
      `cannot reach ${url.origin}: ${(error as Error).cause ?? (error as Error).message}`,
    );
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.ok) return body;
  const parsed = (await wire()).errorBodySchema.safeParse(body);
  const message = parsed.success ? parsed.data.error.message : `HTTP ${response.status}`;
  // A server fault is looked up in its log by the request's id.
  const requestId = parsed.success ? parsed.data.error.requestId : undefined;
  const code = parsed.success ? parsed.data.error.code : 'http_error';
  if (response.status === 404) throw notFound(code, message);
  if (response.status === 400) throw usageError(message);
  throw new AppError(
    response.status === 410 ? 'gone' : 'failed',
    code,
    `${url.origin} answered ${response.status}: ${message}${requestId && response.status >= 500 ? ` (request ${requestId})` : ''}`,
  );
}
