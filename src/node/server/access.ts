/**
 * Authentication and the one workspace access check. Every /api/workspace/{id} route goes
 * through `requireWorkspace`: a workspace that does not exist and one the user may not see
 * answer with the same 404 body.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { sha256Hex } from '../auth';
import { userIdForTokenHash, workspaceForMember, type Db, type WorkspaceRow } from '../storage/store';

export const TOKEN_COOKIE = 'investibook_token';

export type AppEnv = {
  Variables: {
    userId: string;
    workspace: WorkspaceRow;
  };
};

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

export const WORKSPACE_NOT_FOUND = errorBody('workspace_not_found', 'Workspace not found');

/** The bearer token of a request: the Authorization header first, then the sign-in cookie. */
export function requestToken(c: Context): string | null {
  const header = c.req.header('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1]! : null;
  }
  return getCookie(c, TOKEN_COOKIE) ?? null;
}

export function userForToken(db: Db, token: string): string | null {
  return userIdForTokenHash(db, sha256Hex(token));
}

export function requireUser(db: Db): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = requestToken(c);
    const userId = token ? userForToken(db, token) : null;
    if (!userId) {
      return c.json(errorBody('unauthorized', 'Sign in with a valid token'), 401, {
        'WWW-Authenticate': 'Bearer',
      });
    }
    c.set('userId', userId);
    await next();
  };
}

export function requireWorkspace(db: Db): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const workspace = workspaceForMember(db, c.req.param('id') ?? '', c.get('userId'));
    if (!workspace) return c.json(WORKSPACE_NOT_FOUND, 404);
    c.set('workspace', workspace);
    await next();
  };
}
