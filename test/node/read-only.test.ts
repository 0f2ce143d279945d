/**
 * The read-only promise, proved by digests: the database content, the database file and the
 * workspace tree (contents and mtimes) are identical before and after every report path.
 */
import { serve } from '@hono/node-server';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { captureIo } from '../support/cli';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import { ReportService } from '../../src/node/report/service';
import { createApp } from '../../src/node/server/app';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { contextReportSchema } from '../../src/shared/wire';
import { databaseDigest, treeDigest } from '../support/fixtures';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TOKEN = 'read-only-token';
let dir: string;
let dbPath: string;
let root: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-ro-'));
  dbPath = join(dir, 'investibook.db');
  root = (await seedDemoDatabase(dbPath, TOKEN)).root;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fileDigest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

async function snapshot() {
  return { db: await databaseDigest(dbPath), file: fileDigest(dbPath), tree: treeDigest(root) };
}

describe('the read-only promise', () => {
  it('holds for the engine, and its store refuses writes', async () => {
    const before = await snapshot();
    const store = await openSqlite(dbPath, { readOnly: true });
    try {
      for (const estimator of ['bpe', 'chars4'] as const)
        await new ReportService(store).report({ workspaceId: 'demo', estimator, items: 'all' });
      await expect(store.insertUser('usr_x', 'X')).rejects.toThrow(/readonly/i);
      expect(() => store.db.prepare('DELETE FROM messages_v2').run()).toThrow(/readonly/i);
    } finally {
      await store.close();
    }
    expect(await snapshot()).toEqual(before);
  });

  it('holds for the CLI, table and JSON', async () => {
    const before = await snapshot();
    for (const args of [
      ['debug', 'context', 'demo', '--db', dbPath],
      ['debug', 'context', 'demo', '--db', dbPath, '--json', '--items', 'all'],
    ]) {
      const io = captureIo(dir);
      expect(await run(args, io)).toBe(0);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('holds for the API, and the API and --json give the same report', async () => {
    const writable = await openSqlite(dbPath);
    const reportStore = await openSqlite(dbPath, { readOnly: true });
    const app = createApp({ store: writable, reportStore });
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((ok) => server.once('listening', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const before = await snapshot();
      const response = await fetch(`${url}/api/workspace/demo/debug/context?items=all`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status).toBe(200);
      const fromApi = contextReportSchema.parse(await response.json());
      const io = captureIo(dir);
      expect(await run(['debug', 'context', 'demo', '--db', dbPath, '--json', '--items', 'all'], io)).toBe(0);
      const fromCli = contextReportSchema.parse(JSON.parse(io.stdout()));
      const viaApi = captureIo(dir);
      expect(
        await run(['debug', 'context', 'demo', '--api', url, '--token', TOKEN, '--json', '--items', 'all'], viaApi),
      ).toBe(0);
      const fromCliApi = contextReportSchema.parse(JSON.parse(viaApi.stdout()));
      const strip = (r: typeof fromApi) => ({ ...r, generatedAt: '' });
      expect(strip(fromCli)).toEqual(strip(fromApi));
      expect(strip(fromCliApi)).toEqual(strip(fromApi));
      const skill = fromApi.sources
        .flatMap((s) => s.items)
        .find((i) => i.label === 'Loaded skill: tidb-clinic-diagnosis')!;
      const itemViaApi = captureIo(dir);
      expect(
        await run(
          [
            'debug',
            'context',
            'demo',
            '--api',
            url,
            '--token',
            TOKEN,
            '--item',
            skill.id,
            '--snapshot',
            fromApi.snapshotId,
          ],
          itemViaApi,
        ),
      ).toBe(0);
      expect(itemViaApi.stdout()).toMatch(/^Loaded skill: tidb-clinic-diagnosis · page 1 of 1/);
      expect(itemViaApi.stdout()).toContain('# TiDB Clinic diagnosis');
      const reader = await fetch(`${url}/api/workspace/demo/debug/context/reader?snapshot=${fromApi.snapshotId}`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(reader.status).toBe(200);
      const after = await snapshot();
      expect(after.db).toEqual(before.db);
      expect(after.tree).toEqual(before.tree);
    } finally {
      await new Promise((done) => server.close(done));
      await reportStore.close();
      await writable.close();
    }
  });
});
