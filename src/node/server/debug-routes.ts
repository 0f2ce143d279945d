/**
 * The read-only debug routes. All run on a connection opened with `readonly: true` and answer
 * GET (and HEAD) only:
 *   GET …/debug/context                      the report (metadata only)
 *   GET …/debug/context/items/{itemId}       one page of an item's text (snapshot-pinned)
 *   GET …/debug/context/reader               the live context in request order (snapshot-pinned)
 */
import { Hono, type Context } from 'hono';
import {
  generateReport,
  itemContent,
  parseEstimatorOption,
  parseItemsOption,
  parsePageOption,
  readerPage,
} from '../report/context-report';
import { ReportCache } from '../report/report-cache';
import type { Db } from '../storage/store';
import { errorBody, type AppEnv } from './access';

export function debugRoutes(readOnlyDb: () => Db): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  // Per-message work is memoised for the life of the server (bounded, memory only).
  const cache = new ReportCache();
  const base = (c: Context<AppEnv>) => ({
    workspaceId: c.get('workspace').id,
    sessionId: c.req.query('session_id') || undefined,
    estimator: parseEstimatorOption(c.req.query('estimator')),
  });
  const pinned = (c: Context<AppEnv>) => ({
    ...base(c),
    snapshotId: c.req.query('snapshot') || undefined,
    page: parsePageOption(c.req.query('page')),
  });
  const noStore = { 'Cache-Control': 'no-store' };

  routes.use('/debug/context/*', readOnlyMethods);
  routes.use('/debug/context', readOnlyMethods);
  routes.get('/debug/context', (c) =>
    c.json(
      generateReport(readOnlyDb(), { ...base(c), items: parseItemsOption(c.req.query('items')) }, { cache }),
      200,
      noStore,
    ),
  );
  routes.get('/debug/context/items/:itemId', (c) =>
    c.json(itemContent(readOnlyDb(), { ...pinned(c), itemId: c.req.param('itemId') }, { cache }), 200, noStore),
  );
  routes.get('/debug/context/reader', (c) => c.json(readerPage(readOnlyDb(), pinned(c), { cache }), 200, noStore));
  return routes;
}

async function readOnlyMethods(c: Context<AppEnv>, next: () => Promise<void>) {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    return c.json(errorBody('method_not_allowed', 'The context report is read-only: use GET'), 405, {
      Allow: 'GET, HEAD',
    });
  }
  await next();
}
