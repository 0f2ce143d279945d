/**
 * The report's revert, proven by making it (issue 37, point 7). OpenCode's ACP agent cannot revert,
 * so the product gives it as advice to make by hand: here the user's own OpenCode makes it — an
 * `opencode serve` on loopback over the agent's own state, its `POST /session/{id}/revert` with
 * the report's `messageId` — in a session of the pinned OpenCode on the scripted model where a
 * large read sits in an earlier turn. The next call the provider counts is now − `frees.tokens`, within a quarter of
 * the figure plus the turn's own growth (as advice-done.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launch } from '../../src/node/agent/confinement';
import { DEMO_WORKSPACE_ID } from '../../src/node/demo/builder';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { startAgentHarness, type AgentHarness } from '../support/agent-harness';

/** A log of about 11k tokens: the read the revert removes. */
const BIG_LOG = 'big-build.log';
const ASK = { hello: 'Which project is this?', read: 'Look through the build log', after: 'Sum it up in a line' };

let h: AgentHarness;
let sessionId: string;
let serve: ChildProcess | undefined;
beforeAll(async () => {
  h = await startAgentHarness({
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

it('a revert to before the large read, made in the user’s own OpenCode: the next call is now − frees', async () => {
  for (const text of [ASK.hello, ASK.read, ASK.after]) await ask(text);
  const r = await report();
  const s = r.suggestions.find((x) => x.change?.kind === 'revert')!;
  expect(s).toBeDefined();
  expect(s.frees.tokens).toBeGreaterThan(0);
  expect(s.change!.text).toContain(BIG_LOG);
  // No live route: the product cannot make it, the user does.
  expect(s.change!.request).toBeUndefined();
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

  const before = modelCalls().length;
  await ask(ASK.hello);
  const counted = modelCalls()[before]!.usage.prompt_tokens;
  // The turn's own growth: the last answer and the new message (≈4 characters a token, with OpenCode's framing).
  const growth = answer + Math.ceil(ASK.hello.length / 4) + 100;
  const expected = r.actual!.contextUsed - s.frees.tokens;
  expect(Math.abs(counted - expected)).toBeLessThanOrEqual(s.frees.tokens / 4 + growth);
});
