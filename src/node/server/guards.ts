/**
 * Request guards that hold before any route runs (docs/security.md):
 * - Host names: only loopback names and the configured list are served, so a DNS-rebinding
 *   page never talks to this server under its own name (421 otherwise).
 * - Writes authenticated by the sign-in cookie come only from this server's own pages: JSON
 *   bodies only (a form or a no-cors fetch cannot send application/json cross-origin without a
 *   preflight this server never grants), and Origin / Sec-Fetch-Site must say "same origin".
 *   Bearer-token clients (the CLI, scripts) send no cookie and are not affected.
 * - Redirects stay on this server.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { AppError } from '../errors';
import type { AppEnv } from './access';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The host name of a Host header value, without its port ("[::1]:8787" → "[::1]"). */
export function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  return lower.replace(/:\d*$/, '');
}

export function allowedHosts(extra: readonly string[]): MiddlewareHandler {
  const allowed = new Set([...LOOPBACK, ...extra.map(hostName)]);
  const any = extra.includes('*');
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!any && !allowed.has(hostName(host))) {
      throw new AppError(
        'misdirected',
        'host_not_allowed',
        `This server does not answer for "${hostName(host)}": add it to INVESTIBOOK_ALLOWED_HOSTS`,
      );
    }
    await next();
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** After the access check: cookie-authenticated writes must come from this server's own pages. */
export function sameOriginWrites(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!SAFE_METHODS.has(c.req.method) && c.get('auth') === 'cookie' && !fromOwnPage(c)) {
      throw new AppError(
        'forbidden',
        'cross_origin_write',
        'Writes signed in by cookie must come from this server’s own pages',
      );
    }
    await next();
  };
}

/** On every route that takes a body: JSON only (forms and text/plain are what cross-site pages can send). */
export const requireJson: MiddlewareHandler = async (c, next) => {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new AppError('unsupported', 'unsupported_media_type', 'Send the request body as application/json');
  }
  await next();
};

/** Whether the browser says the request comes from a page of this very origin. */
function fromOwnPage(c: Context): boolean {
  const origin = c.req.header('origin');
  if (origin !== undefined) {
    try {
      return new URL(origin).host === (c.req.header('host') ?? new URL(c.req.url).host);
    } catch {
      return false; // "null" (a sandboxed or file page) and garbage
    }
  }
  // Browsers send Origin on every cross-origin write; without it, Fetch Metadata decides, and a
  // client that sends neither is not a browser page that may carry our cookie.
  return c.req.header('sec-fetch-site') === 'same-origin';
}

/** A path on this server for a redirect: "//evil.example/x" and "/\\evil" become local paths. */
export function localPath(pathname: string, search = ''): string {
  return `/${pathname.replace(/^[/\\]+/, '')}${search}`;
}
