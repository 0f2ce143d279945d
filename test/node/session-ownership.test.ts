/**
 * A session belongs to the workspace whose rows named it first: naming another workspace's
 * session answers exactly like naming one that does not exist, on every route; ids that no
 * database could hold alike (a NUL) are refused in words; and a report replica that has not
 * caught up with a session says so instead of claiming the session does not exist.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/node/server/app';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { addMessages, addUsage, createFixture, text, TOKEN, WS, type Fixture } from '../support/fixtures';
import { withoutRequestId } from '../support/request-id';

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
  addMessages(fx, [{ role: 'user', parts: [text('mine')], session: 'ses_mine' }]);
  addMessages(fx, [{ role: 'user', parts: [text('theirs, secret')], session: 'ses_theirs' }], 'ws_theirs');
});
afterEach(() => fx.cleanup());

const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
const call = (app: Awaited<ReturnType<typeof fx.app>>, path: string, init: RequestInit = {}) =>
  app.request(`/api/workspace/${WS}${path}`, { ...init, headers });

describe('another workspace’s session', () => {
  it('answers like a session that does not exist, on every route, and is never written to', async () => {
    const app = await fx.app();
    const answers = async (session: string) => {
      const answer = async (response: Response | Promise<Response>) => {
        const r = await response;
        return [r.status, withoutRequestId((await r.text()).replaceAll(session, 'SESSION'))] as const;
      };
      // The reads together, the write after them: a write that starts the session while a read
      // is under way would make that read's answer depend on timing (replica_behind).
      const reads = await Promise.all(
        [
          call(app, `/messages?session_id=${session}`),
          call(app, `/usage?session_id=${session}`),
          call(app, `/debug/context?session_id=${session}`),
        ].map(answer),
      );
      const write = await answer(
        call(app, '/messages', { method: 'POST', body: JSON.stringify({ text: 'hijack', sessionId: session }) }),
      );
      return [...reads, write];
    };
    const theirs = await answers('ses_theirs');
    expect(theirs.slice(0, 3).map(([status]) => status)).toEqual([404, 404, 404]);
    // Reading: exactly the answers for a session that does not exist.
    expect(theirs.slice(0, 3)).toEqual((await answers('ses_nowhere')).slice(0, 3));
    // Writing into it: refused as not found; a new session id is this workspace's to start.
    expect(theirs[3]![0]).toBe(404);
    expect((await answers('ses_brand_new'))[3]![0]).toBe(201);
    expect(await fx.store.listMessages(WS, 'ses_theirs')).toEqual([]);
    expect(await fx.store.listMessages('ws_theirs', 'ses_theirs')).toHaveLength(1);
  });

  it('stays theirs even when this workspace’s rows name it later (rows from before the fix)', async () => {
    addMessages(fx, [{ role: 'user', parts: [text('planted')], session: 'ses_theirs' }]);
    addUsage(fx, 5000, { session: 'ses_theirs' });
    expect(await fx.store.sessionOwner('ses_theirs')).toBe('ws_theirs');
    const response = await call(await fx.app(), '/messages?session_id=ses_theirs');
    expect(response.status).toBe(404);
  });
});

describe('ids no database could hold alike', () => {
  it('refuse a control character in a session id in words (400), and never find one (404)', async () => {
    const app = await fx.app();
    for (const path of ['/messages', '/agent/prompt']) {
      const response = await call(app, path, {
        method: 'POST',
        body: JSON.stringify({ text: 'x', sessionId: 'a\u0000b' }),
      });
      expect(response.status, path).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'invalid_body' } });
    }
    expect((await call(app, '/messages?session_id=a%00b')).status).toBe(404);
    expect((await app.request('/api/workspace/a%00b', { headers })).status).toBe(404);
  });
});

describe('a report replica that has not caught up', () => {
  it('answers 503 replica_behind for a session the primary has, and 404 for one nobody has', async () => {
    // The replica: a copy of the database from before the session existed.
    const replicaPath = join(fx.dir, 'replica.db');
    fx.raw.exec(`VACUUM INTO '${replicaPath}'`);
    addMessages(fx, [{ role: 'user', parts: [text('new')], session: 'ses_fresh' }]);
    const reportStore = await openSqlite(replicaPath, { readOnly: true });
    try {
      const app = createApp({ store: fx.store, reportStore });
      const behind = await call(app, '/debug/context?session_id=ses_fresh');
      expect(behind.status).toBe(503);
      expect(behind.headers.get('retry-after')).toBe('1');
      expect(await behind.json()).toMatchObject({ error: { code: 'replica_behind' } });
      expect((await call(app, '/debug/context?session_id=ses_nowhere')).status).toBe(404);
      expect((await call(app, '/debug/context?session_id=ses_mine')).status).toBe(200);
    } finally {
      await reportStore.close();
    }
  });
});
