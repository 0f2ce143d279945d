/**
 * One report in a fresh process (the "cold" figure): prints JSON with the time of the report
 * itself, the whole process time so far, and the peak RSS. Used by bench/run.ts.
 */
import { ReportService } from '../src/node/report/service';
import { openStore } from '../src/node/storage/open';
import type { EstimatorId } from '../src/shared/wire';

// A SQLite path or a postgres:// URL.
const [location, workspaceId, estimator] = process.argv.slice(2) as [string, string, EstimatorId];
const started = performance.now();
const store = await openStore({ location, readOnly: true });
const report = await new ReportService(store).report({ workspaceId, estimator, items: 20 });
const ms = performance.now() - started;
await store.close();
process.stdout.write(
  JSON.stringify({
    ms,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    totalTokens: report.estimate.totalTokens,
    items: report.estimate.itemCount,
  }),
);
