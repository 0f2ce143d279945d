/**
 * Request guards that hold before any route runs (docs/security.md):
 * - Host names: only loopback names and the configured list are served, so a DNS-rebinding
 *   page never talks to this server under its own name (421 otherwise).
 * - Writes authenticated by the sign-in cookie come only from this server's own pages: JSON
 *   bodies only (a form or a no-cors fetch cannot send application/json cross-origin without a
 *   preflight this server never grants), and Origin / Sec-Fetch-Site must say "same origin"
 *   (Hono's csrf middleware decides).
 *   Bearer-token clients (the CLI, scripts) send no cookie and are not affected.
 * - Redirects stay on this server.
 */
import { Context, type MiddlewareHandler } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
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

/**
 * Where a write comes from, decided by Hono's `csrf`: an `Origin` whose host is this server's
 * (any scheme: a TLS proxy in front changes nothing), or — only when the browser sent no Origin —
 * `Sec-Fetch-Site: same-origin`. A client that sends neither is not one of this server's pages.
 */
const provenance = csrf({
  origin: (origin, c) => {
    try {
      return new URL(origin).host === (c.req.header('host') ?? new URL(c.req.url).host);
    } catch {
      return false; // "null" (a sandboxed or file page) and garbage
    }
  },
  secFetchSite: (site, c) => site === 'same-origin' && c.req.header('origin') === undefined,
});

/**
 * After the access check: cookie-authenticated writes must come from this server's own pages.
 * Hono's csrf asks only about the content types a cross-site form can send (forms, text/plain,
 * none), trusting the browser's preflight for the rest; this server asks about every cookie
 * write, JSON included — so it hands csrf the write's provenance headers alone, as a form post.
 */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function sameOriginWrites(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get('auth') === 'cookie' && !READS.has(c.req.method)) {
      const headers = new Headers();
      for (const name of ['host', 'origin', 'sec-fetch-site']) {
        const value = c.req.header(name);
        if (value !== undefined) headers.set(name, value);
      }
      const asForm = new Context(new Request(c.req.url, { method: 'POST', headers }));
      try {
        await provenance(asForm, async () => {});
      } catch (error) {
        if (!(error instanceof HTTPException && error.status === 403)) throw error;
        throw new AppError(
          'forbidden',
          'cross_origin_write',
          'Writes signed in by cookie must come from this server’s own pages',
        );
      }
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

/** A path on this server for a redirect: "//evil.example/x" and "/\\evil" become local paths. */
export function localPath(pathname: string, search = ''): string {
  return `/${pathname.replace(/^[/\\]+/, '')}${search}`;
}
