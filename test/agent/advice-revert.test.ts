/**
 * The report's revert, proven by making it (issue 37, point 7), in a session of the pinned
 * OpenCode on the scripted model where a large read sits in an earlier turn: pressed exactly as
 * the report gives it (`change.request`, POST …/agent/revert, which reverts through OpenCode's
 * own server run as the agent is), the next call the provider counts is now − `frees.tokens`,
 * within a quarter of the figure plus the turn's own growth (as advice-done.test.ts). Then the
 * same revert made in the user's own OpenCode — an `opencode serve` on loopback over the agent's
 * state, its `POST /session/{id}/revert` — which the running ACP agent follows as well.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launch } from '../../src/node/agent/confinement';
import { DEMO_WORKSPACE_ID } from '../../src/node/demo/builder';
import { contextReportSchema, type ContextReport, type Suggestion } from '../../src/shared/wire';
import { readTurn, startAgentHarness, type AgentHarness } from '../support/agent-harness';

/** A log of about 11k tokens: the read the revert removes. */
const BIG_LOG = 'big-build.log';
const ASK = { hello: 'Which project is this?', read: 'Look through the build log', after: 'Sum it up in a line' };

/** Four turns, a revert and the definitions recorded (an `opencode serve` each): minutes on two busy cores. */
const LOADED = 480_000;

let h: AgentHarness;
let sessionId: string;
let serve: ChildProcess | undefined;
beforeAll(async () => {
  h = await startAgentHarness({
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
    ],
  });
});
afterAll(async () => {
  await stopUserOpencode();
  await h?.close();
});

/** Ends the user's OpenCode server (it has made its change) and waits until it has. */
async function stopUserOpencode() {
  if (!serve || serve.exitCode !== null || serve.signalCode !== null) return;
  const ended = new Promise((done) => serve!.once('exit', done));
  serve.kill();
  await ended;
}

async function ask(text: string) {
  const turn = await h.prompt(text, sessionId ? { sessionId } : {});
  expect(turn.status).toBe(200);
  expect(turn.events.at(-1)).toMatchObject({ type: 'done' });
  sessionId ??= (turn.events.find((e) => e.type === 'turn') as { sessionId: string }).sessionId;
}

async function report(): Promise<ContextReport> {
  await h.bridge.settled();
  return contextReportSchema.parse(await (await h.api(`/debug/context?session_id=${sessionId}&items=all`)).json());
}

const modelCalls = () => h.requests.filter((r) => r.kind === 'step' || r.kind === 'fallback');

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

/** The first model call from request `after` on, as the provider counted it. */
function firstCallAfter(after: number): number {
  const call = h.requests.slice(after).find((r) => r.kind === 'step' || r.kind === 'fallback');
  expect(call).toBeDefined();
  return call!.usage.prompt_tokens;
}

/** The report's revert after the three turns: a read of the big log to drop, with what later work goes. */
async function revertSuggestion(): Promise<{ r: ContextReport; s: Suggestion }> {
  const r = await report();
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
  // The turn's own growth: the last answer and the new message (≈4 characters a token, with OpenCode's framing).
  const growth = answer + Math.ceil(ASK.hello.length / 4) + 100;
  const expected = r.actual!.contextUsed - s.frees.tokens;
  expect(Math.abs(firstCallAfter(before) - expected)).toBeLessThanOrEqual(s.frees.tokens / 4 + growth);
}

it(
  'a revert through the agent route the report names: the next call is now − frees',
  async () => {
    for (const text of [ASK.hello, ASK.read, ASK.after]) await ask(text);
    const { r, s } = await revertSuggestion();
    const request = s.change!.request!;
    expect(request).toEqual({
      method: 'POST',
      path: `/api/workspace/${DEMO_WORKSPACE_ID}/agent/revert`,
      body: { sessionId, messageId: s.change!.messageId },
    });
    const answer = modelCalls().at(-1)!.usage.completion_tokens;
    const turn = await readTurn(
      await h.api(request.path.replace(`/api/workspace/${DEMO_WORKSPACE_ID}`, ''), {
        method: 'POST',
        body: JSON.stringify(request.body),
      }),
    );
    expect(turn.status).toBe(200);
    expect(turn.events[0]).toMatchObject({ type: 'turn', sessionId, newSession: false });
    expect(turn.events.at(-1)).toEqual({ type: 'done', stopReason: 'reverted' });
    // No model call made it; the chat's history lost the reverted messages at once.
    expect(modelCalls().at(-1)!.usage.completion_tokens).toBe(answer);
    const rows = await h.store.listMessages(DEMO_WORKSPACE_ID, sessionId);
    expect(rows.map((row) => row.id)).not.toContain(s.change!.messageId);
    expect(rows.map((row) => String(row.parts)).join('\n')).not.toContain(ASK.read);
    await expectNextCall(r, s, answer);
  },
  LOADED,
);

it(
  'the same revert made in the user’s own OpenCode: the running agent follows it',
  async () => {
    for (const text of [ASK.read, ASK.after]) await ask(text);
    const { r, s } = await revertSuggestion();
    const answer = modelCalls().at(-1)!.usage.completion_tokens;
    const user = await userOpencode();
    const reverted = await fetch(`${user.origin}/session/${sessionId}/revert`, {
      method: 'POST',
      headers: user.headers,
      body: JSON.stringify({ messageID: s.change!.messageId }),
    });
    expect(reverted.status).toBe(200);
    expect(((await reverted.json()) as { revert?: { messageID: string } }).revert?.messageID).toBe(s.change!.messageId);
    await stopUserOpencode();
    await expectNextCall(r, s, answer);
  },
  LOADED,
);
