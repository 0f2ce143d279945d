/**
 * Authentication and the one workspace access check. Every /api/workspace/{id} route goes
 * through `requireWorkspace`: a workspace that does not exist and one the user may not see
 * answer with the same 404 body.
 *
 * Besides users, a report grant (report-grants.ts: the live agent's MCP server) is let in for
 * exactly one thing: GET or HEAD of its own workspace's report, by bearer header. Anywhere else
 * it is no credential at all (401), and another workspace's report answers like one that does
 * not exist (404).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { sha256Hex } from '../auth';
import { AppError } from '../errors';
import type { Logger } from '../log';
import type { ReportGrants } from '../report-grants';
import type { Store, WorkspaceRow } from '../storage/store';

export const TOKEN_COOKIE = 'investibook_token';

export type AppEnv = {
  Variables: {
    userId: string;
    workspace: WorkspaceRow;
    /** How the request was authenticated: a bearer header or the sign-in cookie. */
    auth: 'bearer' | 'cookie';
    /** A report grant's workspace, when a grant (not a user) made the request; `userId` is then ''. */
    grant: string | undefined;
    /** hono/request-id: the X-Request-Id of this request (given by a proxy, or made here). */
    requestId: string;
    /** The server's logger with this request's id on every line. */
    log: Logger;
  };
};

/** Contract §6: `{ error: { code, message } }`, plus the request's id (an addition) to quote in a report. */
export function errorBody(code: string, message: string, requestId?: string) {
  return { error: { code, message, ...(requestId ? { requestId } : {}) } };
}

/** The bearer token of a request: the Authorization header first, then the sign-in cookie. */
export function requestToken(c: Context): { token: string; via: 'bearer' | 'cookie' } | null {
  const header = c.req.header('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? { token: match[1]!, via: 'bearer' } : null;
  }
  const cookie = getCookie(c, TOKEN_COOKIE);
  return cookie ? { token: cookie, via: 'cookie' } : null;
}

export async function userForToken(store: Store, token: string): Promise<string | null> {
  return store.userIdForTokenHash(sha256Hex(token));
}

export function requireUser(store: Store, grants?: ReportGrants): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const found = requestToken(c);
    const userId = found ? await userForToken(store, found.token) : null;
    if (userId && found) {
      c.set('userId', userId);
      c.set('auth', found.via);
      c.set('grant', undefined);
      return next();
    }
    const grant = found?.via === 'bearer' && isReportRead(c) ? (grants?.find(found.token) ?? null) : null;
    if (!grant) throw new AppError('unauthorized', 'unauthorized', 'Sign in with a valid token');
    c.set('userId', '');
    c.set('auth', 'bearer');
    c.set('grant', grant.workspaceId);
    await next();
  };
}

/** The one request a report grant may make: GET (or HEAD) of a workspace's report. */
const isReportRead = (c: Context): boolean =>
  (c.req.method === 'GET' || c.req.method === 'HEAD') && /^\/api\/workspace\/[^/]+\/debug\/context$/.test(c.req.path);

export function requireWorkspace(store: Store): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = c.req.param('id') ?? '';
    const grant = c.get('grant');
    const workspace =
      grant === undefined
        ? await store.workspaceForMember(id, c.get('userId'))
        : id === grant
          ? await store.getWorkspace(id)
          : null;
    if (!workspace) throw new AppError('not_found', 'workspace_not_found', 'Workspace not found');
    c.set('workspace', workspace);
    await next();
  };
}
