/** The report's view model: one order, one rounding, the window and its threshold, change. */
import { describe, expect, it } from 'vitest';
import { buildReportModel, diffReports, isRemainder, REMAINDER_PREFIX } from '../../src/chat/report/report-model';
import { reportToMarkdown } from '../../src/chat/report/report-markdown';
import { biggestJumps, niceTicks, timelineSeries } from '../../src/chat/report/timeline-model';
import { shareText } from '../../src/chat/share-text';
import { contextReportSchema, type ContextReport, type ContextWindow, type TimelinePoint } from '../../src/shared/wire';
import { fixtures } from './msw/handlers';

const report = contextReportSchema.parse(fixtures.report);

describe('shareText', () => {
  it('rounds once, to one decimal, and never claims all or none when it is not', () => {
    expect(shareText(9999, 10000)).toBe('>99.9%');
    expect(shareText(10000, 10000)).toBe('100%');
    expect(shareText(1, 100000)).toBe('<0.1%');
    expect(shareText(0, 100)).toBe('0%');
    // 14.049…% is 14.0%, not 14.05% rounded again to 14.1%.
    expect(shareText(14049, 100000)).toBe('14.0%');
    expect(shareText(1405, 10000)).toBe('14.1%');
  });
});

describe('buildReportModel', () => {
  it('orders every source by size, with shares of the agent total that add up', () => {
    const model = buildReportModel(report);
    const tokens = model.rows.map((r) => r.tokens);
    expect(tokens).toEqual([...tokens].sort((a, b) => b - a));
    // Every source with something in it: the demo's Unknown tool payload is empty (its one shell
    // command belongs to the workspace folder it ran in, contract §3).
    expect(model.rows).toHaveLength(8);
    expect(model.rows.map((r) => r.key)).not.toContain('unknown_tool_payload');
    expect(tokens.reduce((a, b) => a + b, 0)).toBe(report.actual!.contextUsed);
    const instructions = model.rows.find((r) => r.key === 'agent_instructions')!;
    expect(instructions.runtimeTokens).toBe(report.calibration!.runtimeOverhead);
  });

  it('shows each remainder row (hidden reasoning, what left, unexplained) as a row of its own, in size order', () => {
    const r: ContextReport = structuredClone(report);
    r.remainder = [
      {
        kind: 'hidden_reasoning',
        label: 'Hidden reasoning kept by the provider',
        tokens: 3000,
        percentOfUsed: 8,
        reason: 'measured',
      },
      { kind: 'unexplained', label: 'Unexplained', tokens: 40, percentOfUsed: 0.1, reason: 'nothing explains it' },
    ];
    r.actual!.contextUsed += 3040;
    const model = buildReportModel(r);
    const index = model.rows.findIndex((row) => row.key === `${REMAINDER_PREFIX}hidden_reasoning`);
    expect(model.rows[index]!.label).toBe('Hidden reasoning kept by the provider');
    expect(model.rows[index]!.reason).toBe('measured');
    expect(model.rows[index - 1]!.tokens).toBeGreaterThanOrEqual(3000);
    expect(model.rows[index + 1]!.tokens).toBeLessThanOrEqual(3000);
    expect(model.rows.find((row) => row.key === `${REMAINDER_PREFIX}unexplained`)!.tokens).toBe(40);
    expect(model.rows.reduce((n, row) => n + row.tokens, 0)).toBe(r.actual!.contextUsed);
    // An older server's one figure: one row.
    const older: ContextReport = structuredClone(report);
    delete older.remainder;
    older.calibration!.unattributed = { tokens: 3000, leftSinceCall: 3000, leftReason: 'pruned', unexplained: 0 };
    older.actual!.contextUsed += 3000;
    expect(buildReportModel(older).rows.filter((row) => isRemainder(row.key))).toHaveLength(1);
  });

  it('places auto-compaction from the report’s window, else (older servers) from OpenCode’s rule', () => {
    // The demo names no model limits: the server assumed OpenCode's 32,000 output cap.
    expect(report.window).toMatchObject({ usable: 168_000, basis: 'assumed' });
    expect(buildReportModel(report).window).toEqual({
      contextSize: 200_000,
      reservedOutput: 32_000,
      autoCompactAt: 168_000,
      assumed: true,
    });
    const window: ContextWindow = {
      contextSize: 200_000,
      reservedOutput: 8192,
      usable: 191_808,
      autoCompactAt: 191_808,
      basis: 'workspace-config',
    };
    const withWindow: ContextReport = { ...report, window };
    expect(buildReportModel(withWindow).window).toMatchObject({ autoCompactAt: 191_808, assumed: false });
    const older: ContextReport = structuredClone(report);
    delete older.window;
    older.actual!.contextSize = 16_000;
    expect(buildReportModel(older).window!.autoCompactAt).toBeNull();
    const oldLarge: ContextReport = structuredClone(report);
    delete oldLarge.window;
    expect(buildReportModel(oldLarge).window).toMatchObject({ autoCompactAt: 168_000, assumed: true });
  });

  it('tolerates a source id this build does not know: the report’s label, the neutral colour', () => {
    const r: ContextReport = structuredClone(report);
    r.sources[0] = { ...r.sources[0]!, id: 'runbook_pages', label: 'Runbook pages' };
    const model = buildReportModel(r);
    const row = model.rows.find((x) => x.key === 'runbook_pages')!;
    expect(row.label).toBe('Runbook pages');
    expect(row.color).toBe('light-dark(#9ca3af, #6b7280)');
  });
});

const point = (call: number, promptTokens: number, events: string[] = []): TimelinePoint => ({
  call,
  messageId: `m${call}`,
  at: '2026-11-28T02:57:00.000Z',
  promptTokens,
  runtimeOverhead: 100,
  bySource: { evidence: promptTokens - 100 },
  added: [{ label: `step ${call}`, source: 'evidence', tokens: 1 }],
  events,
});

describe('the timeline', () => {
  it('names the biggest jumps, largest first', () => {
    const jumps = biggestJumps([point(1, 100), point(2, 5000), point(3, 5100), point(4, 9000), point(5, 100)]);
    expect(jumps.map((j) => [j.point.call, j.delta])).toEqual([
      [2, 4900],
      [4, 3900],
      [3, 100],
    ]);
  });

  it('stacks the runtime with its source, and keeps unknown sources', () => {
    const model = buildReportModel(report);
    const p = { ...point(1, 1000), bySource: { evidence: 600, runbook_pages: 300 } };
    const series = timelineSeries([p], model);
    expect(series.map((s) => [s.key, s.values[0]])).toEqual([
      ['evidence', 600],
      ['agent_instructions', 100],
      ['runbook_pages', 300],
    ]);
  });

  it('picks round axis ticks', () => {
    expect(niceTicks(40_700)).toEqual({ top: 50_000, ticks: [0, 10_000, 20_000, 30_000, 40_000, 50_000] });
    expect(niceTicks(8_900).top).toBe(10_000);
  });
});

describe('diffReports', () => {
  it('counts measured token changes and items added or removed, not drift', () => {
    const next: ContextReport = structuredClone(report);
    const evidence = next.sources.find((s) => s.id === 'evidence')!;
    const removed = evidence.items.pop()!;
    evidence.scaledTokens! -= removed.scaledTokens!;
    const change = diffReports(buildReportModel(next), buildReportModel(report));
    expect(change.comparable).toBe(true);
    expect(change.bySource.get('evidence')).toMatchObject({ delta: -removed.scaledTokens!, removed: [removed] });
    expect(change.bySource.get('skills_knowledge')).toMatchObject({ delta: 0, added: [], removed: [] });
    expect(change).toMatchObject({ added: 0, removed: 1 });
  });

  it('does not compare tokens when either report was scaled in proportion', () => {
    const scaled: ContextReport = structuredClone(report);
    scaled.calibration!.mode = 'scaled';
    const change = diffReports(buildReportModel(scaled), buildReportModel(report));
    expect(change.comparable).toBe(false);
    expect(change.totalDelta).toBeNull();
    expect([...change.bySource.values()].every((c) => c.delta === null)).toBe(true);
  });
});

describe('the Markdown copy', () => {
  it('says where the total came from', () => {
    const acp = contextReportSchema.parse(fixtures.report);
    expect(reportToMarkdown(buildReportModel(acp))).toMatch(
      /\*\*Context used:\*\* [\d,]+ of [\d,]+ tokens \([\d.]+%\) · as the agent reported it/,
    );
    const provider = { ...acp, actual: { ...acp.actual!, source: 'provider' as const } };
    expect(reportToMarkdown(buildReportModel(provider))).toMatch(
      /\*\*Context used:\*\* .* · the last model call's prompt, as the provider counted it/,
    );
  });
});
