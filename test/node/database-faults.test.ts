/**
 * Database faults answer in words, quickly — real parts only, over real HTTP:
 *
 * - a PostgreSQL server of this test's own, frozen with SIGSTOP (the postmaster and every
 *   backend): /healthz and a workspace route answer 503 `database_timeout` by the server's own deadline, and 200
 *   again after SIGCONT without a restart;
 * - SQLite on a real full and a real read-only file system (as root: the server runs in a
 *   private mount namespace on a small tmpfs): a write answers 507 `disk_full` / 503
 *   `database_read_only`, /healthz 503 with that reason, every row written before stays, and
 *   writes work again once there is room / the mount is writable, without a restart;
 * - ids holding U+0000 on PostgreSQL answer like SQLite: a workspace or session that does not
 *   exist (404), never a 500.
 */
import { serve, type ServerType } from '@hono/node-server';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { sha256Hex } from '../../src/node/auth';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import { createApp } from '../../src/node/server/app';
import { openPostgres, storeError } from '../../src/node/storage/postgres/postgres-store';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import type { Store } from '../../src/node/storage/store';
import { createDatabase, startPostgres } from '../support/postgres';
import { withoutRequestId } from '../support/request-id';
import { startServerProcess, type ServerProcess } from '../support/server-process';

const TOKEN = 'faults-token';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The app on two stores, served over real HTTP. */
async function serveApp(store: Store, reportStore: Store) {
  const server: ServerType = serve({ fetch: createApp({ store, reportStore }).fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((ok) => server.once('listening', ok));
  cleanups.push(async () => {
    await new Promise((done) => server.close(done));
    await Promise.all([store.close(), reportStore.close()]);
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A GET with the bearer token: its status and body. */
async function getAnswer(url: string) {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
  // Bodies are compared between servers: each answer's own request id left out.
  const body = JSON.parse(withoutRequestId(await response.text())) as Record<string, unknown>;
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body,
  };
}

async function seedSmall(store: Store) {
  await store.transaction(async (tx) => {
    await tx.insertUser('u1', 'One');
    await tx.insertTokenHash(sha256Hex(TOKEN), 'u1');
    await tx.insertWorkspace({ id: 'ws', name: 'W', root_path: '/nonexistent', created_at: 1 });
    await tx.addMember('ws', 'u1');
    await tx.insertMessage({
      id: 'msg_1',
      workspaceId: 'ws',
      sessionId: 'ses_1',
      timeCreated: 1,
      timeUpdated: 1,
      info: { role: 'user', time: { created: 1 } },
      parts: [{ id: 'prt_1', type: 'text', text: 'hello' }],
    });
  });
}

describe('a PostgreSQL server that stops answering', () => {
  it('answers 503 database_timeout by its own deadline, and 200 again after SIGCONT without a restart', async () => {
    const server = await startPostgres();
    cleanups.push(() => server.stop());
    const url = await server.createDatabase('frozen');
    const store = await openPostgres(url, { readOnly: false });
    const reportStore = await openPostgres(url, { readOnly: true });
    await seedSmall(store);
    const origin = await serveApp(store, reportStore);
    const health = () => getAnswer(`${origin}/healthz`);
    const messages = () => getAnswer(`${origin}/api/workspace/ws/messages`);
    expect((await health()).status).toBe(200);
    expect((await messages()).status).toBe(200);

    const processes = server.processes();
    expect(processes.length).toBeGreaterThan(2); // the postmaster, its workers, our backends
    const signal = (name: NodeJS.Signals) => {
      for (const pid of processes) {
        try {
          process.kill(pid, name);
        } catch {
          // that process has ended meanwhile
        }
      }
    };
    cleanups.push(() => signal('SIGCONT')); // whatever happens, never left frozen
    signal('SIGSTOP');
    try {
      const [h, m] = await Promise.all([health(), messages()]);
      expect(h).toMatchObject({
        status: 503,
        retryAfter: '1',
        body: { status: 'unavailable', reason: 'database_timeout' },
      });
      expect(m).toMatchObject({ status: 503, retryAfter: '1', body: { error: { code: 'database_timeout' } } });
      // No bound on how long they took (a loaded machine stretches any): the 503 with database_timeout is the
      // server's own deadline firing, which is what keeps a frozen database from hanging a request.
    } finally {
      signal('SIGCONT');
    }
    const [h, m] = await Promise.all([health(), messages()]);
    expect(h).toMatchObject({ status: 200, body: { status: 'ok', database: 'postgres' } });
    expect(m).toMatchObject({ status: 200, body: { sessionId: 'ses_1', messages: [{ id: 'msg_1' }] } });
  });
});

describe('a PostgreSQL database that accepts no writes', () => {
  it('answers 503 database_read_only, /healthz says so, reads still answer; a start on it is refused in words', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-pg-ro-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const pgUrl = await createDatabase(inject('postgresUrl'), 'readonly');
    const store = await openPostgres(pgUrl, { readOnly: false, dataDir: dir });
    await seedSmall(store);
    const origin = await serveApp(store, await openPostgres(pgUrl, { readOnly: true, dataDir: dir }));
    // A failover to a standby, or an operator's switch, under the running server: from now on
    // every session is read-only (SQLSTATE 25006 on a write); the server's sessions are new ones.
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${new URL(pgUrl).pathname.slice(1)}" SET default_transaction_read_only = on`);
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    // Until the server's old sessions are gone (their clients told): a condition, not a pause.
    const others = async () =>
      (
        await admin.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
      ).rows[0]!.n;
    while ((await others()) > 0) await new Promise((next) => setTimeout(next, 20));
    await admin.end();
    const post = () =>
      fetch(`${origin}/api/workspace/ws/messages`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'refused', sessionId: 'ses_1' }),
      });
    const posted = await post();
    expect(posted.status).toBe(503);
    expect(((await posted.json()) as { error: { code: string } }).error.code).toBe('database_read_only');
    const health = await fetch(`${origin}/healthz`);
    expect({ status: health.status, body: await health.json() }).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'database_read_only' },
    });
    const read = await getAnswer(`${origin}/api/workspace/ws/messages?session_id=ses_1`);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain('refused');
    // Starting on such a database: refused, in words (it cannot migrate).
    await expect(openPostgres(pgUrl, { readOnly: false, dataDir: dir })).rejects.toThrow(/accepts no writes/);
  });

  it('names a full disk on the server (SQLSTATE 53100) in words', () => {
    const mapped = storeError(Object.assign(new Error('could not extend file'), { code: '53100' }));
    expect(mapped).toMatchObject({ code: 'disk_full', message: 'the database server’s disk is full' });
  });
});

describe('ids holding U+0000', () => {
  it('answer on PostgreSQL as on SQLite: like a workspace or session that does not exist', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-nul-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const sqlitePath = join(dir, 'nul.db');
    const sqlite = await openSqlite(sqlitePath);
    await seedSmall(sqlite);
    const sqliteOrigin = await serveApp(sqlite, await openSqlite(sqlitePath, { readOnly: true }));
    const pgUrl = await createDatabase(inject('postgresUrl'), 'nul');
    const postgres = await openPostgres(pgUrl, { readOnly: false, dataDir: dir });
    await seedSmall(postgres);
    const pgOrigin = await serveApp(postgres, await openPostgres(pgUrl, { readOnly: true, dataDir: dir }));

    for (const path of [
      '/api/workspace/%00',
      '/api/workspace/ws%00',
      '/api/workspace/ws%00/messages',
      '/api/workspace/ws/messages?session_id=a%00b',
      '/api/workspace/ws/messages?session_id=ses_1%00',
      '/api/workspace/ws/usage?session_id=%00',
      '/api/workspace/ws/debug/context?session_id=ses_1%00',
    ]) {
      const [onSqlite, onPostgres] = await Promise.all([
        getAnswer(`${sqliteOrigin}${path}`),
        getAnswer(`${pgOrigin}${path}`),
      ]);
      expect(onSqlite.status, path).toBe(404);
      expect({ status: onPostgres.status, body: onPostgres.body }, path).toEqual({
        status: onSqlite.status,
        body: onSqlite.body,
      });
    }
    // The same ids without U+0000 are found on both.
    for (const origin of [sqliteOrigin, pgOrigin]) {
      expect((await getAnswer(`${origin}/api/workspace/ws/messages?session_id=ses_1`)).status).toBe(200);
    }
  });
});

const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot)('SQLite on a full and on a read-only file system', () => {
  /** The server in a mount namespace of its own, its data folder a small tmpfs there. */
  async function serverOnTmpfs(): Promise<{ server: ServerProcess; data: string; inside: (script: string) => number }> {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-fs-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const seeded = join(dir, 'seed', 'investibook.db');
    mkdirSync(join(dir, 'seed'));
    await seedDemoDatabase(seeded, TOKEN); // closed: its WAL folded into the file
    const data = join(dir, 'data');
    mkdirSync(data);
    const launcher = [
      'unshare',
      '-m',
      '--propagation',
      'private',
      'sh',
      '-c',
      `mount -t tmpfs -o size=8m investibook-test '${data}' && cp '${seeded}' '${data}/' && exec "$@"`,
      'sh',
    ];
    const server = await startServerProcess(join(data, 'investibook.db'), TOKEN, {}, 'start.js', launcher);
    cleanups.push(() => server.stop());
    // A shell in the server's mount namespace (nsenter): its exit code.
    const inside = (script: string) =>
      spawnSync('nsenter', ['-t', String(server.child.pid), '-m', '--', 'sh', '-c', script], { stdio: 'ignore' })
        .status ?? -1;
    return { server, data, inside };
  }

  const api = (server: ServerProcess) => {
    const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
    return {
      post: async (text: string, sessionId?: string) => {
        const response = await fetch(`${server.origin}/api/workspace/demo/messages`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ text, sessionId }),
        });
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: await response.json(),
        };
      },
      list: async (sessionId: string) => {
        const response = await fetch(`${server.origin}/api/workspace/demo/messages?session_id=${sessionId}`, {
          headers,
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { messages: { id: string }[] }).messages.map((m) => m.id);
      },
      health: async () => {
        const response = await fetch(`${server.origin}/healthz`);
        return { status: response.status, body: await response.json() };
      },
    };
  };

  it('a full disk: 507 disk_full, /healthz 503 disk_full, nothing lost, writes again once there is room', async () => {
    const { server, data, inside } = await serverOnTmpfs();
    const { post, list, health } = api(server);
    const first = await post('written before the disk filled');
    expect(first.status).toBe(201);
    const sessionId = first.body.message.sessionId as string;
    const before = await list(sessionId);
    expect(before).toContain(first.body.message.id);

    // Every byte left taken (the write fails with ENOSPC once the tmpfs is full).
    expect(inside(`head -c 64m /dev/zero > '${data}/filler'`)).not.toBe(0);
    const refused = await post('x'.repeat(100_000), sessionId);
    expect(refused).toMatchObject({ status: 507, retryAfter: '1', body: { error: { code: 'disk_full' } } });
    expect(await health()).toEqual({ status: 503, body: { status: 'unavailable', reason: 'disk_full' } });
    expect(await list(sessionId)).toEqual(before);

    expect(inside(`rm '${data}/filler'`)).toBe(0);
    expect((await health()).status).toBe(200);
    const after = await post('written once there was room again', sessionId);
    expect(after.status).toBe(201);
    expect(await list(sessionId)).toEqual([...before, after.body.message.id]);
  });

  it('a read-only file system: 503 database_read_only, /healthz says so, nothing lost, writes again once writable', async () => {
    const { server, data, inside } = await serverOnTmpfs();
    const { post, list, health } = api(server);
    const first = await post('written before the disk went read-only');
    expect(first.status).toBe(201);
    const sessionId = first.body.message.sessionId as string;
    const before = await list(sessionId);

    // The kernel refuses `mount -o remount,ro` while SQLite holds its files open for writing
    // (EBUSY), as for any busy file system: the data folder becomes read-only under the
    // running server by a read-only bind mount over it instead — writes through the path fail
    // with EROFS, even for root.
    expect(inside(`mount --bind '${data}' '${data}' && mount -o remount,bind,ro '${data}'`)).toBe(0);
    expect(inside(`touch '${data}/probe'`)).not.toBe(0);
    const refused = await post('refused: the disk is read-only', sessionId);
    expect(refused).toMatchObject({ status: 503, retryAfter: '1', body: { error: { code: 'database_read_only' } } });
    expect(await health()).toEqual({ status: 503, body: { status: 'unavailable', reason: 'database_read_only' } });
    expect(await list(sessionId)).toEqual(before);

    expect(inside(`umount '${data}'`)).toBe(0);
    expect((await health()).status).toBe(200);
    const after = await post('written once the disk was writable again', sessionId);
    expect(after.status).toBe(201);
    expect(await list(sessionId)).toEqual([...before, after.body.message.id]);
  });
});
