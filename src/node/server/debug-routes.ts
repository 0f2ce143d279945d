/**
 * The read-only debug routes, on the read-only store, GET (and HEAD) only:
 *   GET …/debug/context                      the report (metadata only); ?call=N as of model call N
 *   GET …/debug/context/items/{itemId}       one page of an item's text (snapshot-pinned)
 *   GET …/debug/context/reader               the live context in request order (snapshot-pinned)
 *
 * A report grant (the live agent's MCP server) reads only the first; without a session_id its
 * report is about the session the workspace's agent is working in now, when that is one.
 */
import { Hono, type Context } from 'hono';
import { parseCall, parseEstimator, parseItems, parsePage } from '../../shared/report-params';
import { methodNotAllowed } from '../errors';
import type { ReportGrants } from '../report-grants';
import type { ReportService } from '../report/service';
import type { AppEnv } from './access';

export function debugRoutes(service: ReportService, grants?: ReportGrants): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const base = (c: Context<AppEnv>) => ({
    workspaceId: c.get('workspace').id,
    sessionId:
      c.req.query('session_id') ||
      (c.get('grant') !== undefined ? grants?.sessionFor(c.get('workspace').id) : undefined) ||
      undefined,
    estimator: parseEstimator(c.req.query('estimator')),
    call: parseCall(c.req.query('call')),
  });
  const pinned = (c: Context<AppEnv>) => ({
    ...base(c),
    snapshotId: c.req.query('snapshot') || undefined,
    page: parsePage(c.req.query('page')),
  });

  routes.use('/debug/context/*', readOnlyMethods);
  routes.use('/debug/context', readOnlyMethods);
  routes.get('/debug/context', async (c) =>
    c.json(await service.report({ ...base(c), items: parseItems(c.req.query('items')) })),
  );
  routes.get('/debug/context/items/:itemId', async (c) =>
    c.json(await service.itemContent({ ...pinned(c), itemId: c.req.param('itemId') })),
  );
  routes.get('/debug/context/reader', async (c) => c.json(await service.readerPage(pinned(c))));
  return routes;
}

async function readOnlyMethods(c: Context<AppEnv>, next: () => Promise<void>) {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    throw methodNotAllowed('GET, HEAD', 'The context report is read-only: use GET');
  }
  await next();
}
