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
import { generateReport } from '../../src/node/report/context-report';
import { createApp } from '../../src/node/server/app';
import { openReadOnly, openWritable, type Db } from '../../src/node/storage/store';
import { contextReportSchema } from '../../src/shared/wire';
import { databaseDigest, treeDigest } from '../support/fixtures';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TOKEN = 'read-only-token';
let dir: string;
let dbPath: string;
let root: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-ro-'));
  dbPath = join(dir, 'investibook.db');
  root = seedDemoDatabase(dbPath, TOKEN).root;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fileDigest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function snapshot() {
  return { db: databaseDigest(dbPath), file: fileDigest(dbPath), tree: treeDigest(root) };
}

describe('the read-only promise', () => {
  it('holds for the engine, and its connection refuses writes', () => {
    const before = snapshot();
    const db = openReadOnly(dbPath);
    try {
      for (const estimator of ['bpe', 'chars4'] as const)
        generateReport(db, { workspaceId: 'demo', estimator, items: 'all' });
      expect(() => db.prepare('DELETE FROM messages_v2').run()).toThrow(/readonly/i);
    } finally {
      db.close();
    }
    expect(snapshot()).toEqual(before);
  });

  it('holds for the CLI, table and JSON', async () => {
    const before = snapshot();
    for (const args of [
      ['debug', 'context', 'demo', '--db', dbPath],
      ['debug', 'context', 'demo', '--db', dbPath, '--json', '--items', 'all'],
    ]) {
      const io = captureIo(dir);
      expect(await run(args, io)).toBe(0);
    }
    expect(snapshot()).toEqual(before);
  });

  it('holds for the API, and the API and --json give the same report', async () => {
    const writable: Db = openWritable(dbPath);
    const connections: Db[] = [];
    const app = createApp({
      db: writable,
      readOnlyDb: () => connections[0] ?? (connections.push(openReadOnly(dbPath)), connections[0]!),
    });
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((ok) => server.once('listening', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const before = snapshot();
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
      expect(snapshot().db).toEqual(before.db);
      expect(snapshot().tree).toEqual(before.tree);
    } finally {
      await new Promise((done) => server.close(done));
      connections.forEach((c) => c.close());
      writable.close();
    }
  });
});
