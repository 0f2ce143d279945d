/**
 * The report on PostgreSQL, against a real server (test/support/postgres.ts): the same report as
 * on SQLite for the same rows, a read-only report path, `db copy` both ways, and a database that
 * is down or refuses us — a 503 or one line, never the password.
 */
import { serve, type ServerType } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { DEMO_WORKSPACE_ID, seedDemoDatabase } from '../../src/node/demo/builder';
import { ReportCache } from '../../src/node/report/report-cache';
import { ReportService } from '../../src/node/report/service';
import { createApp } from '../../src/node/server/app';
import { start } from '../../src/node/server/start';
import { openStore } from '../../src/node/storage/open';
import { openPostgres } from '../../src/node/storage/postgres/postgres-store';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import type { Store } from '../../src/node/storage/store';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { captureIo } from '../support/cli';
import { createDatabase } from '../support/postgres';

let dir: string;
let sqlitePath: string;
let pgUrl: string;
const TOKEN = 'pg-demo-token';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-pg-'));
  sqlitePath = join(dir, 'investibook.db');
  await seedDemoDatabase(sqlitePath, TOKEN);
  pgUrl = await createDatabase(inject('postgresUrl'), 'demo');
  const io = captureIo(dir);
  expect(await run(['db', 'copy', '--from', sqlitePath, '--to', pgUrl], io)).toBe(0);
  expect(io.stdout()).toMatch(
    /^Copied \d+ users, .* \d+ messages_v2, \d+ interaction_token_usage, \d+ session_runtime, \d+ session_origins, \d+ token_counts, \d+ message_analyses from /,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HISTORY = 'History before the latest compaction';

/**
 * The report, with what names this very read (its time and snapshot) set aside, and the stored
 * size of the history rounded: JSONB keeps a canonical text a little longer than the compact
 * JSON SQLite keeps (`"a": 1` for `"a":1`), and that size is what is stored.
 */
async function reportOn(store: Store): Promise<ContextReport> {
  return comparable(
    await new ReportService(store, { now: () => new Date(0) }).report({ workspaceId: DEMO_WORKSPACE_ID, items: 'all' }),
  );
}

function comparable(value: unknown): ContextReport {
  const report = contextReportSchema.parse(value);
  const history = report.excluded.find((e) => e.label === HISTORY);
  if (history) history.bytes = Math.round(history.bytes / 2000) * 2000;
  return { ...report, snapshotId: '', generatedAt: '' };
}

describe('PostgreSQL', () => {
  it('gives the report SQLite gives for the same rows, and reads without writing', async () => {
    const sqlite = await openSqlite(sqlitePath, { readOnly: true });
    const postgres = await openPostgres(pgUrl, { readOnly: true, dataDir: dir });
    const writer = await openPostgres(pgUrl, { readOnly: false, dataDir: dir });
    try {
      const before = await writer.contentRows();
      const expected = await reportOn(sqlite);
      expect(expected.estimate.totalTokens).toBeGreaterThan(1000);
      expect(await reportOn(postgres)).toEqual(expected);
      expect(await writer.contentRows()).toEqual(before);
      // The report store cannot write, whatever code runs on it.
      await expect(postgres.insertUser('usr_intruder', 'Intruder')).rejects.toThrow(/read-only transaction/);
    } finally {
      await Promise.all([sqlite.close(), postgres.close(), writer.close()]);
    }
  });

  it('copies back to SQLite row for row, and refuses to copy into a database that has data', async () => {
    const back = join(dir, 'back.db');
    const io = captureIo(dir);
    expect(await run(['db', 'copy', '--from', pgUrl, '--to', back], io)).toBe(0);
    const original = await openSqlite(sqlitePath, { readOnly: true });
    const copy = await openSqlite(back, { readOnly: true });
    try {
      const parsed = async (store: Store) =>
        (await store.contentRows()).map((line) => (line.startsWith('#') ? line : normalise(JSON.parse(line))));
      expect(await parsed(copy)).toEqual(await parsed(original));
      expect(await reportOn(copy)).toEqual(await reportOn(original));
    } finally {
      await Promise.all([original.close(), copy.close()]);
    }
    const again = captureIo(dir);
    expect(await run(['db', 'copy', '--from', sqlitePath, '--to', pgUrl], again)).toBe(2);
    expect(again.stderr()).toMatch(
      /^investibook: the target already has rows in users: copy only into an empty database\n$/,
    );
  });

  it('answers the CLI with --database-url, relative roots under --data-dir', async () => {
    const io = captureIo(dir);
    const code = await run(
      ['debug', 'context', DEMO_WORKSPACE_ID, '--database-url', pgUrl, '--data-dir', dir, '--json'],
      io,
    );
    expect(io.stderr()).toBe('');
    expect(code).toBe(0);
    const report = comparable(JSON.parse(io.stdout()));
    expect(report.warnings.join('\n')).not.toMatch(/workspace folder not found/);
    const sqlite = await openSqlite(sqlitePath, { readOnly: true });
    expect(report).toEqual(await reportOn(sqlite));
    await sqlite.close();
  });

  it('never answers from one instance’s memory what another instance changed, even at the same time_updated', async () => {
    const url = await createDatabase(inject('postgresUrl'), 'stale');
    const io = captureIo(dir);
    expect(await run(['db', 'copy', '--from', sqlitePath, '--to', url], io)).toBe(0);
    const mine = await openPostgres(url, { readOnly: true, dataDir: dir });
    const theirs = await openPostgres(url, { readOnly: false, dataDir: dir });
    try {
      const service = new ReportService(mine, { cache: new ReportCache() });
      const report = () => service.report({ workspaceId: DEMO_WORKSPACE_ID, items: 'all' });
      const before = await report();
      const [last] = (await theirs.listMessages(DEMO_WORKSPACE_ID, before.sessionId!)).slice(-1);
      // Another instance rewrites the newest message and keeps its time_updated.
      await theirs.upsertMessage({
        id: last!.id,
        workspaceId: DEMO_WORKSPACE_ID,
        sessionId: last!.session_id,
        timeCreated: last!.time_created,
        timeUpdated: last!.time_updated,
        info: JSON.parse(String(last!.info)),
        parts: [{ id: 'prt_x', type: 'text', text: 'rewritten by another instance' }],
      });
      const after = await report();
      expect(after.snapshotId).not.toBe(before.snapshotId);
      expect(JSON.stringify([after.sources, after.pending])).toContain('rewritten by another instance');
    } finally {
      await Promise.all([mine.close(), theirs.close()]);
    }
  });

  it('starts two instances together on an empty database: one seeds the demo, both serve it', async () => {
    const url = await createDatabase(inject('postgresUrl'), 'together');
    const dataDir = mkdtempSync(join(tmpdir(), 'investibook-together-'));
    const options = { database: url, dataDir, port: 0, build: false, token: 'together-token', log: () => {} };
    const [a, b] = await Promise.all([start(options), start(options)]);
    try {
      for (const server of [a, b]) {
        const response = await fetch(`${new URL(server.url).origin}/api/workspace/demo`, {
          headers: { Authorization: 'Bearer together-token' },
        });
        expect(response.status).toBe(200);
      }
      const store = await openPostgres(url, { readOnly: true, dataDir });
      expect((await store.listWorkspaces()).map((w) => w.id)).toEqual(['demo']);
      await store.close();
    } finally {
      await Promise.all([a.close(), b.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('says in one line that a database is unreachable or refuses us, never with its password', async () => {
    const closed = `postgres://investibook:sekrit-password@127.0.0.1:${await closedPort()}/nowhere`;
    const wrongDb = new URL(inject('postgresUrl'));
    wrongDb.pathname = '/no_such_database';
    wrongDb.password = 'sekrit-password';
    for (const url of [closed, wrongDb.toString(), 'postgres://user:sekrit-password@[not a host/x']) {
      const io = captureIo(dir);
      const code = await run(['debug', 'context', 'demo', '--database-url', url], io);
      expect(code).toBe(1);
      expect(io.stderr()).toMatch(/^investibook: .+\n$/);
      expect(io.stderr()).not.toContain('sekrit');
    }
    await expect(openStore({ location: closed })).rejects.toThrow(/unreachable/);
  });

  it('answers 503 while the database is down and recovers when it is back, health check included', async () => {
    const proxy = await tcpProxy(new URL(pgUrl).port);
    const viaProxy = new URL(pgUrl);
    viaProxy.port = String(proxy.port);
    const store = await openPostgres(viaProxy.toString(), { readOnly: false, dataDir: dir });
    const reportStore = await openPostgres(viaProxy.toString(), { readOnly: true, dataDir: dir });
    const app = createApp({ store, reportStore });
    const server: ServerType = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((ok) => server.once('listening', ok));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = (path: string) => fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    try {
      expect((await get('/healthz')).status).toBe(200);
      expect((await get(`/api/workspace/${DEMO_WORKSPACE_ID}/debug/context`)).status).toBe(200);

      proxy.down();
      const health = await get('/healthz');
      expect(health.status).toBe(503);
      const report = await get(`/api/workspace/${DEMO_WORKSPACE_ID}/debug/context`);
      expect(report.status).toBe(503);
      expect(await report.json()).toMatchObject({ error: { code: 'database_unavailable' } });

      await proxy.up();
      expect((await get('/healthz')).status).toBe(200);
      expect((await get(`/api/workspace/${DEMO_WORKSPACE_ID}/debug/context`)).status).toBe(200);
    } finally {
      await new Promise((done) => server.close(done));
      proxy.close();
      await Promise.all([store.close().catch(() => {}), reportStore.close().catch(() => {})]);
    }
  });
});

/** JSONB normalises a document's spacing and key order: compare parsed JSON columns. */
function normalise(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    out[key] = typeof value === 'string' && /^[[{]/.test(value) ? sortKeys(JSON.parse(value)) : value;
  }
  return out;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  }
  return value;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** A TCP proxy to the database that can be taken down (every connection cut, new ones refused) and up. */
async function tcpProxy(targetPort: string) {
  const sockets = new Set<Socket>();
  let listening: Server | null = null;
  let port = 0;
  const up = async () => {
    const server = createServer((client) => {
      const upstream = new Socket();
      sockets.add(client).add(upstream);
      upstream.connect(Number(targetPort), '127.0.0.1');
      client.pipe(upstream).pipe(client);
      const drop = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
    port = (server.address() as AddressInfo).port;
    listening = server;
  };
  await up();
  return {
    get port() {
      return port;
    },
    down() {
      listening?.close();
      listening = null;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    up,
    close() {
      this.down();
    },
  };
}
