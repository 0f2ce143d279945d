/**
 * The demo tells one story: the live agent continuing the seeded INC-4821 conversation (as
 * `npm run demo:agent` has it) agrees with what that conversation found — the missing index on
 * `merchant_limits.merchant_id`, the note drafted — and refers to what its context already holds
 * instead of reading it again; one turn hands a check to a subagent. Each suggested prompt of the
 * demo is played against the scripted model with the seeded conversation as the request carries
 * it (the recording's last request, its final reply and the new prompt), step by step.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import { liveDemoScript, SEEDED_FINDING } from '../../src/node/demo/live-script';
import { ReportService } from '../../src/node/report/service';
import type { ChatMessage } from '../../src/node/scripted-model/prompt-tokens';
import { answer, type ScriptedToolCall } from '../../src/node/scripted-model/script';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { loadRecording } from '../support/recordings';

const ROOT = '/srv/demo';
const script = liveDemoScript(ROOT);
const roles = { smallModels: ['small'] };
const PROMPTS = [
  'What do we know so far?',
  'Tell me about the slow queries',
  'Load the skill',
  'Can you check with the cluster?',
  'Draft the incident report',
  'Ask a subagent to double-check the fix',
];

/** The turn a prompt starts, played to its end: each step's tools and text. */
function play(history: ChatMessage[], prompt: string) {
  const messages: ChatMessage[] = [...history, { role: 'user', content: prompt }];
  const steps: { tools: ScriptedToolCall[]; text: string }[] = [];
  for (let call = 0; call < 10; call++) {
    const reply = answer(script, { model: 'scripted', messages }, roles);
    if (reply.kind !== 'step') {
      steps.push({ tools: [], text: reply.kind === 'fallback' ? reply.text : '' });
      break;
    }
    const tools = reply.step.tools ?? [];
    steps.push({ tools, text: reply.step.text ?? '' });
    if (tools.length === 0) break;
    messages.push({ role: 'assistant', content: '', tool_calls: [] }, { role: 'tool', content: 'done' });
  }
  return steps;
}

const paths = (tools: ScriptedToolCall[]) =>
  tools.flatMap((t) => [t.args.filePath, t.args.path].filter((p): p is string => typeof p === 'string'));

let dir: string;
/** The workspace files the seeded session's context holds now (its report's items' paths). */
let inContext: Set<string>;
let seeded: ChatMessage[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-story-'));
  await seedDemoDatabase(join(dir, 'investibook.db'), 'story-token');
  const store = await openSqlite(join(dir, 'investibook.db'), { readOnly: true });
  try {
    const report = await new ReportService(store).report({ workspaceId: 'demo', items: 'all' });
    inContext = new Set(report.sources.flatMap((s) => s.items.flatMap((i) => (i.path ? [i.path] : []))));
  } finally {
    await store.close();
  }
  // The request the live agent's first call carries: the seeded conversation, its last reply too.
  const recording = loadRecording('demo-incident');
  const last = recording.export.messages.at(-1)!;
  const finalText = last.parts.flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : []));
  expect(finalText.join('')).toContain(SEEDED_FINDING);
  seeded = [...(recording.lastRequest.messages as ChatMessage[]), { role: 'assistant', content: finalText.join('') }];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the demo’s live turns, continuing the seeded investigation', () => {
  it.each(PROMPTS)('“%s” agrees with its findings and reads nothing its context holds', (prompt) => {
    const steps = play(seeded, prompt);
    const said = steps.map((s) => s.text).join('\n');
    expect(said).not.toMatch(/payment_orders/);
    expect(said).not.toMatch(/Done for this turn/); // never the fallback
    const read = steps.flatMap((s) => paths(s.tools)).map((p) => p.replace(`${ROOT}/`, ''));
    expect(read.filter((p) => inContext.has(p) || [...inContext].some((c) => p.startsWith(`${c}/`)))).toEqual([]);
    expect(steps.flatMap((s) => s.tools).filter((t) => t.name === 'skill')).toEqual([]);
  });

  it('names the cause the seeded conversation found, without reading again', () => {
    for (const prompt of ['What do we know so far?', 'Tell me about the slow queries']) {
      const steps = play(seeded, prompt);
      expect(steps.flatMap((s) => s.tools)).toEqual([]);
      expect(steps.at(-1)!.text).toContain('missing index on `merchant_limits.merchant_id`');
    }
    expect(play(seeded, 'What do we know so far?').at(-1)!.text).toMatch(/internal note .* drafted/);
  });

  it('hands one check to a subagent, which reads in a context of its own and confirms the fix', () => {
    const [delegate, after] = play(seeded, 'Ask a subagent to double-check the fix');
    expect(delegate!.tools).toEqual([
      { name: 'task', args: expect.objectContaining({ subagent_type: 'general', description: 'Check the index fix' }) },
    ]);
    expect(after!.text).toContain('ADD INDEX idx_merchant_id (merchant_id)');
    // The subagent's session starts with the task's prompt and nothing else.
    const child = play([], String(delegate!.tools[0]!.args.prompt));
    expect(paths(child[0]!.tools)).toContain(`${ROOT}/sources/merchant_limits.sql`);
    expect(child.at(-1)!.text).toContain('No index on `merchant_id`');
  });
});

describe('the same words in a new session', () => {
  it('start from the evidence, and find the same cause', () => {
    expect(paths(play([], 'What do we know so far?')[0]!.tools)).toEqual([
      `${ROOT}/evidence/evidence_summary_for_agent.txt`,
    ]);
    const slow = play([], 'Tell me about the slow queries');
    expect(slow.flatMap((s) => paths(s.tools))).toContain(`${ROOT}/evidence/slow-query.log`);
    expect(slow.at(-1)!.text).toContain('missing index on `merchant_limits.merchant_id`');
    for (const prompt of PROMPTS)
      expect(
        play([], prompt)
          .map((s) => s.text)
          .join('\n'),
      ).not.toMatch(/payment_orders/);
    expect(script.summary).not.toMatch(/payment_orders/);
    expect(script.summary).toContain('merchant_limits.merchant_id');
  });
});

describe('a turn that ended on a tool’s result (a refused call)', () => {
  // OpenCode ends the turn when the server refuses a call: the user's next prompt follows the
  // tool's result directly, and must start its own turn (an earlier rule read it as context).
  const refused: ChatMessage[] = [
    { role: 'user', content: 'Can you check with the cluster?' },
    { role: 'assistant', content: '', tool_calls: [] },
    { role: 'tool', content: 'The user rejected permission to use this specific tool call.' },
  ];

  it('starts the next prompt’s turn', () => {
    const messages: ChatMessage[] = [...refused, { role: 'user', content: 'Draft the incident report' }];
    const reply = answer(script, { model: 'scripted', messages }, roles);
    expect(reply.kind).toBe('step');
    expect(reply.kind === 'step' && (reply.step.tools ?? []).map((t) => t.name)).toEqual(
      play([], 'Draft the incident report')[0]!.tools.map((t) => t.name),
    );
  });

  it('but text the runtime sent with the result (a skill Claude Code loaded) starts none', () => {
    const withSkill: ChatMessage[] = [
      ...refused,
      { role: 'user', content: 'Draft the incident report from the skill', withToolResult: true },
    ];
    const after = answer(script, { model: 'scripted', messages: withSkill }, roles);
    const before = answer(script, { model: 'scripted', messages: refused }, roles);
    expect(after).toEqual(before);
  });
});
