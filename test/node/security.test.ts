/**
 * The access matrix over every API route, identical 404s, tokens kept out of logs, and the
 * headers of the web app.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/node/server/app';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import type { Store } from '../../src/node/storage/store';
import { contextReportSchema } from '../../src/shared/wire';
import { memoryLogger } from '../support/logs';
import { withoutRequestId } from '../support/request-id';
import { addMessages, createFixture, OTHER_TOKEN, text, TOKEN, WS, type Fixture } from '../support/fixtures';

let fx: Fixture;
let app: ReturnType<typeof createApp>;

beforeEach(async () => {
  fx = await createFixture({ 'AGENTS.md': 'rules' });
  addMessages(fx, [{ role: 'user', parts: [text('hello')] }]);
  app = createApp({ store: fx.store, reportStore: fx.store });
});
afterEach(() => fx.cleanup());

const CALLERS: [name: string, headers: Record<string, string>, status: number | 'ok'][] = [
  ['no credentials', {}, 401],
  ['an unknown token', { Authorization: 'Bearer not-a-token' }, 401],
  ['a non-member', { Authorization: `Bearer ${OTHER_TOKEN}` }, 404],
  ['a member', { Authorization: `Bearer ${TOKEN}` }, 'ok'],
];

/**
 * Every workspace route the app serves, read from the app itself: a new route joins the matrix
 * without anyone editing this list (and fails it until it is behind the access check).
 */
function workspaceRoutes(): [method: string, path: string][] {
  const seen = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL' || !route.path.startsWith('/api/workspace/:id')) continue;
    seen.add(`${route.method} ${route.path.slice('/api/workspace/:id'.length)}`);
  }
  return [...seen].sort().map((key) => key.split(' ') as [string, string]);
}

/** What a member needs to send for a route to get past its own checks. */
const BODIES: Record<string, string> = {
  'POST /messages': JSON.stringify({ text: 'a note' }),
  'POST /agent/prompt': JSON.stringify({ text: 'hello' }),
  'POST /agent/cancel': JSON.stringify({ sessionId: 'ses_none' }),
  'POST /agent/compact': JSON.stringify({ sessionId: 'ses_none' }),
  'POST /agent/new-session': JSON.stringify({ sessionId: 'ses_none', text: 'a hand-off' }),
  'POST /agent/revert': JSON.stringify({ sessionId: 'ses_none', messageId: 'msg_none' }),
};
/** A member's answer where it is not a success: the route's own, given past the access check. */
const MEMBER_ANSWERS: Record<string, [status: number, code: string]> = {
  'POST /agent/prompt': [409, 'agent_not_configured'], // this app has no agent
  'POST /agent/cancel': [404, 'no_turn'],
  'POST /agent/compact': [409, 'agent_not_configured'],
  'POST /agent/new-session': [409, 'agent_not_configured'],
  'POST /agent/revert': [409, 'agent_not_configured'],
};

async function concrete(path: string): Promise<string> {
  if (!path.includes(':itemId')) return path;
  const response = await app.request(`/api/workspace/${WS}/debug/context`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  const report = contextReportSchema.parse(await response.json());
  return path.replace(':itemId', encodeURIComponent(report.sources.flatMap((s) => s.items)[0]!.id));
}

describe('access matrix', () => {
  it('is drawn from the routes the app serves, the item and reader routes among them', () => {
    const paths = workspaceRoutes().map(([method, path]) => `${method} ${path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'GET ',
        'GET /debug/context',
        'GET /debug/context/items/:itemId',
        'GET /debug/context/reader',
        'GET /messages',
        'POST /messages',
        'GET /usage',
        'GET /agent',
        'POST /agent/prompt',
        'POST /agent/cancel',
      ]),
    );
  });

  it.each(CALLERS)('answers every workspace route as it should for %s', async (_name, headers, status) => {
    for (const [method, template] of workspaceRoutes()) {
      const where = `${method} ${template}`;
      const path = await concrete(template);
      const body = BODIES[where];
      const init = { method, headers: { ...headers, 'Content-Type': 'application/json' }, ...(body ? { body } : {}) };
      const response = await app.request(`/api/workspace/${WS}${path}`, init);
      const own = MEMBER_ANSWERS[where];
      if (status === 'ok' && own) {
        expect(response.status, where).toBe(own[0]);
        expect(((await response.clone().json()) as { error: { code: string } }).error.code, where).toBe(own[1]);
      } else if (status === 'ok') expect([200, 201], where).toContain(response.status);
      else expect(response.status, where).toBe(status);
      if (status === 404) {
        const missing = await app.request(`/api/workspace/ws_missing${path}`, {
          ...init,
          headers: { ...init.headers, Authorization: `Bearer ${TOKEN}` },
        });
        expect(missing.status, where).toBe(404);
        expect(withoutRequestId(await response.text()), where).toBe(withoutRequestId(await missing.text()));
      }
    }
  });
});

describe('the workspace list', () => {
  it('needs a sign-in and lists only the workspaces the caller belongs to', async () => {
    expect((await app.request('/api/workspaces')).status).toBe(401);
    const list = async (token: string) =>
      (await (await app.request('/api/workspaces', { headers: { Authorization: `Bearer ${token}` } })).json()) as {
        workspaces: { id: string }[];
      };
    expect((await list(TOKEN)).workspaces.map((w) => w.id)).toEqual([WS]);
    expect((await list(OTHER_TOKEN)).workspaces.map((w) => w.id)).not.toContain(WS);
  });
});

describe('tokens stay out of logs', () => {
  it('logs server errors by method and path, with the request id, never a query string or a header', async () => {
    const broken: Store = Object.assign(Object.create(fx.store) as Store, {
      snapshot: async () => {
        throw new Error('disk on fire');
      },
    });
    const { logger, lines } = memoryLogger('debug'); // request lines too
    const failing = createApp({ store: fx.store, reportStore: broken, logger });
    const response = await failing.request(`/api/workspace/${WS}/debug/context?token=${TOKEN}`, {
      headers: { Authorization: `Bearer ${TOKEN}`, Cookie: `investibook_token=${TOKEN}`, 'X-Custom': TOKEN },
    });
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { requestId: string } };
    expect(body).toEqual({
      error: { code: 'internal', message: 'Something went wrong on the server', requestId: expect.any(String) },
    });
    expect(response.headers.get('x-request-id')).toBe(body.error.requestId);
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.map((l) => l.msg)).toEqual(['request failed', 'request']);
    for (const line of logged) expect(line.requestId).toBe(body.error.requestId);
    expect(logged[0]).toMatchObject({ method: 'GET', path: `/api/workspace/${WS}/debug/context`, level: 50 });
    expect(lines.join('\n')).toContain('disk on fire');
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect(lines.join('\n')).not.toMatch(/token=|authorization|cookie|x-custom/i);
  });

  it('logs a sign-in link by its path only', async () => {
    const { logger, lines } = memoryLogger('debug');
    const web = createApp({ store: fx.store, reportStore: fx.store, logger });
    expect((await web.request(`/w/${WS}?token=${TOKEN}`)).status).toBe(302);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'request', method: 'GET', path: `/w/${WS}`, status: 302 });
    expect(lines[0]).not.toContain(TOKEN);
  });

  it('answers every error with its request id, a proxy’s own when it sent a well-formed one', async () => {
    const given = await app.request('/api/workspaces', { headers: { 'X-Request-Id': 'proxy-42' } });
    expect(given.status).toBe(401);
    expect(given.headers.get('x-request-id')).toBe('proxy-42');
    expect(await given.json()).toMatchObject({ error: { code: 'unauthorized', requestId: 'proxy-42' } });
    const odd = await app.request('/api/workspaces', { headers: { 'X-Request-Id': 'not ok\u00e9' } });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(((await odd.json()) as { error: { requestId: string } }).error.requestId).toBe(
      odd.headers.get('x-request-id'),
    );
  });
});

describe('the web app', () => {
  it('is served with a strict CSP, no referrer, and an SPA fallback', async () => {
    const webRoot = mkdtempSync(join(tmpdir(), 'investibook-web-'));
    try {
      writeFileSync(
        join(webRoot, 'index.html'),
        '<!doctype html><div id="root"></div><script type="module" src="/assets/app.js"></script>',
      );
      const reportStore = await openSqlite(fx.dbPath, { readOnly: true });
      const web = createApp({ store: fx.store, reportStore, webRoot });
      const page = await web.request('/w/ws_test');
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await web.request('/assets/missing.js')).status).toBe(404);
      await reportStore.close();
    } finally {
      rmSync(webRoot, { recursive: true, force: true });
    }
  });
});
