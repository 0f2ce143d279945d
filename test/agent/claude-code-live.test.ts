/**
 * Claude Code as the live agent, under the bridge's faults and its meter, against the real
 * pinned claude-agent-acp on the scripted model — one agent launch and one session for the file
 * (its new sessions are the hand-off's, and the restart's after a kill): the meter moves with
 * Claude Code's `usage_update`s (whose `used` includes the last call's output), a saved session is
 * named as Claude Code names it, the demo's story runs in the tools Claude Code offers (every
 * tool call of the script — written with OpenCode's tools, demo-script.ts makes them Claude
 * Code's — its searches, a subagent, a todo list, a skill — runs; the shell command is asked
 * about and refused by the server's policy, as with OpenCode; nothing the model is sent says "No
 * such tool available"), Stop ends a turn and the next prompt is taken at once, and an agent
 * killed mid-turn is started again for the next prompt.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AcpProcess } from '../../src/node/agent/acp-process';
import { readFileSync } from 'node:fs';
import { DEMO_MODEL } from '../../src/node/agent/claude-code/demo';
import { claudeCodeScript } from '../../src/node/agent/claude-code/demo-script';
import { transcriptPath } from '../../src/node/agent/claude-code/install';
import { agentHome } from '../../src/node/agent/claude-code/write-side';
import { DEMO_WORKSPACE_ID } from '../../src/node/demo/builder';
import { liveDemoScript, SEEDED_FINDING } from '../../src/node/demo/live-script';
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
import { killAtFirstTool, stopAtFirstTool } from './mid-turn';

let h: ClaudeCodeHarness;

/** The seeded conversation's planning turn (its todo list), asked where it does not know the finding. */
const planTurn = (root: string) => {
  const report = claudeCodeScript(liveDemoScript(root)).turns.find(
    (t) => t.when === 'report' && t.knows === SEEDED_FINDING,
  )!;
  return { when: 'make the todo list', steps: report.steps.map(({ delayMs: _wait, ...step }) => step) };
};

beforeAll(async () => {
  h = await startClaudeCodeHarness({
    turns: (root) => [
      planTurn(root),
      {
        when: 'take your time',
        steps: [
          { tools: [{ name: 'Read', args: { file_path: `${root}/evidence/pd-hot-regions.txt` } }] },
          // Held until the test lets it go (or Claude Code is gone): the turn is still running
          // whenever the Stop or the kill lands, and nobody waits out a delay after.
          { hold: true, text: 'This answer comes too late.' },
        ],
      },
    ],
  });
});
afterAll(() => h?.close());

/** The sessions the bridge asks Claude Code to load (ACP session/load). */
const loads = vi.spyOn(AcpProcess.prototype, 'loadSession');

const of = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

/** Claude Code's main-agent calls (the small model's helper calls and token counts aside). */
const mainCalls = () =>
  h.requests.filter((r) => r.kind !== 'count_tokens' && r.kind !== 'title' && r.body.model === DEMO_MODEL);
const promptOf = (u: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number }) =>
  u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;

type ToolEvent = Extract<AgentEvent, { type: 'tool' }>;
/** Each call's last state, by Claude Code's tool name. */
const finished = (events: AgentEvent[]) =>
  [...new Map(of(events, 'tool').map((e: ToolEvent) => [e.toolCallId, e])).values()].map((e) => [e.tool, e.status]);

type Block = { type: string; id?: string; name?: string; tool_use_id?: string; is_error?: boolean };
/** How each call of a tool was answered, as the model was last sent them. */
function results(tool: string): string[] {
  const blocks = h.requests
    .filter((r) => r.kind === 'step')
    .at(-1)!
    .body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Block[]) : []));
  const ids = blocks.filter((b) => b.type === 'tool_use' && b.name === tool).map((b) => b.id);
  return ids.map((id) => {
    const result = blocks.find((b) => b.type === 'tool_result' && b.tool_use_id === id);
    return !result ? 'missing' : result.is_error ? 'error' : 'ok';
  });
}

/** How many of the session's saved rows hold this text. */
async function rowsWith(sessionId: string, text: string): Promise<number> {
  const rows = await h.store.listMessages(DEMO_WORKSPACE_ID, sessionId);
  return rows.filter((r) => String(r.parts).includes(text)).length;
}

/** The file's one session: every turn below but the hand-off's runs in it. */
let sessionId = '';

describe('Claude Code as the live agent', () => {
  it('moves the meter with its usage_updates: the latest main call’s prompt and its output; searches with Grep and reads', async () => {
    const before = mainCalls().length;
    // Asked in a seeded conversation, which is OpenCode's: Claude Code never kept it, so a new
    // session starts with a note, and Claude Code is not started to look for it (ACP session/load).
    const seeded = workspaceSchema.parse(await (await h.api('')).json()).sessions[0]!.id;
    const { events } = await h.prompt('What do we know so far?', { sessionId: seeded });
    const opened = of(events, 'turn')[0]!;
    expect(opened).toMatchObject({
      newSession: true,
      note: expect.stringContaining('does not have this conversation'),
    });
    expect(opened.sessionId).not.toBe(seeded);
    expect(loads).not.toHaveBeenCalledWith(seeded, expect.anything());
    sessionId = opened.sessionId;
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
    // The demo's slow-query turn, in Claude Code's tools.
    expect(finished(next.events)).toEqual([
      ['Grep', 'completed'],
      ['Read', 'completed'],
    ]);
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
  let titled = '';
  beforeAll(async () => {
    const workspace = workspaceSchema.parse(await (await h.api('')).json());
    titled = workspace.sessions.find((s) => s.title !== null && !s.parentSessionId)!.id;
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
    const r = await report(titled);
    const s = r.suggestions.find((x) => x.change?.kind === 'new_session')!;
    expect(s.frees.tokens).toBeGreaterThan(0);
    expect(s.change!.request?.path).toBe(`/api/workspace/${DEMO_WORKSPACE_ID}/agent/new-session`);
    const before = h.requests.length;
    const opened = await change(s.change!.request!);
    expect(opened).toMatchObject({ newSession: true });
    expect(opened.sessionId).not.toBe(titled);
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
    const r = await report(titled);
    // No earlier compaction in this session: Claude Code's summary has nothing to go by, so no figure.
    expect(r.suggestions.find((x) => x.change?.kind === 'compact')).toBeUndefined();
  });
});

describe("the demo's story in the tools Claude Code offers", () => {
  it('loads a skill, hands a check to a subagent and plans with its todo tool', async () => {
    const turns: AgentEvent[][] = [];
    for (const text of ['Load the skill', 'Have a subagent check it', 'make the todo list']) {
      const { events } = await h.prompt(text, { sessionId });
      expect(events.find((e) => e.type === 'done')).toMatchObject({ stopReason: 'end_turn' });
      turns.push(events);
    }
    const [skill, subagent, plan] = turns.map(finished);
    expect(skill).toEqual([['Skill', 'completed']]);
    // The subagent's own Read and Grep stream in the parent's turn.
    expect(subagent).toEqual(
      expect.arrayContaining([
        ['Agent', 'completed'],
        ['Read', 'completed'],
        ['Grep', 'completed'],
      ]),
    );
    // Claude Code's adapter streams its task list as an ACP plan, not as tool calls: the model's side shows them.
    expect(plan).toEqual([['ToolSearch', 'completed']]);
    expect(results('TaskCreate')).toEqual(['ok', 'ok', 'ok']);
  });

  it('asks before the shell, and the server refuses, as with OpenCode', async () => {
    const { events } = await h.prompt('Check the cluster', { sessionId });
    expect(finished(events)).toEqual([['Bash', 'failed']]);
  });

  it('offers every tool the script calls, and never answers one with "No such tool available"', () => {
    const sent = JSON.stringify(h.requests.map((r) => r.body));
    expect(sent).not.toContain('No such tool available');
    const last = h.requests.filter((r) => r.kind === 'step').at(-1)!.body;
    const offered = new Set((last.tools ?? []).map((t) => t.name));
    // Deferred tools are listed by name in the conversation, one a line, their schemas loaded on demand.
    const deferred = (name: string) => sent.includes(`\\n${name}\\n`);
    const called = claudeCodeScript(liveDemoScript(h.root)).turns.flatMap((t) =>
      t.steps.flatMap((s) => (s.tools ?? []).map((c) => c.name)),
    );
    expect(called.filter((name) => !offered.has(name) && !deferred(name))).toEqual([]);
  });
});

// The kill first: after the Stop the model lets its held answers go for good.
describe('when a Claude Code turn does not go to plan', () => {
  it('survives Claude Code being killed mid-turn, and starts it again for the next prompt', async () => {
    const prompts = await rowsWith(sessionId, 'Please take your time');
    const cut = await killAtFirstTool(
      h,
      'Please take your time',
      () => process.kill(h.bridge.processId(DEMO_WORKSPACE_ID)!, 'SIGKILL'),
      { sessionId },
    );
    expect(cut.killed).toBe(true);
    expect(of(cut.events, 'error')[0]).toMatchObject({ code: 'agent_exited' });
    expect(await rowsWith(sessionId, 'Please take your time')).toBeGreaterThan(prompts);
    const next = await h.prompt('What do we know so far?', { sessionId });
    expect(of(next.events, 'turn')[0]).toMatchObject({ sessionId, newSession: false });
    expect(of(next.events, 'done')[0]?.stopReason).toBe('end_turn');
    // The restarted Claude Code loaded the session it kept.
    expect(loads).toHaveBeenCalledWith(sessionId, h.root);
  });

  it('stops a turn on Stop: over at once, saved after, and the next prompt is taken', async () => {
    const [prompts, reads] = [
      await rowsWith(sessionId, 'Please take your time'),
      await rowsWith(sessionId, 'pd-hot-regions.txt'),
    ];
    const stopped = await stopAtFirstTool(h, 'Please take your time', 'What do we know so far?', { sessionId });
    // Claude Code's interrupt does not withdraw the call in flight (it may even reach the model
    // after the Stop): the next prompt waits for its answer, so the model lets it go now, for good.
    h.release();
    expect(stopped.asked).toBe(true);
    expect(of(stopped.events, 'done')[0]?.stopReason).toBe('cancelled');
    expect(of(stopped.events, 'saved')).toHaveLength(1);
    // Saved: the prompt and the call it finished, as rows the session did not hold before.
    expect(await rowsWith(sessionId, 'Please take your time')).toBeGreaterThan(prompts);
    expect(await rowsWith(sessionId, 'pd-hot-regions.txt')).toBeGreaterThan(reads);
    const after = await stopped.next!;
    expect(of(after.events, 'turn')[0]).toMatchObject({ sessionId, newSession: false });
    expect(of(after.events, 'done')[0]?.stopReason).toBe('end_turn');
    expect((await (await h.api('/agent')).json()).running).toEqual([]);
  });
});
