/**
 * The HTTP application: API routes behind one access check, sign-in by `?token=`, the built
 * web app, and the one place that turns errors into statuses (`onError`).
 */
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono, type Context } from 'hono';
import { setCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AppError, asAppError, HTTP_STATUS } from '../errors';
import { ReportCache } from '../report/report-cache';
import { ReportService } from '../report/service';
import type { Store } from '../storage/store';
import { errorBody, requireUser, requireWorkspace, TOKEN_COOKIE, userForToken, type AppEnv } from './access';
import { debugRoutes } from './debug-routes';
import { workspaceRoutes, workspacesRoute } from './workspace-routes';

export interface AppOptions {
  /** The store for sign-in lookups, messages and usage. */
  store: Store;
  /** The read-only store the debug path reads (a replica may stand behind it). */
  reportStore: Store;
  /** Folder of the built web app (dist/); null serves the API only. */
  webRoot?: string | null;
  log?: (line: string) => void;
}

export function createApp(options: AppOptions): Hono<AppEnv> {
  const { store } = options;
  const log = options.log ?? (() => {});
  const app = new Hono<AppEnv>();

  app.use(
    '*',
    secureHeaders({
      referrerPolicy: 'no-referrer',
      // Served over plain HTTP on loopback: HSTS would only confuse a later https service there.
      strictTransportSecurity: false,
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        objectSrc: ["'none'"],
      },
    }),
  );

  app.onError((error, c) => {
    const known = asAppError(error);
    if (known) {
      const headers: Record<string, string> = {};
      if (known.kind === 'unauthorized') headers['WWW-Authenticate'] = 'Bearer';
      if (known.allow) headers.Allow = known.allow;
      if (known.kind === 'unavailable') headers['Retry-After'] = '1';
      return c.json(errorBody(known.code, known.message), HTTP_STATUS[known.kind], headers);
    }
    // Paths only, never query strings: a sign-in token must not reach a log.
    log(`error on ${c.req.method} ${c.req.path}: ${error instanceof Error ? error.stack : String(error)}`);
    return c.json(errorBody('internal', 'Something went wrong on the server'), 500);
  });

  const service = new ReportService(options.reportStore, { cache: new ReportCache() });
  app.use('/api/*', requireUser(store));
  app.route('/api/workspaces', workspacesRoute(store));
  app.use('/api/workspace/:id', requireWorkspace(store));
  app.use('/api/workspace/:id/*', requireWorkspace(store));
  app.route('/api/workspace/:id', workspaceRoutes(store));
  app.route('/api/workspace/:id', debugRoutes(service));
  app.all('/api/*', () => {
    throw new AppError('not_found', 'not_found', 'No such API route');
  });

  // Sign-in: `?token=` on any page sets the cookie, then the token leaves the URL.
  app.use('*', async (c, next) => {
    const token = c.req.query('token');
    if (token === undefined || c.req.method !== 'GET') return next();
    if (await userForToken(store, token)) {
      setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/', secure: false });
    }
    const url = new URL(c.req.url);
    url.searchParams.delete('token');
    return c.redirect(`${url.pathname}${url.search}${url.hash}`, 302);
  });

  const webRoot = options.webRoot ?? null;
  if (webRoot && existsSync(join(webRoot, 'index.html'))) {
    const index = readFileSync(join(webRoot, 'index.html'), 'utf8');
    app.use('/assets/*', serveStatic({ root: relative(process.cwd(), webRoot) || '.' }));
    app.get('/assets/*', (c) => c.text('Not found', 404));
    app.get('*', (c: Context) => c.html(index));
  } else {
    app.get('/', (c) => c.text('investibook API is running; the web app is not built (npm run build).'));
  }
  return app;
}
