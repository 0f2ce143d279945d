/**
 * What the report says a change frees, proven by making it (issue 37, points 6–7), with the pinned
 * OpenCode on the scripted model, in the demo's seeded session given to the agent as `npm run
 * demo:agent` does (one agent process for the whole file). After a live turn the header meter,
 * the report's total and the timeline's last point are one number for now. Then each change as
 * the report gives it — a new session with its hand-off and a compaction through the agent routes
 * the report names, a message to the agent sent as given — and the next call the provider counts
 * is now − `frees.tokens`, within a quarter of the figure plus the turn's own growth. (The
 * configuration's change is proven in advice-works.test.ts; a revert, through …/agent/revert, in
 * advice-revert.test.ts, where a session has a large read to revert.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextReportSchema, type ContextReport, type Suggestion } from '../../src/shared/wire';
import { readTurn, startAgentHarness, type AgentHarness } from '../support/agent-harness';

let h: AgentHarness;
let sessionId: string;
beforeAll(async () => {
  h = await startAgentHarness({ demoSessions: true });
  sessionId = ((await (await h.api('')).json()) as { defaultSessionId: string }).defaultSessionId;
});
afterAll(async () => {
  await h?.close();
});

const PROMPT = 'What do we know so far?';

async function report(id = sessionId): Promise<ContextReport> {
  await h.bridge.settled();
  return contextReportSchema.parse(await (await h.api(`/debug/context?session_id=${id}&items=all`)).json());
}

/** The provider's count of the first model call from request `after` on (the scripted model's log). */
function firstCallAfter(after: number): number {
  const call = h.requests.slice(after).find((r) => r.kind === 'step' || r.kind === 'fallback');
  expect(call).toBeDefined();
  return call!.usage.prompt_tokens;
}

/**
 * A turn's own growth of the prompt: the last call's answer, which the next prompt carries, and
 * the new message (≈4 characters a token, with OpenCode's framing of it).
 */
const growthOf = (text: string, lastAnswer = 0) => lastAnswer + Math.ceil(text.length / 4) + 100;

/** What the last model call so far answered (completion tokens), which the next prompt carries. */
const lastAnswer = () =>
  h.requests.filter((r) => r.kind === 'step' || r.kind === 'fallback').at(-1)!.usage.completion_tokens;

function expectFrees(s: Suggestion, now: number, counted: number, growth: number) {
  const expected = now - s.frees.tokens;
  expect(Math.abs(counted - expected)).toBeLessThanOrEqual(s.frees.tokens / 4 + growth);
}

async function change(s: Suggestion) {
  const request = s.change!.request!;
  expect(request.path).toMatch(/^\/api\/workspace\/demo\/agent\//);
  const path = request.path.replace('/api/workspace/demo', '');
  const turn = await readTurn(await h.api(path, { method: 'POST', body: JSON.stringify(request.body) }));
  expect(turn.status).toBe(200);
  expect(turn.events.at(-1)).toMatchObject({ type: 'done' });
  return turn.events.find((e) => e.type === 'turn') as { sessionId: string; newSession: boolean };
}

describe('the report’s changes, made', () => {
  it('after a live turn, the meter, the report’s total and the timeline’s last call are one number', async () => {
    const { status } = await h.prompt(PROMPT, { sessionId });
    expect(status).toBe(200);
    const r = await report();
    const meter = (
      (await (await h.api(`/usage?session_id=${sessionId}`)).json()) as { latest: { contextUsed: number } }
    ).latest.contextUsed;
    expect(r.actual!.contextUsed).toBe(meter);
    // OpenCode's ACP `used` is its last assistant message's input and cache tokens: the provider's
    // count of the turn's last call, which is the timeline's last point.
    expect(r.timeline!.at(-1)!.promptTokens).toBe(meter);
    const last = h.requests.filter((x) => x.kind === 'step' || x.kind === 'fallback').at(-1)!;
    expect(last.usage.prompt_tokens).toBe(meter);
  });

  it('a new session with the hand-off: its first call is now − frees', async () => {
    const r = await report();
    const s = r.suggestions.find((x) => x.change?.kind === 'new_session')!;
    expect(s.frees.tokens).toBeGreaterThan(0);
    const before = h.requests.length;
    const opened = await change(s);
    expect(opened.newSession).toBe(true);
    expect(opened.sessionId).not.toBe(sessionId);
    // The hand-off is the new session's message: the call's growth is the workspace's context note at most.
    expectFrees(s, r.actual!.contextUsed, firstCallAfter(before), growthOf(s.change!.text) / 4);
  });

  it('a message to the agent frees nothing now: the next call is now plus the message', async () => {
    const r = await report();
    const s = r.suggestions.find((x) => x.change?.kind === 'ask_agent')!;
    expect(s.frees.tokens).toBe(0);
    expect(s.change!.request).toBeUndefined();
    const before = h.requests.length;
    const answer = lastAnswer();
    expect((await h.prompt(s.change!.text, { sessionId })).status).toBe(200);
    expectFrees(s, r.actual!.contextUsed, firstCallAfter(before), growthOf(s.change!.text, answer));
  });

  it('a compaction through the agent route: the next call is now − frees', async () => {
    const r = await report();
    const s = r.suggestions.find((x) => x.change?.kind === 'compact')!;
    expect(s.frees.tokens).toBeGreaterThan(0);
    const summaries = h.requests.filter((x) => x.kind === 'summary').length;
    const answer = lastAnswer();
    expect(await change(s)).toMatchObject({ sessionId, newSession: false });
    expect(h.requests.filter((x) => x.kind === 'summary').length).toBe(summaries + 1);
    // No user message of "/compact" stands in the chat.
    const rows = await h.store.listMessages('demo', sessionId);
    expect(rows.map((row) => String(row.parts)).join('\n')).not.toContain('"/compact"');
    const before = h.requests.length;
    expect((await h.prompt(PROMPT, { sessionId })).status).toBe(200);
    expectFrees(s, r.actual!.contextUsed, firstCallAfter(before), growthOf(PROMPT, answer));
  });
});
