/**
 * The HTTP application: API routes behind one access check, sign-in by `?token=`, the built
 * web app, and the one place that turns errors into statuses (`onError`).
 */
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono, type Context, type Handler, type MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { requestId } from 'hono/request-id';
import { secureHeaders } from 'hono/secure-headers';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AppError, asAppError, HTTP_STATUS, methodNotAllowed as notAllowed } from '../errors';
import { silentLogger, type Logger } from '../log';
import { ReportCache } from '../report/report-cache';
import { ReportService } from '../report/service';
import { StoreUnavailable, type Store } from '../storage/store';
import { errorBody, requireUser, requireWorkspace, TOKEN_COOKIE, userForToken, type AppEnv } from './access';
import { AgentBridge } from '../agent/bridge';
import { agentRoutes } from './agent-routes';
import { debugRoutes } from './debug-routes';
import { allowedHosts, localPath, sameOriginWrites } from './guards';
import { workspaceRoutes, workspacesRoute } from './workspace-routes';

export interface AppOptions {
  /** The store for sign-in lookups, messages and usage. */
  store: Store;
  /** The read-only store the debug path reads (a replica may stand behind it). */
  reportStore: Store;
  /** Folder of the built web app (dist/); null serves the API only. */
  webRoot?: string | null;
  /** The live agent (none configured: the chat says how to attach one). */
  agent?: AgentBridge;
  /** Host names served besides loopback ones (INVESTIBOOK_ALLOWED_HOSTS); '*' for any. */
  allowedHosts?: readonly string[];
  /** The server's logger (log.ts); each request logs through a child with its id. */
  logger?: Logger;
  /** Called with the report service once it exists (start.ts warms it up after listening). */
  onReportService?: (service: ReportService) => void;
}

export function createApp(options: AppOptions): Hono<AppEnv> {
  const { store } = options;
  const app = new Hono<AppEnv>();

  // Every answer carries its request's id (X-Request-Id: a proxy's when well-formed, else a new
  // UUID), and so does every line logged while answering it.
  app.use('*', requestId());
  app.use('*', requestLog(options.logger ?? silentLogger));
  app.use('*', securityHeaders());
  app.get('/healthz', healthCheck(store, options.reportStore));
  app.use('*', allowedHosts(options.allowedHosts ?? []));
  // No API answer is ever cached, a streamed turn's included (its helper says no-cache).
  app.use('/api/*', async (c, next) => {
    await next();
    c.res.headers.set('Cache-Control', 'no-store');
  });

  app.onError((error, c) => {
    const known = asAppError(error);
    if (known) return answer(c, known);
    // Method and path only, never the query string or headers: a sign-in token must not reach a log.
    c.get('log').error({ err: error, method: c.req.method, path: c.req.path }, 'request failed');
    return c.json(errorBody('internal', 'Something went wrong on the server', c.get('requestId')), 500);
  });

  const agent = options.agent ?? new AgentBridge(null, store);
  const service = new ReportService(options.reportStore, {
    cache: new ReportCache(),
    live: agent.isLive,
    primary: store,
  });
  options.onReportService?.(service);
  app.route('/api', apiRoutes(store, agent, service));
  app.use('*', signInByLink(store));
  serveWebApp(app, options.webRoot ?? null);
  return app;
}

/** Logs each answered request (debug) through a child logger that carries the request's id. */
function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const log = logger.child({ requestId: c.get('requestId') });
    c.set('log', log);
    const started = performance.now();
    await next();
    // The path only: a query string may hold a sign-in token (docs/security.md).
    log.debug(
      { method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) },
      'request',
    );
  };
}

function securityHeaders(): MiddlewareHandler<AppEnv> {
  return secureHeaders({
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
  });
}

/**
 * For load balancers: reachable under any Host name (they probe by address), says nothing
 * but whether the database takes writes and the report database answers — and, when not,
 * why, in one code (database_timeout, database_read_only, disk_full…). Each check is bounded:
 * the stores bound their own calls, and a check that still has no answer is a timeout.
 */
function healthCheck(store: Store, reportStore: Store): Handler<AppEnv> {
  return async (c) => {
    try {
      await Promise.all([bounded(store.checkWritable()), bounded(reportStore.ping())]);
      return c.json({ status: 'ok', database: store.backend }, 200, { 'Cache-Control': 'no-store' });
    } catch (error) {
      c.get('log').warn({ err: error }, 'health check failed');
      const reason = error instanceof StoreUnavailable ? error.code : 'database_unavailable';
      return c.json({ status: 'unavailable', reason }, 503, { 'Cache-Control': 'no-store', 'Retry-After': '1' });
    }
  };
}

/** The API under /api: every route behind the user check, a workspace's behind its access check. */
function apiRoutes(store: Store, agent: AgentBridge, service: ReportService): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  // A path the API has, asked with a method it does not take: 405 with the methods it does take
  // (HEAD wherever GET is). Hono's middleware reads them from the routes below.
  api.use(
    '*',
    methodNotAllowed({ app: api, onMethodNotAllowed: (c, methods) => answer(c, notAllowed(methods.join(', '))) }),
  );
  // Users, and the live agent's report grants (for its own report only: access.ts).
  api.use('*', requireUser(store, agent.reportGrants));
  api.route('/workspaces', workspacesRoute(store));
  api.use('/workspace/:id', requireWorkspace(store));
  api.use('/workspace/:id/*', requireWorkspace(store));
  api.use('/workspace/:id', sameOriginWrites());
  api.use('/workspace/:id/*', sameOriginWrites());
  api.route('/workspace/:id', workspaceRoutes(store, agent.isLive));
  api.route('/workspace/:id', debugRoutes(service, agent.reportGrants));
  api.route('/workspace/:id', agentRoutes(agent, store));
  // Answered, not thrown: the method check above looks only at answers without an error.
  api.all('*', (c) => answer(c, new AppError('not_found', 'not_found', 'No such API route')));
  return api;
}

/**
 * Sign-in: `?token=` on any page sets the cookie, then the token leaves the URL. A link for
 * another user than the one signed in here asks first instead of switching silently.
 */
function signInByLink(store: Store): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = c.req.query('token');
    if (token === undefined || c.req.method !== 'GET') return next();
    const url = new URL(c.req.url);
    const confirmed = url.searchParams.get('switch_user') === '1';
    url.searchParams.delete('token');
    url.searchParams.delete('switch_user');
    const target = localPath(url.pathname, url.search);
    const user = await userForToken(store, token);
    if (user) {
      const current = getCookie(c, TOKEN_COOKIE);
      const currentUser = current && current !== token ? await userForToken(store, current) : null;
      if (currentUser && currentUser !== user && !confirmed) {
        const proceed = new URL(c.req.url);
        proceed.searchParams.set('switch_user', '1');
        return c.html(switchUserPage(localPath(proceed.pathname, proceed.search), target), 409, {
          'Cache-Control': 'no-store',
        });
      }
      setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/', secure: false });
    }
    return c.redirect(target, 302);
  };
}

/** The built web app: its assets, and index.html for every other path (the app routes itself). */
function serveWebApp(app: Hono<AppEnv>, webRoot: string | null): void {
  if (webRoot && existsSync(join(webRoot, 'index.html'))) {
    const index = readFileSync(join(webRoot, 'index.html'), 'utf8');
    app.use('/assets/*', serveStatic({ root: relative(process.cwd(), webRoot) || '.' }));
    app.get('/assets/*', (c) => c.text('Not found', 404));
    app.get('*', (c: Context) => c.html(index));
  } else {
    app.get('/', (c) => c.text('investibook API is running; the web app is not built (npm run build).'));
  }
}

/** The one shape of an error answer (contract §6, plus the request's id), with its status and headers. */
function answer(c: Context<AppEnv>, known: AppError): Response {
  const headers: Record<string, string> = {};
  if (known.kind === 'unauthorized') headers['WWW-Authenticate'] = 'Bearer';
  if (known.allow) headers.Allow = known.allow;
  if (known.kind === 'unavailable' || known.kind === 'insufficient_storage')
    headers['Retry-After'] = String(known.retryAfter ?? 1);
  return c.json(errorBody(known.code, known.message, c.get('requestId')), HTTP_STATUS[known.kind], headers);
}

/** A health check's answer within `ms`, or database_timeout. */
function bounded<T>(work: Promise<T>, ms = HEALTH_CHECK_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnavailable(`no answer from the database within ${ms} ms`, 'database_timeout')),
      ms,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const HEALTH_CHECK_MS = 4000;

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** Asked when a sign-in link is for another user than the one signed in here. */
function switchUserPage(proceed: string, stay: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switch user? · investibook</title></head>
<body><main>
<h1>Switch user?</h1>
<p>You are signed in here as another user than the one this sign-in link is for.</p>
<p><a href="${escapeHtml(proceed)}">Sign in with the link</a> (signs the other user out in this browser)</p>
<p><a href="${escapeHtml(stay)}">Stay signed in as you are</a></p>
</main></body></html>`;
}
