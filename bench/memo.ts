/**
 * What the memo keeps (ReportCache, bounded by bytes): after one report of a workspace's
 * sessions, its entries and their approximate bytes — the figure docs/benchmarks.md holds the
 * server's bound against.
 */
import { ReportCache } from '../src/node/report/report-cache';
import { ReportService } from '../src/node/report/service';
import { openStore } from '../src/node/storage/open';
import type { EstimatorId } from '../src/shared/wire';

export async function memoKept(
  location: string,
  workspaceId: string,
  estimator: EstimatorId = 'bpe',
): Promise<{ entries: number; bytes: number; sessions: number }> {
  const store = await openStore({ location, readOnly: true });
  try {
    const cache = new ReportCache();
    const service = new ReportService(store, { cache });
    const sessions = await store.listSessions(workspaceId);
    for (const s of sessions) await service.report({ workspaceId, sessionId: s.session_id, estimator });
    return { entries: cache.size, bytes: cache.bytes, sessions: sessions.length };
  } finally {
    await store.close();
  }
}
