/**
 * A report's changes made on the live agent (contract §7 `change.request`): POST …/agent/compact
 * and …/agent/new-session (and …/agent/revert's refusals) over a real HTTP server, with the tiny ACP agent (fake-acp-agent.mjs
 * answers `/compact` as OpenCode's ACP agent does). The compaction leaves no user row of
 * `/compact`; the hand-off opens a new session; both answer only a member, and only for a
 * session of the workspace, and refuse a cookie write from another site. OpenCode itself does
 * them in test/agent/advice-done.test.ts.
 */
import { serve, type ServerType } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentBridge } from '../../src/node/agent/bridge';
import { TOKEN_COOKIE } from '../../src/node/server/access';
import { createApp } from '../../src/node/server/app';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { parseAgentEvent, type AgentEvent } from '../../src/shared/agent';
import { fakeAgentSettings } from '../support/agent-settings';
import { addMessages, createFixture, OTHER_TOKEN, text, TOKEN, WS, type Fixture } from '../support/fixtures';

let fx: Fixture;
let dir: string;
let bridge: AgentBridge;
let server: ServerType;
let origin: string;

beforeEach(async () => {
  fx = await createFixture();
  dir = mkdtempSync(join(tmpdir(), 'investibook-live-change-'));
  bridge = new AgentBridge(
    fakeAgentSettings({ stateDir: join(dir, 'agent'), database: fx.dbPath }, { turnTimeoutMs: 20_000 }),
    fx.store,
  );
  const reportStore = await openSqlite(fx.dbPath, { readOnly: true });
  server = serve({
    fetch: createApp({ store: fx.store, reportStore, agent: bridge }).fetch,
    hostname: '127.0.0.1',
    port: 0,
  });
  await new Promise((ok) => server.once('listening', ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = fx.cleanup;
  fx.cleanup = async () => {
    await new Promise((done) => server.close(done));
    await reportStore.close();
    await close();
  };
});
afterEach(async () => {
  await bridge.close();
  await fx.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const post = (route: string, body: unknown, headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` }) =>
  fetch(`${origin}/api/workspace/${WS}/agent/${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** A turn's events, read to its end. */
async function events(response: Response): Promise<AgentEvent[]> {
  expect(response.status).toBe(200);
  const body = await response.text();
  return body
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => parseAgentEvent(line.slice(5).trim()))
    .filter((event): event is AgentEvent => event !== null);
}

const turnOf = (list: AgentEvent[]) => list.find((e) => e.type === 'turn') as Extract<AgentEvent, { type: 'turn' }>;

async function session(): Promise<string> {
  return turnOf(await events(await post('prompt', { text: 'read the logs' }))).sessionId;
}

const partsOf = async (sessionId: string) =>
  (await fx.store.listMessages(WS, sessionId)).map(
    (row) => JSON.parse(String(row.parts)) as { type: string; text?: string }[],
  );

describe('the live changes', () => {
  it('compacts a session with OpenCode’s /compact: its compaction recorded, no user message of "/compact"', async () => {
    const sessionId = await session();
    const compacted = await events(await post('compact', { sessionId }));
    expect(turnOf(compacted)).toMatchObject({ sessionId, newSession: false });
    expect(compacted.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const parts = (await partsOf(sessionId)).flat();
    expect(parts.map((p) => p.type)).toContain('compaction');
    // (rows are listed by id, not by time)
    expect(
      parts
        .filter((p) => p.type === 'text')
        .map((p) => p.text)
        .sort(),
    ).toEqual(['fake reply', 'read the logs', 'the summary so far']);
  });

  it('starts a new session with the hand-off as its message; the old session stays as it was', async () => {
    const sessionId = await session();
    const before = await fx.store.listMessages(WS, sessionId);
    const handOff = 'This continues an earlier session. The files that mattered: evidence/slow-query.log';
    const started = await events(await post('new-session', { sessionId, text: handOff }));
    const opened = turnOf(started);
    expect(opened.newSession).toBe(true);
    expect(opened.sessionId).not.toBe(sessionId);
    expect(started.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const texts = (await partsOf(opened.sessionId)).flat().map((p) => p.text);
    expect(texts).toContain(handOff);
    expect(texts).not.toContain('read the logs');
    expect(await fx.store.listMessages(WS, sessionId)).toEqual(before);
  });

  it('answers 404 to a non-member and to a session of another workspace, before the agent starts', async () => {
    addMessages(fx, [{ role: 'user', parts: [text('not yours')], session: 'ses_theirs' }], 'ws_theirs');
    for (const [route, body] of [
      ['compact', { sessionId: 'ses_theirs' }],
      ['new-session', { sessionId: 'ses_theirs', text: 'take it over' }],
      ['revert', { sessionId: 'ses_theirs', messageId: 'msg_theirs' }],
    ] as const) {
      const stranger = await post(route, body, { Authorization: `Bearer ${OTHER_TOKEN}` });
      expect(stranger.status).toBe(404);
      expect(await stranger.json()).toMatchObject({ error: { code: 'workspace_not_found' } });
      const theirs = await post(route, body);
      expect(theirs.status).toBe(404);
      expect(await theirs.json()).toMatchObject({ error: { code: 'session_not_found' } });
    }
    expect(bridge.processId(WS)).toBeUndefined();
    expect(await fx.store.listMessages('ws_theirs', 'ses_theirs')).toHaveLength(1);
  });

  it('refuses a cookie-signed change from another site (403), like every cookie write', async () => {
    const sessionId = await session();
    const rows = await fx.store.listMessages(WS, sessionId);
    for (const [route, body] of [
      ['compact', { sessionId }],
      ['revert', { sessionId, messageId: rows[0]!.id }],
    ] as const) {
      const response = await post(route, body, { Cookie: `${TOKEN_COOKIE}=${TOKEN}`, Origin: 'https://evil.example' });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: 'cross_origin_write' } });
    }
    expect(await fx.store.listMessages(WS, sessionId)).toEqual(rows);
  });

  it('a revert: a message the session lacks is 404; an agent command with no OpenCode server beside it, 409', async () => {
    const sessionId = await session();
    const rows = await fx.store.listMessages(WS, sessionId);
    const missing = await post('revert', { sessionId, messageId: 'msg_not_here' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'no_message' } });
    // The tiny ACP agent is not OpenCode's own `acp`: there is no OpenCode server to revert with.
    const refused = await post('revert', { sessionId, messageId: rows[0]!.id });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'revert_unsupported' } });
    expect(await fx.store.listMessages(WS, sessionId)).toEqual(rows);
    // The session is free again: a turn runs in it.
    expect(turnOf(await events(await post('prompt', { text: 'go on', sessionId }))).sessionId).toBe(sessionId);
  });
});
