/**
 * The bridge's bookkeeping and its promises when a turn goes wrong, with a tiny ACP agent
 * (test/support/fake-acp-agent.mjs, the same SDK): nothing typed is lost, every turn ends with
 * one last event, a second turn is never confused with the first. The real runtime's behaviour
 * is tested in test/agent/ with OpenCode itself.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentBridge } from '../../src/node/agent/bridge';
import type { AgentSettings } from '../../src/node/agent/settings';
import type { AgentEvent } from '../../src/shared/agent';
import { createApp } from '../../src/node/server/app';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { fakeAgentSettings } from '../support/agent-settings';
import { addMessages, createFixture, text, TOKEN, WS, type Fixture } from '../support/fixtures';

let fx: Fixture;
let dir: string;
let bridge: AgentBridge;

function settings(env: Record<string, string> = {}, extra: Partial<AgentSettings> = {}): AgentSettings {
  return fakeAgentSettings(
    { stateDir: join(dir, 'agent'), database: fx.dbPath, env: { ...process.env, ...env } },
    { turnTimeoutMs: 20_000, ...extra },
  );
}

beforeEach(async () => {
  fx = await createFixture();
  dir = mkdtempSync(join(tmpdir(), 'investibook-bridge-'));
});
afterEach(async () => {
  await bridge?.close();
  await fx.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function turn(text: string, options: { sessionId?: string; during?: (e: AgentEvent) => void } = {}) {
  const events: AgentEvent[] = [];
  await bridge.runTurn({ workspaceId: WS, root: fx.root, text, sessionId: options.sessionId }, (event) => {
    events.push(event);
    options.during?.(event);
  });
  return events;
}

const texts = async (sessionId: string) =>
  (await fx.store.listMessages(WS, sessionId)).map((r) => String(r.parts)).join('\n');

describe('the agent bridge', () => {
  it('persists a turn as the agent recorded it, and its usage as an acp row', async () => {
    bridge = new AgentBridge(settings(), fx.store);
    const events = await turn('hello');
    expect(events.map((e) => e.type)).toEqual(['turn', 'text', 'usage', 'saved', 'done']);
    const sessionId = (events[0] as Extract<AgentEvent, { type: 'turn' }>).sessionId;
    expect(await texts(sessionId)).toContain('fake reply');
    expect((await fx.store.acpUsageNewestFirst(WS, sessionId))[0]).toMatchObject({ context_used: 1234 });
  });

  it("keeps the subagent's session a task call made, under its own id, and records the runtime of both", async () => {
    const logs: string[] = [];
    bridge = new AgentBridge(settings(), fx.store, (line) => logs.push(line));
    const events = await turn('please delegate this');
    expect(events.at(-1)).toMatchObject({ type: 'done' });
    const sessionId = (events[0] as Extract<AgentEvent, { type: 'turn' }>).sessionId;
    await bridge.settled();
    const sessions = (await fx.store.listSessions(WS)).map((s) => s.session_id);
    const child = sessions.find((id) => id.startsWith('ses_fakechild'))!;
    expect(sessions).toEqual(expect.arrayContaining([sessionId, child]));
    expect(await texts(child)).toContain('sub answer');
    // No OpenCode server to ask (the agent is not OpenCode's acp): recorded as not recorded, with why.
    const parent = await fx.store.sessionRuntime(WS, sessionId);
    expect(parent.map((r) => r.runtime_key)).toEqual(['build fake/fake-1']);
    expect(String(parent[0]!.definitions)).toMatch(/no OpenCode server to ask/);
    const kid = await fx.store.sessionRuntime(WS, child);
    expect(kid.map((r) => [r.runtime_key, r.parent_session_id])).toEqual([['general fake/fake-1', sessionId]]);
    // A second turn records nothing again.
    await turn('please delegate again', { sessionId });
    await bridge.settled();
    expect(await fx.store.sessionRuntime(WS, sessionId)).toHaveLength(1);
    // A turn that delegates nothing reads back no child already kept, only its own session.
    const exportsLog = () =>
      readFileSync(
        join(
          String(
            readdirSync(join(dir, 'agent', 'workspaces'), { withFileTypes: true }).map((d) =>
              join(d.parentPath, d.name),
            )[0],
          ),
          'data',
          'fake-agent',
          'exports.log',
        ),
        'utf8',
      )
        .trim()
        .split('\n');
    const before = exportsLog();
    expect(before.filter((id) => id === child)).toHaveLength(1);
    await turn('hello', { sessionId });
    await bridge.settled();
    expect(exportsLog().slice(before.length)).toEqual([sessionId]);
    expect(logs.filter((l) => /could not be read back|not kept/.test(l))).toEqual([]);
  });

  it('closes while a definitions recording hangs, and records nothing as not recorded (its row stays pending)', async () => {
    // An OpenCode server that never answers: the recording waits for it in the background.
    bridge = new AgentBridge(
      settings({}, { runtimeServer: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)', '--'] } }),
      fx.store,
    );
    const events = await turn('hello');
    expect(events.at(-1)).toMatchObject({ type: 'done' });
    const sessionId = (events[0] as Extract<AgentEvent, { type: 'turn' }>).sessionId;
    // The recording never ends (its server never answers): close resolving at all shows it does
    // not wait for it — no bound on how long it took (a loaded machine stretches any).
    await bridge.close();
    // Nothing was recorded for the cut-short recording: its row, reserved at the turn's end, is
    // still pending — the session's next turn records into it.
    const rows = await fx.store.sessionRuntime(WS, sessionId);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(JSON.parse(String(row.definitions))).toMatchObject({ kind: 'pending' });
  });

  it('keeps the text of a turn stopped before the agent got it', async () => {
    bridge = new AgentBridge(settings({ FAKE_START_GATE: '1' }), fx.store);
    const pending = turn('stop me before I start');
    // Stop while the agent is opening the session: it holds session/new at its gate until the stop is in.
    await until(() => gate.asked(1));
    const running = bridge.status(WS).running;
    expect(running).toHaveLength(1);
    const stopped = await bridge.cancel(WS, running[0]!.sessionId);
    gate.open(1);
    const events = await pending;
    expect(stopped).toBe(true);
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'cancelled' });
    const sessionId = (events[0] as Extract<AgentEvent, { type: 'turn' }>).sessionId;
    expect(await texts(sessionId)).toContain('stop me before I start');
  });

  it('ends a stopped turn at once, then says in one error that its saving failed, after one attempt to read it back', async () => {
    bridge = new AgentBridge(settings(), fx.store);
    let started = false;
    const pending = turn('please hang', { during: (e) => (started ||= e.type === 'turn') });
    await until(() => started);
    // The database file goes away mid-turn: every write now answers database_unavailable.
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${fx.dbPath}${suffix}`, { force: true });
    await bridge.cancel(WS, bridge.status(WS).running[0]!.sessionId);
    const events = await pending;
    // Stopped: over for the user as the agent answers the cancel; the failed save is said after.
    expect(events.filter((e) => e.type === 'error' || e.type === 'done')).toMatchObject([
      { type: 'done', stopReason: 'cancelled' },
      { type: 'error', code: 'not_saved' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'not_saved' });
  });

  it('refuses a turn whose prompt cannot be stored, before the agent starts', async () => {
    bridge = new AgentBridge(settings(), fx.store);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${fx.dbPath}${suffix}`, { force: true });
    await expect(turn('lost?')).rejects.toMatchObject({ code: 'database_unavailable' });
    expect(bridge.processId(WS)).toBeUndefined();
  });

  it('keeps the text when the agent dies mid-turn and the export cannot read it back', async () => {
    bridge = new AgentBridge(settings({ FAKE_EXPORT_FAILS: '1' }), fx.store);
    const events = await turn('please crash now');
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'agent_exited' });
    const sessionId = (events[0] as Extract<AgentEvent, { type: 'turn' }>).sessionId;
    expect(await texts(sessionId)).toContain('please crash now');
  });

  it('never lets a finished turn clear the bookkeeping of the next one in the same session', async () => {
    bridge = new AgentBridge(settings({ FAKE_START_GATE: '1' }), fx.store);
    // A session this agent never had: the first turn opens a new one and frees the asked id.
    const first = turn('hello', { sessionId: 'ses_elsewhere' });
    await until(() => gate.asked(1));
    gate.open(1);
    // (Its entry there first: on a loaded machine the turn may not have started yet, and `every` of none is true.)
    await until(() => {
      const running = bridge.status(WS).running;
      return running.length === 1 && running[0]!.sessionId !== 'ses_elsewhere';
    });
    // The second turn holds the freed id while it, too, opens a new session: held at the gate until it is stopped.
    const second = turn('please hang', { sessionId: 'ses_elsewhere' });
    await until(() => gate.asked(2));
    await first;
    // The first turn's end must leave the second one's entry alone: it is running and stoppable, under the asked id.
    const running = bridge.status(WS).running;
    expect(running.map((r) => r.sessionId)).toEqual(['ses_elsewhere']);
    expect(await bridge.cancel(WS, 'ses_elsewhere')).toBe(true);
    gate.open(2);
    expect((await second).find((e) => e.type === 'done')).toEqual({ type: 'done', stopReason: 'cancelled' });
  });
});

describe('the sandbox', () => {
  it('is required: where none can be made the agent does not start, and the chat is told why', async () => {
    bridge = new AgentBridge(settings({}, { bwrap: '/nonexistent/bwrap' }), fx.store);
    const events = await turn('are you confined?');
    const error = events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ code: 'sandbox_unavailable' });
    expect((error as { message: string }).message).toMatch(/not installed.*INVESTIBOOK_AGENT_SANDBOX=off/s);
    expect(bridge.processId(WS)).toBeUndefined();
    const sessionId = (events[0] as Extract<AgentEvent, { type: 'turn' }>).sessionId;
    expect(await texts(sessionId)).toContain('are you confined?');
  });

  it('can be turned off by the operator, explicitly', async () => {
    bridge = new AgentBridge(settings({}, { bwrap: '/nonexistent/bwrap', sandbox: 'off' }), fx.store);
    const events = await turn('hello');
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });

  it('refuses to start an agent whose workspace folder holds investibook’s data', async () => {
    bridge = new AgentBridge(settings({}, { hidden: [join(fx.root, 'investibook.db')] }), fx.store);
    writeFileSync(join(fx.root, 'investibook.db'), '');
    const events = await turn('hello');
    expect(events.find((e) => e.type === 'error')).toMatchObject({
      code: 'sandbox_unavailable',
      message: expect.stringContaining('investibook.db'),
    });
  });
});

describe('a workspace at the file system’s root', () => {
  it('ends the turn with sandbox_unavailable in words, the prompt kept — never a crash of the agent', async () => {
    bridge = new AgentBridge(settings(), fx.store);
    const events: AgentEvent[] = [];
    await bridge.runTurn({ workspaceId: WS, root: '/', text: 'list /etc' }, (event) => events.push(event));
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      code: 'sandbox_unavailable',
      message: expect.stringMatching(/^the workspace folder \/ is the file system's root: no agent is started there\./),
    });
    expect((events.at(-1) as { message: string }).message).not.toContain('INVESTIBOOK_AGENT_SANDBOX=off');
    expect(bridge.processId(WS)).toBeUndefined();
    const sessionId = (events[0] as Extract<AgentEvent, { type: 'turn' }>).sessionId;
    expect(await texts(sessionId)).toContain('list /etc');
  });
});

describe('idle agents', () => {
  it('are stopped after their last turn, and started again by the next prompt', async () => {
    bridge = new AgentBridge(settings(), fx.store, () => {}, 200);
    const first = await turn('hello');
    const sessionId = (first[0] as Extract<AgentEvent, { type: 'turn' }>).sessionId;
    expect(bridge.processId(WS)).toBeDefined();
    await until(() => bridge.processId(WS) === undefined);
    const next = await turn('hello again', { sessionId });
    expect(next[0]).toMatchObject({ type: 'turn', sessionId, newSession: false });
    expect(next.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
  });
});

describe('more workspaces than agents', () => {
  /** A second and a third workspace, their own folders, the same member. */
  async function workspaces(...ids: string[]) {
    for (const id of ids) {
      mkdirSync(join(fx.dir, id), { recursive: true });
      await fx.store.transaction(async (tx) => {
        await tx.insertWorkspace({ id, name: id, root_path: id, created_at: 1 });
        await tx.addMember(id, 'usr_member');
      });
    }
  }
  const promptOf = (app: ReturnType<typeof createApp>) => (workspace: string, text: string, sessionId?: string) =>
    app.request(`/api/workspace/${workspace}/agent/prompt`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text, ...(sessionId ? { sessionId } : {}) }),
    });

  it('runs at most the limit at once: a prompt beyond it is refused 503 agents_busy with Retry-After, nothing stored', async () => {
    await workspaces('ws_two', 'ws_three');
    bridge = new AgentBridge(settings({}, { maxRunning: 2 }), fx.store);
    const reportStore = await openSqlite(fx.dbPath, { readOnly: true });
    try {
      const app = createApp({ store: fx.store, reportStore, agent: bridge });
      const prompt = promptOf(app);
      // Two turns that go on until stopped hold both places.
      const one = await prompt(WS, 'hang here');
      const two = await prompt('ws_two', 'hang there');
      expect([one.status, two.status]).toEqual([200, 200]);
      // Both sessions opened (their prompts moved from the provisional session to the agent's).
      const opened = (workspace: string) =>
        bridge.status(workspace).running.some((r) => !r.sessionId.startsWith('turn_'));
      await until(() => opened(WS) && opened('ws_two'));
      const rowsBefore = await fx.store.contentRows();
      const busy = await prompt('ws_three', 'anyone free?');
      expect(busy.status).toBe(503);
      expect(busy.headers.get('Retry-After')).toBe('30');
      expect(await busy.json()).toMatchObject({
        error: { code: 'agents_busy', message: expect.stringMatching(/all 2 agents/) },
      });
      // Refused before anything was kept: the chat gives the text back.
      expect(await fx.store.contentRows()).toEqual(rowsBefore);
      expect(bridge.processId('ws_three')).toBeUndefined();
      // A workspace that already has its agent is never refused.
      const running = bridge.status(WS).running[0]!.sessionId;
      expect(await bridge.cancel(WS, running)).toBe(true);
      await one.text();
      const again = await prompt(WS, 'hello', running);
      expect(again.status).toBe(200);
      await again.text();
      // Once a place is idle, the next workspace takes it: the agent idle the longest is stopped.
      const three = await prompt('ws_three', 'hello');
      expect(three.status).toBe(200);
      expect(await three.text()).toContain('"done"');
      expect(bridge.processId(WS)).toBeUndefined();
      expect(bridge.processId('ws_three')).toBeDefined();
      expect(bridge.processId('ws_two')).toBeDefined();
      await bridge.cancel('ws_two', bridge.status('ws_two').running[0]!.sessionId);
      await two.text();
    } finally {
      await reportStore.close();
    }
  });

  it('resumes the session of an agent stopped to make room, as after a restart', async () => {
    await workspaces('ws_two');
    bridge = new AgentBridge(settings({}, { maxRunning: 1 }), fx.store);
    const first = await turn('hello');
    const sessionId = (first[0] as Extract<AgentEvent, { type: 'turn' }>).sessionId;
    await bridge.runTurn({ workspaceId: 'ws_two', root: join(fx.dir, 'ws_two'), text: 'hi' }, () => {});
    expect(bridge.processId(WS)).toBeUndefined();
    const next = await turn('hello again', { sessionId });
    expect(next[0]).toMatchObject({ type: 'turn', sessionId, newSession: false });
    expect(next.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(bridge.processId('ws_two')).toBeUndefined();
  });
});

describe('the prompt route', () => {
  it('refuses to continue a session of another workspace, before anything reaches the agent', async () => {
    bridge = new AgentBridge(settings(), fx.store);
    addMessages(fx, [{ role: 'user', parts: [text('not yours')], session: 'ses_theirs' }], 'ws_theirs');
    const reportStore = await openSqlite(fx.dbPath, { readOnly: true });
    try {
      const app = createApp({ store: fx.store, reportStore, agent: bridge });
      const response = await app.request(`/api/workspace/${WS}/agent/prompt`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'take it over', sessionId: 'ses_theirs' }),
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'session_not_found' } });
      expect(bridge.processId(WS)).toBeUndefined();
      expect(await fx.store.listMessages('ws_theirs', 'ses_theirs')).toHaveLength(1);
    } finally {
      await reportStore.close();
    }
  });
});

/**
 * The fake agent's session/new gate (FAKE_START_GATE in test/support/fake-acp-agent.mjs), in the
 * agent's own store: the n-th session/new says it arrived and waits for the test to open it.
 */
const gate = {
  store: () => {
    const workspaces = join(dir, 'agent', 'workspaces');
    const [workspace] = existsSync(workspaces) ? readdirSync(workspaces) : [];
    return workspace === undefined ? undefined : join(workspaces, workspace, 'data', 'fake-agent');
  },
  asked: (n: number) => {
    const store = gate.store();
    return store !== undefined && existsSync(join(store, `asked-${n}`));
  },
  open: (n: number) => writeFileSync(join(gate.store()!, `open-${n}`), ''),
};

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((done) => setTimeout(done, 5));
}
