/**
 * Two server processes (`npm start`'s entry) on one PostgreSQL database, as a team runs them
 * behind a proxy: what one writes the other lists, both answer the same report, a sign-in is
 * valid on both, and 200 concurrent reports spread over both lose nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPostgres } from '../../src/node/storage/postgres/postgres-store';
import { contextReportSchema, messagesResponseSchema } from '../../src/shared/wire';
import { createDatabase } from '../support/postgres';
import { startServerProcess, type ServerProcess } from '../support/server-process';

const TOKEN = 'two-instances-token';
let dir: string;
let url: string;
let a: ServerProcess;
let b: ServerProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-instances-'));
  url = await createDatabase(inject('postgresUrl'), 'instances');
  const env = { INVESTIBOOK_DATABASE_URL: url, INVESTIBOOK_DATA_DIR: dir };
  // The first seeds the empty database with the demo; the second finds it seeded.
  a = await startServerProcess('', TOKEN, env);
  b = await startServerProcess('', TOKEN, env);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
const api = (server: ServerProcess, path: string, init: RequestInit = {}) =>
  fetch(`${server.origin}/api/workspace/demo${path}`, { headers, ...init });

describe('two instances on one PostgreSQL database', () => {
  it('list what the other wrote, answer the same report, and share sign-ins', async () => {
    const posted = await api(a, '/messages', { method: 'POST', body: JSON.stringify({ text: 'written through A' }) });
    expect(posted.status).toBe(201);
    const { messages } = messagesResponseSchema.parse(await (await api(b, '/messages')).json());
    expect(JSON.stringify(messages)).toContain('written through A');

    const report = async (server: ServerProcess) => {
      const body = contextReportSchema.parse(await (await api(server, '/debug/context?items=all')).json());
      return { ...body, generatedAt: '' };
    };
    const fromA = await report(a);
    expect(fromA.sessionId).not.toBeNull();
    expect(await report(b)).toEqual(fromA);

    const signIn = await fetch(`${a.origin}/w/demo?token=${TOKEN}`, { redirect: 'manual' });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    expect((await fetch(`${b.origin}/api/workspace/demo`, { headers: { Cookie: cookie } })).status).toBe(200);
    expect((await fetch(`${b.origin}/healthz`)).status).toBe(200);
  });

  it('serve 200 concurrent reports and 50 concurrent posts over both without losing anything', async () => {
    const store = await openPostgres(url, { readOnly: true, dataDir: dir });
    const count = async () =>
      (await store.contentRows()).filter((line) => line.includes('"workspace_id":"demo"')).length;
    try {
      const before = await count();
      const servers = [a, b];
      const [reports, posts] = await Promise.all([
        Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            api(servers[i % 2]!, '/debug/context').then(async (r) => ({ status: r.status, body: await r.json() })),
          ),
        ),
        Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            api(servers[i % 2]!, '/messages', { method: 'POST', body: JSON.stringify({ text: `concurrent ${i}` }) }),
          ),
        ),
      ]);
      // Any refusal with its body: which error, not only how many.
      expect(reports.filter((r) => r.status !== 200).map((r) => r.body)).toEqual([]);
      for (const r of reports) expect(contextReportSchema.safeParse(r.body).success).toBe(true);
      expect(posts.map((p) => p.status)).toEqual(Array(50).fill(201));
      expect(await count()).toBe(before + 50);
    } finally {
      await store.close();
    }
  });
});
