/**
 * The HTTP application: API routes behind one access check, sign-in by `?token=`, the built
 * web app, and the single place that turns errors into statuses.
 */
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono, type Context } from 'hono';
import { setCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AppError } from '../errors';
import type { Db } from '../storage/store';
import { errorBody, requireUser, requireWorkspace, TOKEN_COOKIE, userForToken, type AppEnv } from './access';
import { debugRoutes } from './debug-routes';
import { workspaceRoutes } from './workspace-routes';

export interface AppOptions {
  /** The read-write connection (messages, sign-in lookups). */
  db: Db;
  /** The read-only connection used by the debug path. */
  readOnlyDb: () => Db;
  /** Folder of the built web app (dist/); null serves the API only. */
  webRoot?: string | null;
  log?: (line: string) => void;
}

const STATUS = {
  usage: 400,
  invalid: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  gone: 410,
  failed: 500,
} as const;

export function createApp(options: AppOptions): Hono<AppEnv> {
  const { db } = options;
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
    if (error instanceof AppError) {
      return c.json(errorBody(error.code, error.message), STATUS[error.kind]);
    }
    // Paths only, never query strings: a sign-in token must not reach a log.
    log(`error on ${c.req.method} ${c.req.path}: ${error instanceof Error ? error.stack : String(error)}`);
    return c.json(errorBody('internal', 'Something went wrong on the server'), 500);
  });

  app.use('/api/*', requireUser(db));
  app.use('/api/workspace/:id', requireWorkspace(db));
  app.use('/api/workspace/:id/*', requireWorkspace(db));
  app.route('/api/workspace/:id', workspaceRoutes(db));
  app.route('/api/workspace/:id', debugRoutes(options.readOnlyDb));
  app.all('/api/*', (c) => c.json(errorBody('not_found', 'No such API route'), 404));

  // Sign-in: `?token=` on any page sets the cookie, then the token leaves the URL.
  app.use('*', async (c, next) => {
    const token = c.req.query('token');
    if (token === undefined || c.req.method !== 'GET') return next();
    if (userForToken(db, token)) {
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
