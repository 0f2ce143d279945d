/**
 * The engine's rules on data in memory (test/support/core.ts): no database, no folder. Parts are
 * made by the OpenCode format module's own builders, never by a second hand-written mirror.
 */
import { describe, expect, it } from 'vitest';
import { part, readOutput } from '../../src/shared/opencode/build';
import type { ContextReport } from '../../src/shared/wire';
import { assistant, CORE_ROOT, coreReport, messageId, user } from '../support/core';

const read = (path: string, body: string) =>
  part.tool({
    tool: 'read',
    input: { filePath: `${CORE_ROOT}/${path}` },
    output: readOutput(`${CORE_ROOT}/${path}`, [body]),
  });
const items = (r: ContextReport) => r.sources.flatMap((s) => s.items.map((i) => ({ ...i, source: s.id })));
const sourceOf = (r: ContextReport, label: string) => items(r).find((i) => i.label === label)?.source;

describe('the core, in memory', () => {
  it('attributes reads by the folder rules of the source table, not to the tool that carried them', async () => {
    const r = await coreReport({
      files: { 'evidence/slow.log': 40, 'meta/cluster.json': 20, 'issues/7.md': 10, 'notes.txt': 5 },
      messages: [
        user([part.text('why is it slow?')]),
        assistant([
          read('evidence/slow.log', 'Query_time: 2.1'),
          read('meta/cluster.json', '{"cluster":"c1"}'),
          read('issues/7.md', '# Issue 7'),
          read('notes.txt', 'misc'),
        ]),
      ],
    });
    expect(sourceOf(r, 'Read evidence: slow.log')).toBe('evidence');
    expect(sourceOf(r, 'Read cluster metadata: cluster.json')).toBe('cluster_alert_metadata');
    expect(sourceOf(r, 'Read issue file: 7.md')).toBe('issue_source_files');
    // Anything else inside the root is the workspace's own file (contract §2): Issue/source files, by path.
    expect(items(r).find((i) => i.label.includes('notes.txt'))?.source).toBe('issue_source_files');
    expect(JSON.stringify(r.sources.map((s) => s.label))).not.toMatch(/tool output/i);
  });

  it('keeps the summary and the kept tail after a compaction, and counts what came before as history', async () => {
    const messages = [
      user([part.text('first question '.repeat(20))]),
      assistant([part.text('first answer '.repeat(20))]),
      user([part.text('kept question')]),
      assistant([part.text('kept answer')]),
      user([part.compaction({ auto: true, tailStartId: messageId(2) })]),
      assistant([part.text('Summary of the investigation so far.')], {
        summary: true,
        mode: 'compaction',
        parentID: messageId(4),
      }),
      user([part.text('next question')]),
    ];
    const r = await coreReport({ messages });
    const labels = items(r).map((i) => i.label);
    expect(labels).toEqual(expect.arrayContaining(['User message: kept question', 'User message: next question']));
    expect(labels.some((l) => l.includes('first question'))).toBe(false);
    expect(labels.some((l) => /summary/i.test(l))).toBe(true);
    expect(r.excluded.some((e) => /compaction|history/i.test(e.label))).toBe(true);
  });

  it('measures the runtime overhead from the first call and makes the sources add up to the total', async () => {
    const r = await coreReport({
      files: { 'evidence/slow.log': 40 },
      usage: { contextUsed: 5_300, contextSize: 200_000, recordedAt: 2_000_000_000_000 },
      messages: [
        user([part.text('look at the slow log')]),
        assistant([part.stepStart(), read('evidence/slow.log', 'x '.repeat(400)), part.stepFinish({ input: 5_000 })], {
          finish: 'tool-calls',
        }),
        assistant([part.stepStart(), part.text('It is a full scan.'), part.stepFinish({ input: 5_300 })]),
      ],
    });
    expect(r.calibration?.mode).toBe('measured');
    const runtime = items(r).find((i) => i.runtime);
    expect(runtime?.source).toBe('agent_instructions');
    expect(runtime!.scaledTokens!).toBeGreaterThan(4_000);
    const sum = r.sources.reduce((n, s) => n + (s.scaledTokens ?? 0), 0) + r.calibration!.unattributed.tokens;
    expect(sum).toBe(5_300);
    // The read's cost is what the second call grew by, not the size of the runtime's prompt.
    expect(items(r).find((i) => i.label === 'Read evidence: slow.log')!.scaledTokens).toBeLessThan(400);
  });
});

describe('the window, as OpenCode budgets it', () => {
  const usage = { contextUsed: 50_000, contextSize: 200_000, recordedAt: 2_000_000_000_000 };
  const messages = [user([part.text('hi')]), assistant([part.text('hello')])];
  const model = 'local/scripted'; // the harness's assistant messages name providerID local, modelID scripted

  it('keeps OpenCode’s 32,000-token output cap free when the model’s limits are unknown', async () => {
    expect((await coreReport({ messages, usage })).window).toEqual({
      contextSize: 200_000,
      reservedOutput: 32_000,
      usable: 168_000,
      autoCompactAt: 168_000,
      basis: 'assumed',
    });
    expect((await coreReport({ messages })).window).toBeNull();
  });

  it('follows the limits and compaction settings of the workspace’s opencode.json', async () => {
    const window = async (agentConfig: object) =>
      (await coreReport({ messages, usage, workspace: { agentConfig } as never })).window;
    expect(await window({ models: { [model]: { output: 8_192 } } })).toMatchObject({
      reservedOutput: 8_192,
      usable: 191_808,
      basis: 'workspace-config',
    });
    expect(await window({ models: { [model]: { input: 150_000, output: 64_000 } } })).toMatchObject({
      usable: 130_000,
    });
    expect(await window({ compactionReserved: 5_000, models: { [model]: { input: 150_000 } } })).toMatchObject({
      usable: 145_000,
    });
    expect(await window({ compactionAuto: false, models: {} })).toMatchObject({ usable: 168_000, autoCompactAt: null });
  });
});
