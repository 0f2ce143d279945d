/**
 * What the report says a change frees, proven by making it (issues 28 pt 6, 37 pts 6–7), with the
 * pinned OpenCode on the scripted model. One server, one agent per workspace, for all of it: every
 * OpenCode start costs seconds of CPU, and these proofs run in sessions of their own, so they do
 * not disturb each other (each takes its figures from the provider's calls made from its own
 * start on).
 *
 * - The demo's seeded session given to the agent as `npm run demo:agent` does: after a live turn
 *   the header meter, the report's total and the timeline's last point are one number for now.
 *   Then each change as the report gives it — a new session with its hand-off and a compaction
 *   through the agent routes the report names, a message to the agent sent as given — and the next
 *   call the provider counts is now − `frees.tokens`, within a quarter of the figure plus the
 *   turn's own growth.
 * - The revert, in a session where a large read sits in an earlier turn: pressed exactly as the
 *   report gives it (`change.request`, POST …/agent/revert, which reverts through OpenCode's own
 *   server run as the agent is), the next call is now − `frees.tokens` likewise. Then the same
 *   revert made in the user's own OpenCode — an `opencode serve` on loopback over the agent's
 *   state, its `POST /session/{id}/revert` — which the running ACP agent follows as well.
 * - The tools the model was sent and never called (built-in and MCP — never investibook's own
 *   report tool): the report's change put in the opencode.json of a scratch copy of the workspace
 *   (the second workspace, whose agent has not started yet), the same turn there, the definitions
 *   recorded again — and those tools are gone from the request and from the runtime item, which is
 *   smaller by the suggestion's figure (±10 %).
 *
 * (Each configuration change given to OpenCode itself: advice-config.test.ts.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from '../../src/node/agent/confinement';
import { DEMO_WORKSPACE_ID } from '../../src/node/demo/builder';
import { contextReportSchema, type ContextReport, type ReportItem, type Suggestion } from '../../src/shared/wire';
import { readTurn, startAgentHarness, type AgentClient, type AgentHarness } from '../support/agent-harness';

/** A log of about 11k tokens: the read the revert removes. */
const BIG_LOG = 'big-build.log';
const ASK = { hello: 'Which project is this?', read: 'Look through the build log', after: 'Sum it up in a line' };
/**
 * The never-called tools' turn: a read of the evidence summary, by a path relative to the
 * workspace, so that it is the same turn in the scratch copy (OpenCode resolves it in its folder).
 */
const TOOLS_PROMPT = 'Which tools does a first look need?';
const PROMPT = 'What do we know so far?';

let h: AgentHarness;
let seeded: string;
let serve: ChildProcess | undefined;
beforeAll(async () => {
  h = await startAgentHarness({
    demoSessions: true,
    // The scratch copy of the workspace the never-called tools are turned off in.
    second: true,
    // Two cores shared by many test files: the agent may take longer than the default to start.
    settings: { startTimeoutMs: 120_000 },
    prepare: (root) =>
      writeFileSync(
        join(root, BIG_LOG),
        Array.from({ length: 1500 }, (_, i) => `step ${i}: compiled module-${i} ok\n`).join(''),
      ),
    turns: (root) => [
      { when: ASK.hello, steps: [{ text: 'The demo workspace.' }] },
      {
        when: ASK.read,
        steps: [{ tools: [{ name: 'read', args: { filePath: join(root, BIG_LOG) } }] }, { text: 'All steps ok.' }],
      },
      { when: ASK.after, steps: [{ text: 'The build passed.' }] },
      {
        when: TOOLS_PROMPT,
        steps: [
          { tools: [{ name: 'read', args: { filePath: 'evidence/evidence_summary_for_agent.txt' } }] },
          { text: 'The evidence summary names the slow log and the TiKV p99 as where to look.' },
        ],
      },
    ],
  });
  seeded = ((await (await h.api('')).json()) as { defaultSessionId: string }).defaultSessionId;
});
afterAll(async () => {
  await stopUserOpencode();
  await h?.close();
});

async function report(sessionId: string, client: AgentClient = h): Promise<ContextReport> {
  await h.bridge.settled();
  return contextReportSchema.parse(await (await client.api(`/debug/context?session_id=${sessionId}&items=all`)).json());
}

const modelCalls = (from = 0) => h.requests.slice(from).filter((r) => r.kind === 'step' || r.kind === 'fallback');

/** The provider's count of the first model call from request `after` on (the scripted model's log). */
function firstCallAfter(after: number): number {
  const call = modelCalls(after)[0];
  expect(call).toBeDefined();
  return call!.usage.prompt_tokens;
}

/**
 * A turn's own growth of the prompt: the last call's answer, which the next prompt carries, and
 * the new message (≈4 characters a token, with OpenCode's framing of it).
 */
const growthOf = (text: string, lastAnswer = 0) => lastAnswer + Math.ceil(text.length / 4) + 100;

/** What the last model call so far answered (completion tokens), which the next prompt carries. */
const lastAnswer = () => modelCalls().at(-1)!.usage.completion_tokens;

function expectFrees(s: Suggestion, now: number, counted: number, growth: number) {
  const expected = now - s.frees.tokens;
  expect(Math.abs(counted - expected)).toBeLessThanOrEqual(s.frees.tokens / 4 + growth);
}

/** The change's request made as the report gives it, through the workspace's agent route. */
async function change(s: Suggestion) {
  const request = s.change!.request!;
  expect(request.path).toMatch(/^\/api\/workspace\/demo\/agent\//);
  const path = request.path.replace('/api/workspace/demo', '');
  const turn = await readTurn(await h.api(path, { method: 'POST', body: JSON.stringify(request.body) }));
  expect(turn.status).toBe(200);
  // An error event says why (a loaded machine's OpenCode server start, say).
  expect(turn.events.at(-1), JSON.stringify(turn.events.at(-1))).toMatchObject({ type: 'done' });
  return { ...turn, opened: turn.events.find((e) => e.type === 'turn') as { sessionId: string; newSession: boolean } };
}

describe('the report’s changes, made in the seeded session', () => {
  // A live turn in it (the agent's first: it starts the agent, which takes long on a loaded machine).
  beforeAll(async () => {
    const { status } = await h.prompt(PROMPT, { sessionId: seeded });
    expect(status).toBe(200);
  });

  it('after a live turn, the meter, the report’s total and the timeline’s last call are one number', async () => {
    const r = await report(seeded);
    const meter = ((await (await h.api(`/usage?session_id=${seeded}`)).json()) as { latest: { contextUsed: number } })
      .latest.contextUsed;
    expect(r.actual!.contextUsed).toBe(meter);
    // OpenCode's ACP `used` is its last assistant message's input and cache tokens: the provider's
    // count of the turn's last call, which is the timeline's last point.
    expect(r.timeline!.at(-1)!.promptTokens).toBe(meter);
    expect(modelCalls().at(-1)!.usage.prompt_tokens).toBe(meter);
  });

  it('a new session with the hand-off: its first call is now − frees', async () => {
    const r = await report(seeded);
    const s = r.suggestions.find((x) => x.change?.kind === 'new_session')!;
    expect(s.frees.tokens).toBeGreaterThan(0);
    const before = h.requests.length;
    const { opened } = await change(s);
    expect(opened.newSession).toBe(true);
    expect(opened.sessionId).not.toBe(seeded);
    // The hand-off is the new session's message: the call's growth is the workspace's context note at most.
    expectFrees(s, r.actual!.contextUsed, firstCallAfter(before), growthOf(s.change!.text) / 4);
  });

  it('a message to the agent frees nothing now: the next call is now plus the message', async () => {
    const r = await report(seeded);
    const s = r.suggestions.find((x) => x.change?.kind === 'ask_agent')!;
    expect(s.frees.tokens).toBe(0);
    expect(s.change!.request).toBeUndefined();
    const before = h.requests.length;
    const answer = lastAnswer();
    expect((await h.prompt(s.change!.text, { sessionId: seeded })).status).toBe(200);
    expectFrees(s, r.actual!.contextUsed, firstCallAfter(before), growthOf(s.change!.text, answer));
  });

  it('a compaction through the agent route: the next call is now − frees', async () => {
    const r = await report(seeded);
    const s = r.suggestions.find((x) => x.change?.kind === 'compact')!;
    expect(s.frees.tokens).toBeGreaterThan(0);
    const summaries = h.requests.filter((x) => x.kind === 'summary').length;
    const answer = lastAnswer();
    expect((await change(s)).opened).toMatchObject({ sessionId: seeded, newSession: false });
    expect(h.requests.filter((x) => x.kind === 'summary').length).toBe(summaries + 1);
    // No user message of "/compact" stands in the chat.
    const rows = await h.store.listMessages('demo', seeded);
    expect(rows.map((row) => String(row.parts)).join('\n')).not.toContain('"/compact"');
    const before = h.requests.length;
    expect((await h.prompt(PROMPT, { sessionId: seeded })).status).toBe(200);
    expectFrees(s, r.actual!.contextUsed, firstCallAfter(before), growthOf(PROMPT, answer));
  });
});

describe('the report’s revert, made in a session with a large read in an earlier turn', () => {
  let sessionId: string | undefined;

  async function ask(text: string) {
    const turn = await h.prompt(text, sessionId ? { sessionId } : {});
    expect(turn.status).toBe(200);
    expect(turn.events.at(-1)).toMatchObject({ type: 'done' });
    sessionId ??= (turn.events.find((e) => e.type === 'turn') as { sessionId: string }).sessionId;
  }

  /** The report's revert after the read and a later turn: the big log's read, with what later work goes. */
  async function revertSuggestion(): Promise<{ r: ContextReport; s: Suggestion }> {
    const r = await report(sessionId!);
    const s = r.suggestions.find((x) => x.change?.kind === 'revert')!;
    expect(s).toBeDefined();
    expect(s.frees.tokens).toBeGreaterThan(0);
    expect(s.change!.text).toContain(BIG_LOG);
    expect(s.detail).toMatch(/tokens of later work/);
    return { r, s };
  }

  /** After the revert: the next call the provider counts is now − frees (plus the turn's own growth). */
  async function expectNextCall(r: ContextReport, s: Suggestion, answer: number) {
    const before = h.requests.length;
    await ask(ASK.hello);
    expectFrees(s, r.actual!.contextUsed, firstCallAfter(before), growthOf(ASK.hello, answer));
  }

  describe('through the agent route the report names', () => {
    // The session's first turns, as a user would have had them before looking at the report.
    beforeAll(async () => {
      for (const text of [ASK.hello, ASK.read, ASK.after]) await ask(text);
    });

    it('the next call is now − frees', async () => {
      const { r, s } = await revertSuggestion();
      expect(s.change!.request).toEqual({
        method: 'POST',
        path: `/api/workspace/${DEMO_WORKSPACE_ID}/agent/revert`,
        body: { sessionId, messageId: s.change!.messageId },
      });
      const answer = lastAnswer();
      const turn = await change(s);
      expect(turn.events[0]).toMatchObject({ type: 'turn', sessionId, newSession: false });
      expect(turn.events.at(-1)).toEqual({ type: 'done', stopReason: 'reverted' });
      // No model call made it; the chat's history lost the reverted messages at once.
      expect(lastAnswer()).toBe(answer);
      const rows = await h.store.listMessages(DEMO_WORKSPACE_ID, sessionId!);
      expect(rows.map((row) => row.id)).not.toContain(s.change!.messageId);
      expect(rows.map((row) => String(row.parts)).join('\n')).not.toContain(ASK.read);
      await expectNextCall(r, s, answer);
    });
  });

  describe('then the same revert made in the user’s own OpenCode', () => {
    // The user reads the log again in the same session, and works on.
    beforeAll(async () => {
      for (const text of [ASK.read, ASK.after]) await ask(text);
    });

    it('the running agent follows it: the next call is now − frees', async () => {
      const { r, s } = await revertSuggestion();
      const answer = lastAnswer();
      const user = await userOpencode();
      const reverted = await fetch(`${user.origin}/session/${sessionId}/revert`, {
        method: 'POST',
        headers: user.headers,
        body: JSON.stringify({ messageID: s.change!.messageId }),
      });
      expect(reverted.status).toBe(200);
      expect(((await reverted.json()) as { revert?: { messageID: string } }).revert?.messageID).toBe(
        s.change!.messageId,
      );
      await stopUserOpencode();
      await expectNextCall(r, s, answer);
    });
  });
});

/**
 * The user's own OpenCode server over the same state as the agent (not sandboxed: its port must
 * be reachable from here), and how to ask it: its origin and its login.
 */
async function userOpencode(): Promise<{ origin: string; headers: Record<string, string> }> {
  const how = await launch(
    { ...h.settings, sandbox: 'off' },
    { id: DEMO_WORKSPACE_ID, root: h.root, others: [] },
    { command: h.settings.command, args: ['serve', '--hostname', '127.0.0.1', '--port', '0'] },
  );
  const child = spawn(how.command, how.args, { cwd: how.cwd, env: how.env, stdio: ['ignore', 'pipe', 'pipe'] });
  serve = child;
  const origin = await new Promise<string>((resolve, reject) => {
    let said = '';
    const read = (chunk: Buffer) => {
      said += chunk.toString();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(said)?.[1];
      if (url) resolve(url);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`opencode serve ended (${code}): ${said}`)));
  });
  const login = Buffer.from(`${how.secret.username}:${how.secret.password}`).toString('base64');
  return {
    origin,
    headers: {
      Authorization: `Basic ${login}`,
      'Content-Type': 'application/json',
      'x-opencode-directory': encodeURIComponent(h.root),
    },
  };
}

/** Ends the user's OpenCode server (it has made its change) and waits until it has. */
async function stopUserOpencode() {
  if (!serve || serve.exitCode !== null || serve.signalCode !== null) return;
  const ended = new Promise((done) => serve!.once('exit', done));
  serve.kill();
  await ended;
}

/** One turn of a new session, its definitions recorded; its report, and the tools its first request sent. */
async function toolsTurn(client: AgentClient): Promise<{ report: ContextReport; sent: string[] }> {
  const from = h.requests.length;
  const { status, events } = await client.prompt(TOOLS_PROMPT);
  expect(status).toBe(200);
  const turn = events.find((e) => e.type === 'turn');
  expect(turn).toBeDefined();
  const made = await report(turn!.sessionId, client);
  const said = h.logs.filter((line) => line.includes('definitions')).join('\n');
  expect(made.calibration?.runtime?.parts, said).toMatchObject({ recorded: true, agent: 'build' });
  // Its own turn ran as scripted: the read, then the answer.
  expect(modelCalls(from).map((r) => r.kind)).toEqual(['step', 'step']);
  const first = h.requests.slice(from).find((r) => r.kind === 'step')!;
  const sent = ((first.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
  return { report: made, sent };
}

const runtimeItem = (report: ContextReport): ReportItem =>
  report.sources.flatMap((s) => s.items).find((i) => i.runtime)!;

/** Deep-merges a configuration fragment into what a file holds, as a user pasting it would. */
function merge(into: Record<string, unknown>, fragment: Record<string, unknown>): Record<string, unknown> {
  const out = { ...into };
  for (const [key, value] of Object.entries(fragment)) {
    const before = out[key];
    out[key] =
      typeof value === 'object' && value !== null && typeof before === 'object' && before !== null
        ? merge(before as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}

describe('the never-called tools, turned off as the report says', () => {
  let before: { report: ContextReport; sent: string[] };
  let after: { report: ContextReport; sent: string[] };
  let suggestion: Suggestion;
  // The same turn in the workspace, then in its scratch copy with the report's change in its
  // opencode.json, put there before the copy's agent starts (OpenCode reads it at its start).
  beforeAll(async () => {
    before = await toolsTurn(h);
    suggestion = before.report.suggestions.find((s) => s.kind === 'unused_tools')!;
    expect(suggestion.change?.kind).toBe('opencode_config');
    const path = join(h.otherRoot, 'opencode.json');
    const config = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const fragment = JSON.parse(suggestion.change!.text) as Record<string, unknown>;
    writeFileSync(path, JSON.stringify(merge(config, fragment), null, 2));
    after = await toolsTurn(h.other);
  });

  it('leave the request, and the runtime item is smaller by the suggestion’s figure (±10 %)', () => {
    const off = suggestion.tools!;
    // Built-in tools, all of them in the request the model got; never the report's own MCP tool,
    // which the model was sent and did not call either.
    expect(off).toEqual(expect.arrayContaining(['task', 'webfetch']));
    expect(before.sent).toContain('investibook_context_report');
    expect(off).not.toContain('investibook_context_report');
    expect(off.every((t) => before.sent.includes(t))).toBe(true);
    // Gone from what the model is sent, and from the definitions recorded again.
    expect(after.sent.filter((t) => off.includes(t))).toEqual([]);
    expect(after.sent.length).toBe(before.sent.length - off.length);
    const parts = runtimeItem(after.report).parts!;
    const named = parts.flatMap((p) => (p.kind === 'tool' ? [p.name!] : (p.tools ?? []).map((t) => t.name)));
    expect(named.filter((t) => off.includes(t))).toEqual([]);
    expect(named.sort()).toEqual([...after.sent].sort());
    // The runtime item, measured by the provider's counts, smaller by what the suggestion said.
    const freed = runtimeItem(before.report).scaledTokens! - runtimeItem(after.report).scaledTokens!;
    expect(Math.abs(freed - suggestion.frees.tokens)).toBeLessThanOrEqual(0.1 * suggestion.frees.tokens);
    // And the report no longer suggests turning them off.
    const still = after.report.suggestions.find((s) => s.kind === 'unused_tools')?.tools ?? [];
    expect(still.filter((t) => off.includes(t))).toEqual([]);
  });
});
