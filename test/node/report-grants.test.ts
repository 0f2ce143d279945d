/**
 * Report grants: the token the live agent's MCP server reads its own report with. It opens
 * exactly one door — GET (and HEAD) of its own workspace's report — and no other: every other
 * workspace route is 401 as for an unknown token, another workspace's report 404 with the body
 * of one that does not exist, no cookie, no sign-in, no write. It lives as long as the agent
 * process it was made for, is never stored, and its report is about the session the agent is
 * working in.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentBridge } from '../../src/node/agent/bridge';
import { nodeFolder } from '../../src/node/agent/report-mcp';
import { createApp } from '../../src/node/server/app';
import { agentOrigin } from '../../src/node/server/start';
import type { AgentEvent } from '../../src/shared/agent';
import { contextReportSchema } from '../../src/shared/wire';
import { fakeAgentSettings } from '../support/agent-settings';
import {
  addMessages,
  addUsage,
  createFixture,
  databaseDigest,
  text,
  TOKEN,
  WS,
  type Fixture,
} from '../support/fixtures';
import { withoutRequestId } from '../support/request-id';

const OTHER = 'ws_other';

let fx: Fixture;
let bridge: AgentBridge;
let app: ReturnType<typeof createApp>;
let dir: string;

beforeEach(async () => {
  fx = await createFixture({ 'AGENTS.md': 'rules' });
  addMessages(fx, [{ role: 'user', parts: [text('hello')] }]);
  await fx.store.insertWorkspace({ id: OTHER, name: 'Other', root_path: 'ws', created_at: 2 });
  await fx.store.addMember(OTHER, 'usr_member');
  dir = mkdtempSync(join(tmpdir(), 'investibook-grants-'));
  bridge = new AgentBridge(fakeAgentSettings({ stateDir: join(dir, 'agent'), database: fx.dbPath }), fx.store);
  app = createApp({ store: fx.store, reportStore: fx.store, agent: bridge });
});
afterEach(async () => {
  await bridge.close();
  await fx.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const as = (token: string, extra: Record<string, string> = {}) => ({
  headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...extra },
});

/** Every route of the app under /api, as the app has them. */
function apiRoutes(): [method: string, path: string][] {
  const seen = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL' || !route.path.startsWith('/api/')) continue;
    seen.add(`${route.method} ${route.path}`);
  }
  return [...seen].sort().map((key) => key.split(' ') as [string, string]);
}

describe('a report grant', () => {
  it('reads its own workspace’s report, and is no credential anywhere else', async () => {
    const { token } = bridge.reportGrants.issue(WS);
    const own = await app.request(`/api/workspace/${WS}/debug/context?items=all`, as(token));
    expect(own.status).toBe(200);
    expect(contextReportSchema.parse(await own.json()).workspaceId).toBe(WS);
    expect((await app.request(`/api/workspace/${WS}/debug/context`, { method: 'HEAD', ...as(token) })).status).toBe(
      200,
    );

    const unknown = await app.request('/api/workspaces', as('not-a-token'));
    const refused = withoutRequestId(await unknown.text());
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThan(10);
    for (const [method, template] of routes) {
      if (method === 'GET' && template === '/api/workspace/:id/debug/context') continue;
      const path = template.replace(':id', WS).replace(':itemId', 'x');
      const body = method === 'POST' ? JSON.stringify({ text: 'hi', sessionId: 'ses_x' }) : undefined;
      const response = await app.request(path, { method, ...as(token), ...(body ? { body } : {}) });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(withoutRequestId(await response.text()), `${method} ${path}`).toBe(refused);
    }
    // Its report route, written to: not a credential either.
    for (const method of ['POST', 'PUT', 'DELETE'])
      expect((await app.request(`/api/workspace/${WS}/debug/context`, { method, ...as(token) })).status).toBe(401);
  });

  it('finds no other workspace: its report answers like one that does not exist', async () => {
    const { token } = bridge.reportGrants.issue(WS);
    const other = await app.request(`/api/workspace/${OTHER}/debug/context`, as(token));
    const missing = await app.request(`/api/workspace/ws_missing/debug/context`, as(token));
    const asMember = await app.request(`/api/workspace/ws_missing/debug/context`, as(TOKEN));
    expect([other.status, missing.status, asMember.status]).toEqual([404, 404, 404]);
    const body = withoutRequestId(await asMember.text());
    expect(withoutRequestId(await other.text())).toBe(body);
    expect(withoutRequestId(await missing.text())).toBe(body);
    // The member may read it: the grant is what stops here.
    expect((await app.request(`/api/workspace/${OTHER}/debug/context`, as(TOKEN))).status).toBe(200);
  });

  it('signs nobody in, is not read from a cookie, and is never stored', async () => {
    const before = await databaseDigest(fx.dbPath);
    const { token, revoke } = bridge.reportGrants.issue(WS);
    const signIn = await app.request(`/w/${WS}?token=${token}`);
    expect(signIn.status).toBe(302);
    expect(signIn.headers.get('set-cookie')).toBeNull();
    const cookie = await app.request(`/api/workspace/${WS}/debug/context`, {
      headers: { Cookie: `investibook_token=${token}` },
    });
    expect(cookie.status).toBe(401);
    expect(await databaseDigest(fx.dbPath)).toBe(before);
    revoke();
    expect((await app.request(`/api/workspace/${WS}/debug/context`, as(token))).status).toBe(401);
  });
});

describe('the grant of an agent process', () => {
  const turn = (text: string, sessionId?: string) => {
    const events: AgentEvent[] = [];
    const done = bridge.runTurn({ workspaceId: WS, root: fx.root, text, sessionId }, (e) => events.push(e));
    return { events, done };
  };
  const sessionOf = (events: AgentEvent[]) =>
    (events.find((e) => e.type === 'turn') as { sessionId: string }).sessionId;
  // No bound of its own: a condition never met is a hang, which the test's timeout fails.
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((done) => setTimeout(done, 25));
  };

  it('is made with the process (once the server listens) and dropped with it', async () => {
    await turn('hello').done;
    expect(bridge.reportGrants.size).toBe(0); // no address yet: no MCP server, no grant
    await bridge.close();
    bridge.serveReportsAt('http://127.0.0.1:9');
    await turn('hello').done;
    expect(bridge.reportGrants.size).toBe(1);
    await bridge.close();
    await until(() => bridge.reportGrants.size === 0);
    expect(bridge.reportGrants.size).toBe(0);
  });

  it('reads the report of the session its agent is working in, else the most recent', async () => {
    const first = turn('hello');
    await first.done;
    const working = sessionOf(first.events);
    const second = turn('hello again');
    await second.done;
    const other = sessionOf(second.events);

    const hanging = turn('please hang', working);
    await until(() => bridge.status(WS).running.some((r) => r.sessionId === working));
    // The other session is the most recently active one now.
    addUsage(fx, 999, { session: other, at: 2_000_000_000_000 });
    const { token } = bridge.reportGrants.issue(WS);
    const sessionFor = async (query = '') =>
      contextReportSchema.parse(
        await (await app.request(`/api/workspace/${WS}/debug/context${query}`, as(token))).json(),
      ).sessionId;
    expect(await sessionFor()).toBe(working);
    expect(await sessionFor(`?session_id=${other}`)).toBe(other);
    // A member without session_id gets the most recent, as ever.
    const member = await app.request(`/api/workspace/${WS}/debug/context`, as(TOKEN));
    expect(contextReportSchema.parse(await member.json()).sessionId).toBe(other);

    // Two sessions at work: the grant cannot tell whose call it is; the most recent one.
    const both = turn('hang too', other);
    await until(() => bridge.status(WS).running.length === 2);
    expect(await sessionFor()).toBe(other);
    await bridge.cancel(WS, working);
    await bridge.cancel(WS, other);
    await Promise.all([hanging.done, both.done]);
  });
});

describe("what the agent's MCP server needs to run", () => {
  it('reaches the server where it listens, IPv6 loopback included', () => {
    expect(agentOrigin('127.0.0.1', 8787)).toBe('http://127.0.0.1:8787');
    expect(agentOrigin('0.0.0.0', 8787)).toBe('http://127.0.0.1:8787');
    expect(agentOrigin('::', 8787)).toBe('http://127.0.0.1:8787');
    expect(agentOrigin('::1', 8787)).toBe('http://[::1]:8787');
    expect(agentOrigin('10.1.2.3', 8787)).toBe('http://10.1.2.3:8787');
  });

  it("shows the sandbox node's own installation, never the folder a copied binary sits in", () => {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-node-'));
    try {
      const installed = join(dir, 'nvm', 'v20');
      mkdirSync(join(installed, 'bin'), { recursive: true });
      mkdirSync(join(installed, 'lib', 'node_modules'), { recursive: true });
      writeFileSync(join(installed, 'bin', 'node'), '');
      expect(nodeFolder(join(installed, 'bin', 'node'))).toEqual([installed]);
      // A node copied into a home's bin: the binary alone, not the home folder.
      const home = join(dir, 'home');
      mkdirSync(join(home, 'bin'), { recursive: true });
      writeFileSync(join(home, 'bin', 'node'), '');
      expect(nodeFolder(join(home, 'bin', 'node'))).toEqual([join(home, 'bin', 'node')]);
      expect(nodeFolder('/usr/bin/node')).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
