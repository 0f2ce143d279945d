/**
 * The demo's story through the real Claude Code: every tool call of the script (written with
 * OpenCode's tools, demo-script.ts makes them Claude Code's) is one the pinned Claude Code offers
 * in the session the server opens — its searches, a subagent, a todo list, a skill — and runs;
 * the shell command is asked about and refused by the server's policy, as with OpenCode. Nothing
 * the model is sent says "No such tool available".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeScript } from '../../src/node/agent/claude-code/demo-script';
import { liveDemoScript, SEEDED_FINDING } from '../../src/node/demo/live-script';
import type { AgentEvent } from '../../src/shared/agent';
import { startClaudeCodeHarness, type ClaudeCodeHarness } from './claude-code-harness';

let h: ClaudeCodeHarness;

/** The seeded conversation's planning turn (its todo list), asked in a new session. */
const planTurn = (root: string) => {
  const report = claudeCodeScript(liveDemoScript(root)).turns.find(
    (t) => t.when === 'report' && t.knows === SEEDED_FINDING,
  )!;
  return [{ when: 'make the todo list', steps: report.steps.map(({ delayMs: _wait, ...step }) => step) }];
};

beforeAll(async () => {
  h = await startClaudeCodeHarness({ turns: planTurn });
}, 180_000);
afterAll(async () => {
  await h?.close();
});

type ToolEvent = Extract<AgentEvent, { type: 'tool' }>;
const toolsOf = (events: AgentEvent[]) => events.filter((e): e is ToolEvent => e.type === 'tool');
/** Each call's last state, by Claude Code's tool name. */
const finished = (events: AgentEvent[]) =>
  [...new Map(toolsOf(events).map((e) => [e.toolCallId, e])).values()].map((e) => [e.tool, e.status]);

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

describe("the demo's story in the tools Claude Code offers", () => {
  const turns: AgentEvent[][] = [];

  it('searches with Grep, reads, loads a skill, hands a check to a subagent and plans with its todo tool', async () => {
    for (const text of [
      'Tell me about the slow queries',
      'Load the skill',
      'Have a subagent check it',
      'make the todo list',
    ]) {
      const { events } = await h.prompt(text);
      expect(events.find((e) => e.type === 'done')).toMatchObject({ stopReason: 'end_turn' });
      turns.push(events);
    }
    const [slow, skill, subagent, plan] = turns.map(finished);
    expect(slow).toEqual([
      ['Grep', 'completed'],
      ['Read', 'completed'],
    ]);
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
    const { events } = await h.prompt('Check the cluster');
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
