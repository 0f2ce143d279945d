/** The HTTP app through `app.request`, without a port: auth, access, messages, usage, debug. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { createApp } from '../../src/node/server/app';
import { contextReportSchema, errorBodySchema, messagesResponseSchema, usageSchema } from '../../src/shared/wire';
import {
  addMessages,
  addUsage,
  createFixture,
  OTHER_TOKEN,
  sha256Hex,
  text,
  TOKEN,
  WS,
  type Fixture,
} from '../support/fixtures';
import { withoutRequestId } from '../support/request-id';

let fx: Fixture;
let app: ReturnType<typeof createApp>;

beforeEach(async () => {
  fx = await createFixture({ 'AGENTS.md': 'rules', 'evidence/a.txt': 'A' });
  fx.raw
    .prepare("INSERT INTO workspaces (id, name, root_path, created_at) VALUES ('ws_private', 'Not yours', 'x', 1)")
    .run();
  fx.raw.prepare("INSERT INTO workspace_members (workspace_id, user_id) VALUES ('ws_private', 'usr_outsider')").run();
  addMessages(fx, [
    { role: 'user', parts: [text('hello')] },
    { role: 'assistant', parts: [text('hi there')] },
  ]);
  app = await fx.app();
});
afterEach(() => fx.cleanup());

const bearer = (token = TOKEN) => ({ headers: { Authorization: `Bearer ${token}` } });
const ROUTES = ['', '/messages', '/usage', '/debug/context'];

describe('authentication and the access check', () => {
  it('stores tokens only as sha256', () => {
    const rows = fx.raw.prepare('SELECT token_sha256 FROM api_tokens').all() as { token_sha256: string }[];
    expect(rows.map((r) => r.token_sha256)).toContain(sha256Hex(TOKEN));
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
  });

  it.each(ROUTES)('answers %s with 401 without credentials or with an unknown token', async (route) => {
    for (const init of [{}, bearer('nope'), { headers: { Cookie: 'investibook_token=nope' } }]) {
      const response = await app.request(`/api/workspace/${WS}${route}`, init);
      expect(response.status).toBe(401);
      expect(errorBodySchema.parse(await response.json()).error.code).toBe('unauthorized');
    }
  });

  it.each(ROUTES)('answers %s for a missing and a foreign workspace with the same 404 body', async (route) => {
    const missing = await app.request(`/api/workspace/ws_nope${route}`, bearer());
    const foreign = await app.request(`/api/workspace/ws_private${route}`, bearer());
    const outsider = await app.request(`/api/workspace/${WS}${route}`, bearer(OTHER_TOKEN));
    expect([missing.status, foreign.status, outsider.status]).toEqual([404, 404, 404]);
    const bodies = (await Promise.all([missing.text(), foreign.text(), outsider.text()])).map(withoutRequestId);
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toEqual({ error: { code: 'workspace_not_found', message: 'Workspace not found' } });
  });

  it.each(ROUTES)('answers %s for a member', async (route) => {
    const response = await app.request(`/api/workspace/${WS}${route}`, bearer());
    expect(response.status).toBe(200);
  });

  it('signs a browser in with ?token=: HttpOnly SameSite=Strict cookie, token removed from the URL, nothing written', async () => {
    const before = fx.raw.prepare('SELECT COUNT(*) AS n FROM api_tokens').get();
    const response = await app.request(`/w/${WS}?token=${TOKEN}&tab=1`);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`/w/${WS}?tab=1`);
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^investibook_token=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\//);
    expect(fx.raw.prepare('SELECT COUNT(*) AS n FROM api_tokens').get()).toEqual(before);
    const withCookie = await app.request(`/api/workspace/${WS}`, { headers: { Cookie: cookie.split(';')[0]! } });
    expect(withCookie.status).toBe(200);
  });

  it('strips an invalid ?token= without signing in', async () => {
    const response = await app.request(`/w/${WS}?token=wrong`);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`/w/${WS}`);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('sends security headers', async () => {
    const response = await app.request(`/api/workspace/${WS}`, bearer());
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
  });
});

describe('messages', () => {
  it('lists the persisted messages of the default session', async () => {
    const body = messagesResponseSchema.parse(
      await (await app.request(`/api/workspace/${WS}/messages`, bearer())).json(),
    );
    expect(body.messages.map((m) => m.parts[0]!.text)).toEqual(['hello', 'hi there']);
  });

  it('appends a user message in OpenCode shape', async () => {
    const response = await app.request(`/api/workspace/${WS}/messages`, {
      method: 'POST',
      ...bearer(),
      headers: { ...bearer().headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'new note' }),
    });
    expect(response.status).toBe(201);
    const row = fx.raw.prepare("SELECT * FROM messages_v2 WHERE parts LIKE '%new note%'").get() as {
      info: string;
      parts: string;
      session_id: string;
      id: string;
    };
    expect(JSON.parse(row.info)).toMatchObject({ role: 'user' });
    expect(JSON.parse(row.parts)).toMatchObject([{ type: 'text', text: 'new note' }]);
    expect(row.id).toMatch(/^msg_[0-9a-f]{12}/);
    expect(row.session_id).toBe('ses_test_main');
  });

  it.each([
    ['not json', '{', 400, 'invalid_json'],
    ['empty text', JSON.stringify({ text: '   ' }), 400, 'invalid_body'],
    ['wrong type', JSON.stringify({ text: 5 }), 400, 'invalid_body'],
    ['too large', JSON.stringify({ text: 'x'.repeat(300_000) }), 413, 'payload_too_large'],
  ])('rejects %s', async (_name, body, status, code) => {
    const count = () => (fx.raw.prepare('SELECT COUNT(*) AS n FROM messages_v2').get() as { n: number }).n;
    const before = count();
    const response = await app.request(`/api/workspace/${WS}/messages`, {
      method: 'POST',
      headers: { ...bearer().headers, 'Content-Type': 'application/json' },
      body,
    });
    expect(response.status).toBe(status);
    expect(errorBodySchema.parse(await response.json()).error.code).toBe(code);
    expect(count()).toBe(before);
  });
});

describe('usage', () => {
  it('reports the latest ACP row and ignores newer non-ACP rows', async () => {
    addUsage(fx, 1200);
    addUsage(fx, 50, { source: 'evidence_postpass' });
    const body = usageSchema.parse(await (await app.request(`/api/workspace/${WS}/usage`, bearer())).json());
    expect(body.latest).toMatchObject({ contextUsed: 1200, contextSize: 200_000, percent: 0.6 });
  });

  it('says when nothing was reported yet', async () => {
    const body = usageSchema.parse(await (await app.request(`/api/workspace/${WS}/usage`, bearer())).json());
    expect(body.latest).toBeNull();
  });

  it('answers 404 for an unknown session', async () => {
    const response = await app.request(`/api/workspace/${WS}/usage?session_id=ses_nope`, bearer());
    expect(response.status).toBe(404);
  });
});

describe('debug/context', () => {
  it('returns the report for the default session, with items limited to 20 by default', async () => {
    const response = await app.request(`/api/workspace/${WS}/debug/context`, bearer());
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const report = contextReportSchema.parse(await response.json());
    expect(report.workspaceId).toBe(WS);
    expect(report.estimate.estimator).toBe('bpe');
  });

  it('takes session_id, items and estimator, and rejects bad values with 400', async () => {
    const ok = await app.request(
      `/api/workspace/${WS}/debug/context?items=1&estimator=chars4&session_id=ses_test_main`,
      bearer(),
    );
    const report = contextReportSchema.parse(await ok.json());
    expect(report.estimate).toMatchObject({ estimator: 'chars4', method: expect.stringMatching(/^chars\/4/) });
    expect(report.sources.every((s) => s.items.length <= 1)).toBe(true);
    for (const query of ['items=0', 'items=lots', 'estimator=gpt']) {
      const bad = await app.request(`/api/workspace/${WS}/debug/context?${query}`, bearer());
      expect(bad.status).toBe(400);
    }
    expect((await app.request(`/api/workspace/${WS}/debug/context?session_id=ses_nope`, bearer())).status).toBe(404);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('answers %s with 405', async (method) => {
    const response = await app.request(`/api/workspace/${WS}/debug/context`, { method, ...bearer() });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('method_not_allowed');
  });

  it('checks access before anything else', async () => {
    expect((await app.request(`/api/workspace/ws_private/debug/context`, { method: 'POST', ...bearer() })).status).toBe(
      404,
    );
    expect((await app.request(`/api/workspace/${WS}/debug/context`, { method: 'POST' })).status).toBe(401);
  });
});
