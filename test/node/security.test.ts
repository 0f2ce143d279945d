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
import { addMessages, createFixture, OTHER_TOKEN, text, TOKEN, WS, type Fixture } from '../support/fixtures';

let fx: Fixture;
let logs: string[];
let app: ReturnType<typeof createApp>;

beforeEach(() => {
  fx = createFixture({ 'AGENTS.md': 'rules' });
  addMessages(fx, [{ role: 'user', parts: [text('hello')] }]);
  logs = [];
  app = createApp({ store: fx.store, reportStore: fx.store, log: (line) => logs.push(line) });
});
afterEach(() => fx.cleanup());

const ROUTES: [method: string, path: string, body?: string][] = [
  ['GET', ''],
  ['GET', '/messages'],
  ['POST', '/messages', JSON.stringify({ text: 'a note' })],
  ['GET', '/usage'],
  ['GET', '/debug/context'],
];
const CALLERS: [name: string, headers: Record<string, string>, status: number | 'ok'][] = [
  ['no credentials', {}, 401],
  ['an unknown token', { Authorization: 'Bearer not-a-token' }, 401],
  ['a non-member', { Authorization: `Bearer ${OTHER_TOKEN}` }, 404],
  ['a member', { Authorization: `Bearer ${TOKEN}` }, 'ok'],
];

describe('access matrix', () => {
  for (const [method, path, body] of ROUTES) {
    it.each(CALLERS)(`${method} /api/workspace/{id}${path} for %s`, async (_name, headers, status) => {
      const init = { method, headers: { ...headers, 'Content-Type': 'application/json' }, ...(body ? { body } : {}) };
      const response = await app.request(`/api/workspace/${WS}${path}`, init);
      if (status === 'ok') expect([200, 201]).toContain(response.status);
      else expect(response.status).toBe(status);
      if (status === 404) {
        const missing = await app.request(`/api/workspace/ws_missing${path}`, {
          ...init,
          headers: { ...init.headers, Authorization: `Bearer ${TOKEN}` },
        });
        expect(missing.status).toBe(404);
        expect(await response.text()).toBe(await missing.text());
      }
    });
  }
});

describe('tokens stay out of logs', () => {
  it('logs server errors by path only', async () => {
    const broken: Store = Object.assign(Object.create(fx.store) as Store, {
      snapshot: async () => {
        throw new Error('disk on fire');
      },
    });
    const failing = createApp({ store: fx.store, reportStore: broken, log: (line) => logs.push(line) });
    const response = await failing.request(`/api/workspace/${WS}/debug/context?token=${TOKEN}`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { code: 'internal', message: 'Something went wrong on the server' },
    });
    expect(logs.join('\n')).toContain('disk on fire');
    expect(logs.join('\n')).not.toContain(TOKEN);
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
      const reportStore = openSqlite(fx.dbPath, { readOnly: true });
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
