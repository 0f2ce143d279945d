/**
 * Property-based tests of the pure core: any part list, any usage, and the report still
 * validates, never throws, and conserves the agent-reported total exactly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apportion } from '../../src/node/core/apportion';
import { contextReportSchema } from '../../src/shared/wire';
import { part } from '../../src/shared/opencode/build';
import { assistant, CORE_ROOT as root, coreReport, user } from '../support/core';

const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(
    '<|endoftext|>',
    '<workspace-context><section source="evidence" label="E">x</section></workspace-context>',
    'Called the Read tool with the following input: {"filePath":"/srv/ws/evidence/a.txt"}',
    '<path>/srv/ws/evidence/a.txt</path>',
  ),
);
const anyPath = fc.oneof(
  fc.constantFrom(
    '/srv/ws/evidence/a.txt',
    '/srv/ws/meta/cluster.json',
    '/srv/ws/.opencode/skills/x/SKILL.md',
    '/etc/passwd',
    'issues/1.md',
    '../escape',
  ),
  fc.string(),
);
const anyState = fc.oneof(
  fc.record(
    {
      status: fc.constantFrom('completed', 'error', 'running', 'pending', 'weird'),
      input: fc.oneof(
        fc.record({ filePath: anyPath }),
        fc.record({ path: anyPath, pattern: fc.string() }),
        fc.record({ command: fc.string() }),
        fc.anything(),
      ),
      output: fc.oneof(anyText, fc.anything()),
      error: fc.oneof(fc.string(), fc.anything()),
      time: fc.oneof(fc.record({ start: fc.nat(), compacted: fc.option(fc.nat()) }), fc.anything()),
      metadata: fc.oneof(
        fc.record({
          investibook: fc.record({ source: fc.oneof(fc.constantFrom('evidence', 'conversation'), fc.string()) }),
        }),
        fc.anything(),
      ),
    },
    { requiredKeys: [] },
  ),
  fc.anything(),
);
const anyPart = fc.oneof(
  fc.record(
    {
      type: fc.constant('text'),
      text: fc.oneof(anyText, fc.anything()),
      synthetic: fc.boolean(),
      ignored: fc.boolean(),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('reasoning'), text: fc.oneof(anyText, fc.anything()) }, { requiredKeys: ['type'] }),
  fc.record(
    {
      type: fc.constant('tool'),
      tool: fc.oneof(fc.constantFrom('read', 'skill', 'bash', 'grep'), fc.string()),
      state: anyState,
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('file'),
      mime: fc.string(),
      filename: fc.string(),
      url: fc.oneof(fc.string(), fc.constant('data:image/png;base64,AAAA')),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({
    type: fc.constant('step-finish'),
    tokens: fc.oneof(
      fc.record({
        input: fc.nat({ max: 50_000 }),
        output: fc.nat({ max: 5_000 }),
        reasoning: fc.nat({ max: 500 }),
        cache: fc.record({ read: fc.nat({ max: 50_000 }), write: fc.nat({ max: 5_000 }) }),
      }),
      fc.anything(),
    ),
  }),
  fc.record({
    type: fc.constant('compaction'),
    auto: fc.boolean(),
    tail_start_id: fc.option(fc.constantFrom('msg_0', 'msg_1', 'msg_2', 'msg_5'), { nil: undefined }),
  }),
  fc.record({
    type: fc.constantFrom(
      'compaction',
      'step-start',
      'step-finish',
      'patch',
      'snapshot',
      'agent',
      'retry',
      'subtask',
      'unknown-kind',
    ),
  }),
  fc.anything(),
);
const anyMessage = fc.record({
  info: fc.oneof(
    fc.record(
      {
        role: fc.constantFrom('user', 'assistant'),
        summary: fc.boolean(),
        finish: fc.constantFrom('stop', 'tool-calls'),
        parentID: fc.constantFrom('msg_0', 'msg_1', 'msg_2', 'msg_3'),
        error: fc.option(fc.record({ name: fc.constantFrom('MessageAbortedError', 'APIError') }), { nil: undefined }),
        time: fc.record({ created: fc.nat() }),
        path: fc.record({ cwd: fc.constantFrom(root, '/', '/other'), root: fc.constantFrom('/', root) }),
        tokens: fc.anything(),
      },
      { requiredKeys: ['role'] },
    ),
    fc.anything(),
  ),
  parts: fc.oneof(fc.array(anyPart, { maxLength: 8 }), fc.anything()),
});
const anyUsage = fc.option(
  fc.record({
    contextUsed: fc.nat({ max: 2_000_000 }),
    contextSize: fc.option(fc.integer({ min: 1, max: 2_000_000 })),
    recordedAt: fc.nat(),
  }),
);

/**
 * A well-formed session the provider measured: turns of a user message and assistant steps that
 * each read or say something and record the prompt they sent (growing), with the agent's total
 * the last prompt or anything else. Half of the runs are these: the calibrated path is reached
 * every time, not by the luck of the random generator.
 */
const measuredSession = fc
  .array(
    fc.record({
      question: fc.string({ maxLength: 200 }),
      steps: fc.array(
        fc.record({
          body: fc.oneof(fc.string({ maxLength: 2000 }), fc.constant('x '.repeat(3000))),
          path: fc.constantFrom('evidence/a.log', 'meta/cluster.json', 'notes.txt', null),
          growth: fc.nat({ max: 5000 }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
    { minLength: 1, maxLength: 4 },
  )
  .chain((turns) => {
    let prompt = 3000;
    const messages = turns.flatMap((turn) => [
      user([part.text(turn.question)]),
      ...turn.steps.map((step) => {
        prompt += step.growth;
        const said = step.path
          ? part.tool({ tool: 'read', input: { filePath: `${root}/${step.path}` }, output: step.body })
          : part.text(step.body);
        return assistant([part.stepStart(), said, part.stepFinish({ input: prompt, output: 50 })]);
      }),
    ]);
    return fc.record({
      messages: fc.constant(messages),
      usage: fc.record({
        contextUsed: fc.oneof(
          { arbitrary: fc.constant(prompt), weight: 3 },
          { arbitrary: fc.nat({ max: 50_000 }), weight: 1 },
        ),
        contextSize: fc.constant(200_000),
        recordedAt: fc.constant(0),
      }),
    });
  });

const build = (
  messages: { info: unknown; parts: unknown }[],
  usage: { contextUsed: number; contextSize: number | null; recordedAt: number } | null,
  items: number | 'all',
) =>
  coreReport({
    messages,
    usage,
    items,
    files: { 'evidence/a.log': 10, 'meta/cluster.json': 10, 'issues/1.md': 10, evidence: 0 },
    ids: (i) => `msg_${i}`,
    workspace: {
      instructions: [{ path: 'AGENTS.md', text: 'rules' }],
      skills: [{ name: 'a', description: 'b', path: '.opencode/skills/a/SKILL.md' }],
    },
  });

describe('engine properties', () => {
  it('never throws, always validates, and conserves the total exactly', async () => {
    let measured = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.record({ messages: fc.array(anyMessage, { maxLength: 12 }), usage: anyUsage }), measuredSession),
        fc.oneof(fc.constant('all' as const), fc.integer({ min: 1, max: 5 })),
        async ({ messages, usage }, items) => {
          const report = await build(messages, usage, items);
          expect(contextReportSchema.safeParse(report).success).toBe(true);
          // Without an ACP total, the total is the last measured call's prompt (contract §8), when there is one.
          if (usage === null && report.actual === null) {
            expect(report.sources.every((s) => s.scaledTokens === null)).toBe(true);
            return;
          }
          if (usage === null) expect(report.actual!.source).toBe('provider');
          const total = usage?.contextUsed ?? report.actual!.contextUsed;
          // The sources and the remainder rows (what no source holds) add up to the total, exactly.
          const sources = report.sources.reduce((n, s) => n + (s.scaledTokens ?? 0), 0);
          const rows = report.remainder ?? [];
          expect(sources + rows.reduce((n, r) => n + r.tokens, 0)).toBe(total);
          const calibration = report.calibration!;
          const { unattributed } = calibration;
          expect(rows.reduce((n, r) => n + r.tokens, 0)).toBe(unattributed.tokens);
          expect(
            unattributed.leftSinceCall +
              unattributed.unexplained +
              (unattributed.hiddenReasoning ?? 0) +
              (unattributed.afterLastCall ?? 0),
          ).toBe(unattributed.tokens);
          expect(unattributed.hiddenReasoning ?? 0).toBeGreaterThanOrEqual(0);
          expect(unattributed.afterLastCall ?? 0).toBeGreaterThanOrEqual(0);
          if (report.cost) {
            // Every call's prompt is billed again, all of it to a source or a row.
            const billed = [...report.cost.sources, ...report.cost.rows].reduce((n, c) => n + c.inputTokens, 0);
            expect(billed).toBe(report.cost.tokens.input);
          }
          if (calibration.mode === 'measured') {
            measured++;
            // The runtime is an item of its own, never below zero.
            expect(calibration.runtimeOverhead!).toBeGreaterThanOrEqual(0);
          }
          for (const s of report.sources) {
            expect(s.scaledTokens).toBeGreaterThanOrEqual(0);
            const shown = s.items.reduce((n, i) => n + (i.scaledTokens ?? 0), 0);
            expect(shown + (s.more.scaledTokens ?? 0)).toBe(s.scaledTokens);
            expect(s.items.length + s.more.itemCount).toBe(s.itemCount);
          }
        },
      ),
      { numRuns: 400 },
    );
    // The generator must reach the calibrated path, or the property proves little: half the runs
    // are measured sessions, three in four of them with the total at the last prompt (about 150
    // of 400 calibrated), so 100 is never a coin toss.
    expect(measured).toBeGreaterThan(100);
  });

  it('apportions integers that sum to the total and never move against the weights', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 10_000_000 }),
        fc.array(fc.nat({ max: 1_000_000 }), { minLength: 1, maxLength: 30 }),
        (total, weights) => {
          const parts = apportion(total, weights);
          const sum = weights.reduce((a, b) => a + b, 0);
          expect(parts.reduce((a, b) => a + b, 0)).toBe(sum === 0 ? 0 : total);
          for (let i = 0; i < weights.length; i++) {
            for (let j = 0; j < weights.length; j++) {
              if (weights[i]! > weights[j]!) expect(parts[i]!).toBeGreaterThanOrEqual(parts[j]!);
            }
          }
        },
      ),
    );
  });
});
