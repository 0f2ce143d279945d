/**
 * Claude Code as the live agent, under the bridge's faults and its meter, against the real
 * pinned claude-agent-acp on the scripted model (one agent launch for the file): the meter moves
 * with Claude Code's `usage_update`s (whose `used` includes the last call's output), a saved
 * session is named as Claude Code names it, Stop ends a turn and the next prompt is taken at
 * once, and an agent killed mid-turn is started again for the next prompt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { DEMO_MODEL } from '../../src/node/agent/claude-code/demo';
import { transcriptPath } from '../../src/node/agent/claude-code/install';
import { agentHome } from '../../src/node/agent/claude-code/write-side';
import { DEMO_WORKSPACE_ID } from '../../src/node/demo/builder';
import type { AgentEvent } from '../../src/shared/agent';
import { workspaceContext } from '../../src/node/agent/workspace-context';
import {
  contextReportSchema,
  usageSchema,
  workspaceSchema,
  type ContextReport,
  type Suggestion,
} from '../../src/shared/wire';
import { readTurn } from '../support/agent-harness';
import { startClaudeCodeHarness, type ClaudeCodeHarness } from './claude-code-harness';

let h: ClaudeCodeHarness;

beforeAll(async () => {
  h = await startClaudeCodeHarness({
    turns: (root) => [
      {
        when: 'take your time',
        steps: [
          { tools: [{ name: 'Read', args: { file_path: `${root}/evidence/pd-hot-regions.txt` } }] },
          { delayMs: 60_000, text: 'This answer comes too late.' },
        ],
      },
    ],
  });
});
afterAll(() => h?.close());

const of = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

/** Claude Code's main-agent calls (the small model's helper calls and token counts aside). */
const mainCalls = () =>
  h.requests.filter((r) => r.kind !== 'count_tokens' && r.kind !== 'title' && r.body.model === DEMO_MODEL);
const promptOf = (u: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number }) =>
  u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;

describe('Claude Code as the live agent', () => {
  let sessionId = '';

  it('moves the meter with its usage_updates: the latest main call’s prompt and its output', async () => {
    const before = mainCalls().length;
    const { events } = await h.prompt('What do we know so far?');
    sessionId = of(events, 'turn')[0]!.sessionId;
    expect(of(events, 'done')[0]?.stopReason).toBe('end_turn');
    const calls = mainCalls().slice(before);
    expect(calls.length).toBeGreaterThan(1);
    const last = calls.at(-1)!.usage;
    // Claude Code's `used` is the latest call's prompt and its output (OpenCode's leaves the output out).
    const usage = of(events, 'usage');
    expect(usage.at(-1)).toMatchObject({ used: promptOf(last) + last.output_tokens, size: 200_000 });
    // Its running cost, as given.
    expect(usage.at(-1)!.cost?.amount).toBeGreaterThan(0);
    const meter = usageSchema.parse(await (await h.api(`/usage?session_id=${sessionId}`)).json());
    expect(meter.latest?.contextUsed).toBe(usage.at(-1)!.used);

    // The next turn's calls carry more: the meter moves with them.
    const next = await h.prompt('Tell me about the slow queries', { sessionId });
    expect(of(next.events, 'done')[0]?.stopReason).toBe('end_turn');
    const latest = mainCalls().at(-1)!.usage;
    const moved = usageSchema.parse(await (await h.api(`/usage?session_id=${sessionId}`)).json());
    expect(moved.latest?.contextUsed).toBe(promptOf(latest) + latest.output_tokens);
    expect(moved.latest!.contextUsed).toBeGreaterThan(meter.latest!.contextUsed);
  });

  it('names the saved session as Claude Code’s own session list does', async () => {
    const workspace = workspaceSchema.parse(await (await h.api('')).json());
    const listed = workspace.sessions.find((s) => s.id === sessionId);
    // Claude Code wrote no title line (the scripted model's helper title is not kept): its own
    // list names the session by the latest prompt it noted, and so does the chat's.
    const transcript = readFileSync(
      transcriptPath(agentHome(h.settings, DEMO_WORKSPACE_ID), h.root, sessionId),
      'utf8',
    );
    const lines = transcript
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.some((l) => l.type === 'custom-title' || l.type === 'ai-title')).toBe(false);
    const noted = lines.filter((l) => l.type === 'last-prompt').at(-1)?.lastPrompt;
    expect(noted).toEqual(expect.any(String));
    expect(listed?.title).toBe(noted);
  });
});

describe('the report’s history changes, in Claude Code’s terms', () => {
  let sessionId = '';
  beforeAll(async () => {
    const workspace = workspaceSchema.parse(await (await h.api('')).json());
    sessionId = workspace.sessions.find((s) => s.title !== null && !s.parentSessionId)!.id;
  });

  async function report(id: string): Promise<ContextReport> {
    await h.bridge.settled();
    return contextReportSchema.parse(await (await h.api(`/debug/context?session_id=${id}&items=all`)).json());
  }

  async function change(request: NonNullable<NonNullable<Suggestion['change']>['request']>) {
    const path = request.path.replace(`/api/workspace/${DEMO_WORKSPACE_ID}`, '');
    const turn = await readTurn(await h.api(path, { method: 'POST', body: JSON.stringify(request.body) }));
    expect(turn.status).toBe(200);
    expect(turn.events.at(-1)).toMatchObject({ type: 'done' });
    return of(turn.events, 'turn')[0]!;
  }

  it('a new session with the hand-off (Claude Code’s /clear): its first call is now − frees', async () => {
    const r = await report(sessionId);
    const s = r.suggestions.find((x) => x.change?.kind === 'new_session')!;
    expect(s.frees.tokens).toBeGreaterThan(0);
    expect(s.change!.request?.path).toBe(`/api/workspace/${DEMO_WORKSPACE_ID}/agent/new-session`);
    const before = h.requests.length;
    const opened = await change(s.change!.request!);
    expect(opened).toMatchObject({ newSession: true });
    expect(opened.sessionId).not.toBe(sessionId);
    // The new session's first call (the old session's prompt suggestion, a helper call, may come first).
    const opening = s.change!.text.split('\n')[0]!;
    const first = h.requests
      .slice(before)
      .find(
        (x) =>
          x.kind !== 'count_tokens' &&
          x.body.model === DEMO_MODEL &&
          !x.body.messages.some((m) => m.role === 'assistant') &&
          JSON.stringify(x.body.messages).includes(opening),
      )!;
    const counted = promptOf(first.usage);
    // Within a quarter of the figure, plus what the new session adds besides the hand-off: the
    // workspace's context note the bridge gives every new session (≈ its characters / 4).
    const note = Math.ceil(workspaceContext(h.root)!.length / 4);
    expect(Math.abs(counted - (r.actual!.contextUsed - s.frees.tokens))).toBeLessThanOrEqual(s.frees.tokens / 4 + note);
  });

  it('offers a compaction only as Claude Code’s own /compact, with no request', async () => {
    const r = await report(sessionId);
    // No earlier compaction in this session: Claude Code's summary has nothing to go by, so no figure.
    expect(r.suggestions.find((x) => x.change?.kind === 'compact')).toBeUndefined();
  });
});

describe('when a Claude Code turn does not go to plan', () => {
  it('stops a turn on Stop: over at once, saved after, and the next prompt is taken', async () => {
    let sessionId = '';
    let asked = false;
    let next: ReturnType<typeof h.prompt> | null = null;
    const { events } = await h.prompt('Please take your time', {
      during: (event) => {
        if (event.type === 'turn') sessionId = event.sessionId;
        if (event.type === 'tool' && event.status === 'completed' && !asked) {
          asked = true;
          void h.api('/agent/cancel', { method: 'POST', body: JSON.stringify({ sessionId }) });
        }
        if (event.type === 'done') next = h.prompt('What do we know so far?', { sessionId });
      },
    });
    expect(asked).toBe(true);
    expect(of(events, 'done')[0]?.stopReason).toBe('cancelled');
    expect(of(events, 'saved')).toHaveLength(1);
    const rows = await h.store.listMessages(DEMO_WORKSPACE_ID, sessionId);
    expect(rows.some((r) => String(r.parts).includes('Please take your time'))).toBe(true);
    expect(rows.some((r) => String(r.parts).includes('pd-hot-regions.txt'))).toBe(true);
    const after = await next!;
    expect(of(after.events, 'turn')[0]).toMatchObject({ sessionId, newSession: false });
    expect(of(after.events, 'done')[0]?.stopReason).toBe('end_turn');
    expect((await (await h.api('/agent')).json()).running).toEqual([]);
  });

  it('survives Claude Code being killed mid-turn, and starts it again for the next prompt', async () => {
    let sessionId = '';
    let killed = false;
    const { events } = await h.prompt('Please take your time', {
      during: (event) => {
        if (event.type === 'turn') sessionId = event.sessionId;
        if (event.type === 'tool' && event.status === 'completed' && !killed) {
          killed = true;
          process.kill(h.bridge.processId(DEMO_WORKSPACE_ID)!, 'SIGKILL');
        }
      },
    });
    expect(killed).toBe(true);
    expect(of(events, 'error')[0]).toMatchObject({ code: 'agent_exited' });
    const rows = await h.store.listMessages(DEMO_WORKSPACE_ID, sessionId);
    expect(rows.some((r) => String(r.parts).includes('Please take your time'))).toBe(true);
    const next = await h.prompt('What do we know so far?', { sessionId });
    expect(of(next.events, 'turn')[0]).toMatchObject({ sessionId, newSession: false });
    expect(of(next.events, 'done')[0]?.stopReason).toBe('end_turn');
  });
});
