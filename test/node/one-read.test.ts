/**
 * One read, one pass: a report reads what it needs in one snapshot of the store and never a
 * second time — cold, warm, or with the memo holding the messages' analyses but not the session
 * (as of another call), where a read made large by the calibration must already have its row.
 * Every visit to the store is counted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ReportCache } from '../../src/node/report/report-cache';
import { ReportService } from '../../src/node/report/service';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import type { ReadSnapshot, Store } from '../../src/node/storage/store';
import type { ContextReport } from '../../src/shared/wire';
import { part } from '../../src/shared/opencode/build';
import { addMessages, addUsage, createFixture, readTool, text, WS, type Fixture } from '../support/fixtures';
import { loadRecording, recordingNames, seedRecording } from '../support/recordings';

const READS: readonly (keyof ReadSnapshot)[] = [
  'getWorkspace',
  'listSessions',
  'sessionExists',
  'sessionOwner',
  'acpUsageNewestFirst',
  'messageRuntimes',
  'messageStamps',
  'messages',
  'sessionRuntime',
  'sessionParents',
  'sessionOrigins',
  'tokenCounts',
];

/** The store with every visit written down: its snapshots, and each read made in or out of one. */
function counting(store: Store): { store: Store; visits: string[] } {
  const visits: string[] = [];
  const reads = <T extends object>(target: T, where: string): T =>
    new Proxy(target, {
      get(t, key, receiver) {
        const value = Reflect.get(t, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (key === 'snapshot')
          return (work: (r: ReadSnapshot) => Promise<unknown>) => {
            visits.push('snapshot');
            return (value as Store['snapshot']).call(t, (r) => work(reads(r, 'in')));
          };
        if (!READS.includes(key as keyof ReadSnapshot)) return (value as () => unknown).bind(t);
        return (...args: unknown[]) => {
          visits.push(`${where}:${String(key)}`);
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  return { store: reads(store, 'out'), visits };
}

const count = (visits: readonly string[], what: string) => visits.filter((v) => v === what).length;
const strip = (r: ContextReport) => ({ ...r, generatedAt: '' });

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

describe('one read, one pass', () => {
  for (const name of recordingNames()) {
    it(`${name}: every report is one snapshot, each session's rows read at most twice (headers, then the rest)`, async () => {
      fx = await createFixture();
      const recording = loadRecording(name);
      seedRecording(fx, recording, WS);
      const readOnly = await openSqlite(fx.dbPath, { readOnly: true });
      try {
        const { store, visits } = counting(readOnly);
        const service = new ReportService(store, { cache: new ReportCache(Infinity) });
        const request = { workspaceId: WS, sessionId: recording.sessionId, items: 'all' as const };
        const made: { report: ContextReport; visits: string[] }[] = [];
        // Cold; warm; as of the first call (the analyses memoised, the session not); warm again.
        for (const call of [undefined, undefined, 1, 1]) {
          visits.length = 0;
          made.push({ report: await service.report({ ...request, call }), visits: [...visits] });
        }
        const sessions = 1 + (recording.children?.length ?? 0);
        for (const { visits: seen } of made) {
          expect(count(seen, 'snapshot')).toBe(1);
          expect(count(seen, 'in:messages')).toBeLessThanOrEqual(2 * sessions);
          // Bounded by the sessions read, never by their messages: the workspace (before the
          // snapshot and in it), the runtime, the stored counts; per session its owner, usage,
          // stamps, runtime records, origin and rows (twice at most).
          expect(seen.length).toBeLessThanOrEqual(5 + 8 * sessions);
        }
        // A warm report reads no row at all.
        expect(count(made[1]!.visits, 'in:messages')).toBe(0);
        expect(count(made[3]!.visits, 'in:messages')).toBe(0);
        // What the memo held changes nothing of what is said.
        const fresh = new ReportService(readOnly, { cache: new ReportCache(Infinity) });
        expect(strip(made[2]!.report)).toEqual(strip(await fresh.report({ ...request, call: 1 })));
        expect(strip(made[1]!.report)).toEqual(strip(made[0]!.report));
      } finally {
        await readOnly.close();
      }
    });
  }

  /** A log of about a thousand tokens, each line its own. */
  const LOG = Array.from(
    { length: 80 },
    (_, i) => `2026-01-01 12:00:${String(i % 60).padStart(2, '0')} ERROR job ${i} failed id=${(i * 7919).toString(16)}`,
  ).join('\n');

  /** One read in a session of two calls: the first measured `first`, the second `second` (the total). */
  async function readSession(first: number, second: number): Promise<Fixture> {
    const made = await createFixture({ 'evidence/jobs.log': LOG });
    addMessages(made, [
      { role: 'user', parts: [text('Why do the jobs fail?')] },
      {
        role: 'assistant',
        parts: [
          part.stepStart(),
          readTool(made.root, 'evidence/jobs.log', LOG),
          part.stepFinish({ input: first, output: 30 }),
          part.stepStart(),
          text('They fail on the id.'),
          part.stepFinish({ input: second, output: 10 }),
        ],
      },
    ]);
    addUsage(made, second);
    return made;
  }

  it('a read the calibration makes large, with the analyses memoised, has its row read in the one pass', async () => {
    // What the second call adds, estimated, and the read's own estimate (a probe of the same session).
    const probe = await readSession(6000, 8000);
    const probeStore = await openSqlite(probe.dbPath, { readOnly: true });
    const probed = await new ReportService(probeStore).report({ workspaceId: WS, items: 'all' });
    await probeStore.close();
    await probe.cleanup();
    const added = probed.timeline![1]!.addedEstimate!;
    const read = probed.sources.flatMap((s) => s.items).find((i) => i.label.includes('jobs.log'))!;
    // The total puts the read's estimate at an eighth of it — under the share at which a read
    // looks large before the calls are calibrated — and the second call's growth at twice its
    // estimate (plausible: shared by the estimates), so the read's calibrated share is a quarter.
    const total = Math.round(read.estimatedTokens / 0.125);
    fx = await readSession(total - 2 * added, total);
    const readOnly = await openSqlite(fx.dbPath, { readOnly: true });
    try {
      const { store, visits } = counting(readOnly);
      const service = new ReportService(store, { cache: new ReportCache(Infinity) });
      const request = { workspaceId: WS, items: 'all' as const };
      await service.report(request);
      visits.length = 0;
      // Another call's report: the messages' analyses are in the memo, the session's report is not.
      const asOf = await service.report({ ...request, call: 2 });
      expect(count(visits, 'snapshot')).toBe(1);
      expect(count(visits, 'in:messages')).toBe(1);
      // The read is large (the advice on it needs its text, so its row came along)…
      expect(asOf.suggestions.find((x) => x.kind === 'large_item')?.change?.text).toContain('evidence/jobs.log');
      // …though its estimate alone is not.
      const fresh = await new ReportService(readOnly).report({ ...request, call: 2 });
      expect(strip(asOf)).toEqual(strip(fresh));
      const item = asOf.sources.flatMap((x) => x.items).find((i) => i.label.includes('jobs.log'))!;
      expect(item.estimatedTokens / asOf.actual!.contextUsed).toBeLessThan(0.15);
      expect(item.percentOfUsed).toBeGreaterThan(20);
    } finally {
      await readOnly.close();
    }
  });
});
