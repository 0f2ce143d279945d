/**
 * Property-based tests of the pure core: any part list, any usage, and the report still
 * validates, never throws, and conserves the agent-reported total exactly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apportion } from '../../src/node/report/apportion';
import { analyzeMessage } from '../../src/node/report/attribute';
import { buildReport } from '../../src/node/report/build-report';
import { chars4Estimator } from '../../src/node/report/estimator';
import { contextReportSchema } from '../../src/shared/wire';

const root = '/srv/ws';
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
      { role: fc.constantFrom('user', 'assistant'), summary: fc.boolean(), tokens: fc.anything() },
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

function build(
  messages: { info: unknown; parts: unknown }[],
  usage: { contextUsed: number; contextSize: number | null; recordedAt: number } | null,
  items: number | 'all',
) {
  const context = { estimator: chars4Estimator, root, instructionFiles: new Set<string>() };
  return buildReport({
    workspaceId: 'w',
    sessionId: 's',
    generatedAt: new Date(0).toISOString(),
    snapshotId: 'snap_test',
    estimator: chars4Estimator,
    workspace: {
      root,
      instructions: [{ path: 'AGENTS.md', text: 'rules' }],
      skills: [{ name: 'a', description: 'b', path: '.opencode/skills/a/SKILL.md' }],
      excluded: [],
      warnings: [],
      stamps: [],
    },
    messages: messages.map((m, i) => ({
      id: `msg_${i}`,
      analysis: analyzeMessage(`msg_${i}`, m.info, m.parts, context),
    })),
    history: { messages: 0, bytes: 0 },
    usage,
    warnings: [],
    itemsLimit: items,
  });
}

describe('engine properties', () => {
  it('never throws, always validates, and conserves the total exactly', () => {
    fc.assert(
      fc.property(
        fc.array(anyMessage, { maxLength: 12 }),
        anyUsage,
        fc.oneof(fc.constant('all' as const), fc.integer({ min: 1, max: 5 })),
        (messages, usage, items) => {
          const report = build(messages, usage, items);
          expect(contextReportSchema.safeParse(report).success).toBe(true);
          if (usage === null) {
            expect(report.sources.every((s) => s.scaledTokens === null)).toBe(true);
            return;
          }
          expect(report.sources.reduce((n, s) => n + (s.scaledTokens ?? 0), 0)).toBe(usage.contextUsed);
          for (const s of report.sources) {
            const shown = s.items.reduce((n, i) => n + (i.scaledTokens ?? 0), 0);
            expect(shown + (s.more.scaledTokens ?? 0)).toBe(s.scaledTokens);
            expect(s.items.length + s.more.itemCount).toBe(s.itemCount);
          }
        },
      ),
      { numRuns: 300 },
    );
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
