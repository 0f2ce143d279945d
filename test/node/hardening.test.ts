/**
 * Attacks on a running server and on the CLI (issue 11), as real HTTP requests and real
 * processes: cross-origin writes with the sign-in cookie, Host names, redirects, a sign-in link
 * for another user, a locked or deleted database, and file-system paths that used to hang.
 */
import { serve, type ServerType } from '@hono/node-server';
import BetterSqlite3 from 'better-sqlite3';
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/node/server/app';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { addMessages, createFixture, OTHER_TOKEN, text, TOKEN, WS, type Fixture } from '../support/fixtures';
import { PROJECT } from '../support/server-process';

let fx: Fixture;
let server: ServerType;
let origin: string;

async function listen(allowedHosts: string[] = []): Promise<void> {
  const reportStore = await openSqlite(fx.dbPath, { readOnly: true });
  const app = createApp({ store: fx.store, reportStore, allowedHosts });
  server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((ok) => server.once('listening', ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = fx.cleanup;
  fx.cleanup = async () => {
    await new Promise((done) => server.close(done));
    await reportStore.close();
    await close();
  };
}

beforeEach(async () => {
  fx = await createFixture({ 'AGENTS.md': 'rules' });
  addMessages(fx, [{ role: 'user', parts: [text('hello')] }]);
  await listen();
});
afterEach(() => fx.cleanup());

/** The sign-in cookie, as a browser gets it from the sign-in link. */
async function signIn(token = TOKEN): Promise<string> {
  const response = await fetch(`${origin}/w/${WS}?token=${token}`, { redirect: 'manual' });
  const cookie = response.headers.get('set-cookie');
  expect(cookie).toMatch(/^investibook_token=/);
  return cookie!.split(';')[0]!;
}

const messageCount = () => (fx.raw.prepare('SELECT COUNT(*) AS n FROM messages_v2').get() as { n: number }).n;

describe('writes with the sign-in cookie', () => {
  const body = JSON.stringify({ text: 'planted' });
  it.each([
    [
      'a form posting JSON as text/plain from another port',
      { 'Content-Type': 'text/plain', Origin: 'http://127.0.0.1:9999' },
    ],
    [
      'a urlencoded form from another site',
      { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://evil.example' },
    ],
    ['a no-cors fetch without a content type', { Origin: 'http://127.0.0.1:9999', 'Sec-Fetch-Site': 'same-site' }],
    ['JSON from another port', { 'Content-Type': 'application/json', Origin: 'http://127.0.0.1:9999' }],
    ['JSON from a sandboxed page', { 'Content-Type': 'application/json', Origin: 'null' }],
    ['JSON that says it is cross-site', { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'cross-site' }],
    ['JSON that says nothing of where it comes from', { 'Content-Type': 'application/json' }],
    [
      'a multipart form from another site',
      { 'Content-Type': 'multipart/form-data; boundary=x', Origin: 'http://evil.example' },
    ],
    [
      'JSON from another port that sends only Fetch Metadata',
      { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'same-site' },
    ],
    ['JSON that no page sent (Sec-Fetch-Site: none)', { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'none' }],
    [
      'JSON from another site that claims same-origin Fetch Metadata',
      { 'Content-Type': 'application/json', Origin: 'http://evil.example', 'Sec-Fetch-Site': 'same-origin' },
    ],
    ['JSON whose Origin is not a URL', { 'Content-Type': 'application/json', Origin: 'garbage' }],
    ['JSON from https on another port', { 'Content-Type': 'application/json', Origin: 'https://127.0.0.1:9999' }],
    [
      'JSON with Fetch Metadata no browser sends',
      { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'same-origin-ish' },
    ],
  ])('refuses %s and stores nothing', async (_name, headers) => {
    const cookie = await signIn();
    const before = messageCount();
    const response = await fetch(`${origin}/api/workspace/${WS}/messages`, {
      method: 'POST',
      headers: { ...headers, Cookie: cookie },
      body,
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'cross_origin_write' } });
    expect(messageCount()).toBe(before);
  });

  it('accepts JSON from the app’s own pages, by Origin or by Fetch Metadata', async () => {
    const cookie = await signIn();
    const before = messageCount();
    for (const where of [{ Origin: origin }, { 'Sec-Fetch-Site': 'same-origin' }] as Record<string, string>[]) {
      const response = await fetch(`${origin}/api/workspace/${WS}/messages`, {
        method: 'POST',
        headers: { ...where, Cookie: cookie, 'Content-Type': 'application/json' },
        body,
      });
      expect(response.status).toBe(201);
    }
    expect(messageCount()).toBe(before + 2);
  });

  it('lets bearer-token clients (the CLI, scripts) write without an Origin, as JSON only', async () => {
    const post = (type: string) =>
      fetch(`${origin}/api/workspace/${WS}/messages`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': type },
        body,
      });
    expect((await post('application/json')).status).toBe(201);
    const refused = await post('text/plain');
    expect(refused.status).toBe(415);
    expect(await refused.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });
});

describe('Host names', () => {
  /** fetch() never sends a Host other than the URL's: this speaks HTTP with the Host given. */
  const withHost = (host: string) =>
    new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: new URL(origin).port,
          path: `/api/workspace/${WS}`,
          headers: { Host: host, Authorization: `Bearer ${TOKEN}` },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      request.on('error', reject);
      request.end();
    });

  it('answers loopback names on any port and refuses others with 421', async () => {
    expect(await withHost('127.0.0.1:8787')).toBe(200);
    expect(await withHost('localhost:1234')).toBe(200);
    expect(await withHost('localhost')).toBe(200);
    expect(await withHost('evil.example')).toBe(421);
    expect(await withHost('rebind.evil.example:8787')).toBe(421);
  });

  it('answers the names of INVESTIBOOK_ALLOWED_HOSTS', async () => {
    await new Promise((done) => server.close(done));
    await listen(['investibook.internal']);
    expect(await withHost('investibook.internal')).toBe(200);
    expect(await withHost('investibook.internal:443')).toBe(200);
    expect(await withHost('other.internal')).toBe(421);
  });
});

describe('the sign-in link', () => {
  it('redirects only to paths on this server', async () => {
    for (const path of ['//evil.example/x', '/\\evil.example/x', '///evil.example']) {
      const response = await fetch(`${origin}${path}?token=anything`, { redirect: 'manual' });
      expect(response.status).toBe(302);
      const location = response.headers.get('location')!;
      expect(location).toMatch(/^\/[^/\\]/);
      expect(new URL(location, origin).origin).toBe(origin);
    }
  });

  it('asks before replacing the sign-in of another user, and switches when told to', async () => {
    const mine = await signIn(TOKEN);
    const other = await fetch(`${origin}/w/${WS}?token=${OTHER_TOKEN}`, {
      headers: { Cookie: mine },
      redirect: 'manual',
    });
    expect(other.status).toBe(409);
    expect(other.headers.get('set-cookie')).toBeNull();
    const page = await other.text();
    expect(page).toContain('Switch user?');
    const proceed = /href="([^"]*switch_user=1[^"]*)"/.exec(page)![1]!.replaceAll('&#38;', '&');
    const switched = await fetch(`${origin}${proceed}`, { headers: { Cookie: mine }, redirect: 'manual' });
    expect(switched.status).toBe(302);
    expect(switched.headers.get('set-cookie')).toContain(`investibook_token=${OTHER_TOKEN}`);
    expect(switched.headers.get('location')).toBe(`/w/${WS}`);
    // The same user's link again, or a first sign-in, never asks.
    expect(
      (await fetch(`${origin}/w/${WS}?token=${TOKEN}`, { headers: { Cookie: mine }, redirect: 'manual' })).status,
    ).toBe(302);
  });
});

describe('the database under pressure', () => {
  it('answers 503 database_busy while another process holds the write lock, and reads keep flowing', async () => {
    // The lock is held until every answer is in: a write or read that waited for it would never
    // answer (the test's timeout). How long the 503 takes is measured by npm run bench.
    const other = new BetterSqlite3(fx.dbPath);
    other.exec('BEGIN IMMEDIATE');
    try {
      const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
      const write = fetch(`${origin}/api/workspace/${WS}/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ text: 'while locked' }),
      });
      const read = fetch(`${origin}/api/workspace/${WS}/debug/context`, { headers });
      const messages = await fetch(`${origin}/api/workspace/${WS}/messages`, { headers });
      expect(messages.status).toBe(200);
      expect((await read).status).toBe(200);
      const written = await write;
      expect(written.status).toBe(503);
      expect(written.headers.get('retry-after')).toBe('1');
      expect(await written.json()).toMatchObject({ error: { code: 'database_busy' } });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(JSON.stringify(fx.raw.prepare('SELECT parts FROM messages_v2').all())).not.toContain('while locked');
  });

  it('refuses writes with 503 when the database file was deleted under it, instead of losing them', async () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${fx.dbPath}${suffix}`, { force: true });
    const response = await fetch(`${origin}/api/workspace/${WS}/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'into the void' }),
    });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: { code: 'database_unavailable' } });
  });
});

describe('responses', () => {
  it.each(['', '/messages', '/usage', '/debug/context', '/agent'])('…%s is never cached', async (path) => {
    const response = await fetch(`${origin}/api/workspace/${WS}${path}`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('never caches a write’s answer or an error either', async () => {
    const posted = await fetch(`${origin}/api/workspace/${WS}/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'kept' }),
    });
    expect(posted.status).toBe(201);
    expect(posted.headers.get('cache-control')).toBe('no-store');
    const missing = await fetch(`${origin}/api/workspace/nope`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['PUT', '', 'GET, HEAD'],
    ['DELETE', '/usage', 'GET, HEAD'],
    ['PATCH', '/messages', 'GET, HEAD, POST'],
    ['GET', '/agent/prompt', 'POST'],
    ['DELETE', '/debug/context', 'GET, HEAD'],
  ])('%s …%s answers 405 with Allow: %s', async (method, path, allow) => {
    const response = await fetch(`${origin}/api/workspace/${WS}${path}`, {
      method,
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toMatchObject({ error: { code: 'method_not_allowed' } });
  });
});

// A hang is what fails here, not a slow machine: each process is killed after 20 s, and a test
// runs up to three (how fast a failure answers is measured by npm run bench).
describe('file-system failures end in one line', { timeout: 90_000 }, () => {
  const BIN = join(PROJECT, 'bin/investibook.js');
  const START = join(PROJECT, 'bin/start.js');
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'investibook-paths-'));
  });
  // The processes a test started: a hang is killed when its test ends (at the test's timeout).
  const running = new Set<ChildProcess>();
  afterEach(() => {
    for (const child of running) child.kill('SIGKILL');
    running.clear();
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A real process: its exit code and output. No time bound of its own (a loaded machine
   * stretches a start past any fixed one); a hang fails at the test's timeout.
   */
  const runProcess = (file: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
    new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [file, ...args],
        { env: { ...process.env, ...env } },
        (error, stdout, stderr) => {
          running.delete(child);
          const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
          resolve({ code, stderr, stdout });
        },
      );
      running.add(child);
    });

  const expectOneLine = (result: { code: number | null; stderr: string }, code: number, message: RegExp) => {
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  };

  it('db init on an impossible path', async () => {
    expectOneLine(await runProcess(BIN, ['db', 'init', '--db', '/proc/nope/x.db']), 1, /^investibook: cannot/);
  });

  it('debug context on a FIFO, a device and a folder', async () => {
    const fifo = join(dir, 'db.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const db of [fifo, '/dev/zero', dir]) {
      expectOneLine(await runProcess(BIN, ['debug', 'context', 'demo', '--db', db]), 1, /not a database file/);
    }
  });

  it('npm start on a corrupt database and on a port in use', async () => {
    const corrupt = join(dir, 'corrupt.db');
    writeFileSync(corrupt, 'this is not a database '.repeat(100));
    expectOneLine(
      await runProcess(START, [], { INVESTIBOOK_DB: corrupt, PORT: '0' }),
      1,
      /^investibook: cannot open database/,
    );

    const busy = createServer();
    await new Promise<void>((ok) => busy.listen(0, '127.0.0.1', ok));
    try {
      const port = String((busy.address() as AddressInfo).port);
      const result = await runProcess(START, [], { INVESTIBOOK_DB: join(dir, 'fresh.db'), PORT: port });
      expectOneLine(result, 1, new RegExp(`^investibook: port ${port} is in use`));
    } finally {
      busy.close();
    }
  });

  it.skipIf(process.getuid?.() === 0)('debug context on a database it may not read', async () => {
    const locked = join(dir, 'locked.db');
    writeFileSync(locked, '');
    chmodSync(locked, 0o000);
    expectOneLine(await runProcess(BIN, ['debug', 'context', 'demo', '--db', locked]), 1, /^investibook: /);
    unlinkSync(locked);
  });
});
