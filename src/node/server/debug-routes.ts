/**
 * GET /api/workspace/{id}/debug/context — the context report. Read-only: it runs on a
 * connection opened with `readonly: true`, and only GET (and HEAD) are answered.
 */
import { Hono } from 'hono';
import { generateReport, parseEstimatorOption, parseItemsOption } from '../report/context-report';
import { ReportCache } from '../report/report-cache';
import type { Db } from '../storage/store';
import { errorBody, type AppEnv } from './access';

export function debugRoutes(readOnlyDb: () => Db): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  // Per-message work is memoised for the life of the server (bounded, memory only).
  const cache = new ReportCache();
  routes.all('/debug/context', (c) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      return c.json(errorBody('method_not_allowed', 'The context report is read-only: use GET'), 405, {
        Allow: 'GET, HEAD',
      });
    }
    const report = generateReport(readOnlyDb(), {
      workspaceId: c.get('workspace').id,
      sessionId: c.req.query('session_id') || undefined,
      items: parseItemsOption(c.req.query('items')),
      estimator: parseEstimatorOption(c.req.query('estimator')),
    }, { cache });
    return c.json(report, 200, { 'Cache-Control': 'no-store' });
  });
  return routes;
}
