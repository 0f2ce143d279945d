/** Counting on worker threads changes speed, never the answer. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_WORKSPACE_ID, seedDemoDatabase } from '../../src/node/demo/builder';
import { bpeEstimator } from '../../src/node/report/estimator';
import { ReportService } from '../../src/node/report/service';
import { claimTokenPool, TokenPool } from '../../src/node/report/token-pool';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';

let dir: string;
let dbPath: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-parallel-'));
  dbPath = join(dir, 'investibook.db');
  await seedDemoDatabase(dbPath, 'parallel-token');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('BPE counting on worker threads', () => {
  it('gives the report it gives on the main thread', async () => {
    const store = await openSqlite(dbPath, { readOnly: true });
    try {
      const report = (parallelMinChars: number) =>
        new ReportService(store, { parallelMinChars, now: () => new Date(0) }).report({
          workspaceId: DEMO_WORKSPACE_ID,
          items: 'all',
        });
      const inline = await report(Number.POSITIVE_INFINITY);
      const threaded = await report(0);
      expect(inline.estimate.totalTokens).toBeGreaterThan(1000);
      expect(threaded).toEqual(inline);
    } finally {
      await store.close();
    }
  });

  it('lends its threads to one report at a time: a concurrent cold report counts on its own thread', async () => {
    const first = claimTokenPool();
    try {
      expect(first).not.toBeNull();
      expect(claimTokenPool()).toBeNull();
    } finally {
      await first?.close();
    }
    const again = claimTokenPool();
    expect(again).not.toBeNull();
    await again!.close();
  });

  it('counts exactly as the main thread does, special-token look-alikes and long runs included', async () => {
    const texts = ['plain words', '<|endoftext|> is text here', 'x'.repeat(5000), '中文日志 2026-11-29 ERROR', ''];
    const pool = new TokenPool(2);
    try {
      const counts = Promise.all(texts.map((t) => pool.count(t)));
      pool.flush();
      expect(await counts).toEqual(texts.map((t) => bpeEstimator.count(t)));
    } finally {
      await pool.close();
    }
  });
});
