/**
 * What to do, true (issues 28 and 37), on the seeded demo: every suggestion's figure is what its
 * change takes out of the next prompt (a compaction, a new session with its hand-off), a message
 * that only asks for better behaviour frees nothing now and says what it avoids, each change's
 * one-time price and break-even, those that do not pay back last; the never-called tools as one
 * suggestion, each change as it is handed over, the calls left at the median growth since the
 * last compaction, what the cache saved, a past report offering nothing live — and the same
 * order, figures, verdict lead and changes in the CLI table, the Markdown export and the MCP tool.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReportModel } from '../../src/chat/report/report-model';
import { reportToMarkdown } from '../../src/chat/report/report-markdown';
import { run } from '../../src/node/cli/main';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import { contextSummary, summaryText } from '../../src/node/mcp/summary';
import { callsLeftText, changeLead, suggestionFrees } from '../../src/shared/advice-text';
import { fmt, fmtCost } from '../../src/shared/format';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { captureIo } from '../support/cli';

let dir: string;
let dbPath: string;
let report: ContextReport;
let table: string;

async function cli(args: string[]) {
  const io = captureIo(dir);
  expect(await run(['debug', 'context', 'demo', '--db', dbPath, ...args], io)).toBe(0);
  return io.stdout();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-advice-'));
  dbPath = join(dir, 'investibook.db');
  await seedDemoDatabase(dbPath, 'advice-token');
  report = contextReportSchema.parse(JSON.parse(await cli(['--json', '--items', 'all'])));
  table = await cli(['--items', 'all']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Where each of `needles` first appears in `text`, in order (-1: missing). */
const positions = (text: string, needles: string[]) => needles.map((n) => text.indexOf(n));
const ascending = (values: number[]) => values.every((v, i) => v >= 0 && (i === 0 || v > values[i - 1]!));

describe('the suggestions on the seeded demo', () => {
  it('are ordered by what each frees from the next call, then what it avoids, those that do not pay back last', () => {
    const kinds = report.suggestions.map((s) => s.kind);
    expect(kinds).toEqual([
      'new_session',
      'compact_now',
      'large_item',
      'duplicate_read',
      'duplicate_read',
      'duplicate_read',
      'duplicate_read',
      'unused_tools',
      'unused_skill',
    ]);
    const paying = report.suggestions.filter((s) => s.paysBack !== false);
    const freed = paying.map((s) => s.frees.tokens);
    expect(freed).toEqual([...freed].sort((a, b) => b - a));
    const avoided = paying.filter((s) => s.frees.tokens === 0).map((s) => s.avoids?.tokens ?? 0);
    expect(avoided).toEqual([...avoided].sort((a, b) => b - a));
    expect(report.suggestions.slice(paying.length).every((s) => s.paysBack === false)).toBe(true);
    const first = report.suggestions[0]!;
    expect(report.verdict!.action).toEqual({
      kind: first.kind,
      title: first.title,
      itemIds: first.itemIds,
      frees: first.frees,
    });
  });

  it('free only what leaves the next prompt: a message asking for a narrower read frees nothing now and says what it avoids', () => {
    const used = report.actual!.contextUsed;
    for (const s of report.suggestions)
      expect(s.frees.percentOfUsed).toBe(Math.round((s.frees.tokens * 1000) / used) / 10);
    const large = report.suggestions.find((s) => s.kind === 'large_item')!;
    expect(large.frees.tokens).toBe(0);
    expect(large.avoids).toEqual({ tokens: report.verdict!.biggestItem!.tokens, per: 're-read' });
    expect(large.itemIds).toEqual([report.verdict!.biggestItem!.id]);
    for (const d of report.suggestions.filter((s) => s.kind === 'duplicate_read')) {
      expect(d.frees.tokens).toBe(0);
      expect(d.avoids).toEqual({ tokens: d.figures.repeatedScaledTokens, per: 're-read' });
    }
    const skill = report.suggestions.find((s) => s.kind === 'unused_skill')!;
    expect(skill.frees.tokens).toBe(0);
    expect(skill.avoids!.per).toBe('load');
  });

  it('compact now: the history less the summary (estimated from the session’s earlier one) and the kept turns', () => {
    const compact = report.suggestions.find((s) => s.kind === 'compact_now')!;
    const used = report.actual!.contextUsed;
    expect(compact.frees.estimate).toBe(true);
    expect(compact.change).toMatchObject({ kind: 'compact' });
    // The demo's earlier summary (call 7) is what the new one is estimated at.
    const summary = report.sources.flatMap((s) => s.items).find((i) => i.label === 'Compaction summary')!;
    expect(compact.figures.summaryTokens).toBeGreaterThan(0);
    expect(compact.detail).toContain("the size of this session's earlier summary");
    // What the next call still carries: the runtime's prompt, the instructions, the summary, the kept turns.
    const always = report.sources.flatMap((s) => s.items).filter((i) => !i.sourceRef.startsWith('messages_v2/'));
    const kept = always.reduce((n, i) => n + (i.scaledTokens ?? 0), 0);
    expect(used - compact.frees.tokens).toBeGreaterThanOrEqual(kept + compact.figures.summaryTokens!);
    expect(summary).toBeDefined();
    // The price: the summary call reads the history uncached and writes the summary.
    expect(compact.oneTime!.tokens).toBeGreaterThan(compact.frees.tokens);
    expect(compact.breakEvenCalls).toBe(Math.ceil(compact.oneTime!.cost! / compact.frees.costPerCall!));
  });

  it('a new session: a hand-off that names what was found and the files that matter', () => {
    const fresh = report.suggestions.find((s) => s.kind === 'new_session')!;
    const text = fresh.change!.text;
    expect(text).toContain('evidence/slow-query.log (large:');
    expect(text).toContain('meta/alerts.json');
    expect(text).toContain('What was found so far');
    // Only the hand-off is new to the provider: the runtime's prompt before it stays cached.
    expect(fresh.oneTime!.tokens).toBe(fresh.figures.handOffTokens);
    expect(fresh.paysBack).toBe(true);
  });

  it('price a change that breaks the prompt cache: the tool list read uncached once, and when it pays back', () => {
    const tools = report.suggestions.find((s) => s.kind === 'unused_tools')!;
    const used = report.actual!.contextUsed;
    const prices = report.cost!.prices!;
    expect(tools.oneTime!.tokens).toBe(used - tools.frees.tokens);
    expect(tools.oneTime!.cost).toBeCloseTo((tools.oneTime!.tokens * (prices.input - prices.cacheRead)) / 1e6, 5);
    expect(tools.breakEvenCalls).toBe(Math.ceil(tools.oneTime!.cost! / tools.frees.costPerCall!));
    // More calls than the session has had: it will not pay back, and follows every change that does.
    expect(tools.breakEvenCalls).toBeGreaterThan(report.calibration!.calls);
    expect(tools.paysBack).toBe(false);
  });

  it('count the tools sent and never called as one suggestion: the sum of their parts in the runtime item', () => {
    const runtime = report.sources.flatMap((s) => s.items).find((i) => i.runtime)!;
    const unused = runtime.parts!.filter((p) => p.kind === 'tool' && p.called === false);
    expect(unused.map((p) => p.name)).toEqual(['task', 'todowrite', 'webfetch']);
    const tools = report.suggestions.filter((s) => s.kind === 'unused_tools');
    expect(tools).toHaveLength(1);
    const [suggestion] = tools;
    expect(suggestion!.agent).toBe('build');
    expect(suggestion!.tools).toEqual(['task', 'todowrite', 'webfetch']);
    expect(suggestion!.frees.tokens).toBe(unused.reduce((n, p) => n + p.tokens, 0));
    expect(suggestion!.title).toBe(
      '3 tools the build agent never called are sent in every call: task, todowrite, webfetch',
    );
    expect(suggestion!.change).toEqual({
      kind: 'opencode_config',
      file: 'opencode.json',
      text: JSON.stringify({ agent: { build: { permission: { task: 'deny', todowrite: 'deny', webfetch: 'deny' } } } }),
    });
  });

  it('carry the change itself: the narrower read for the agent, the sentence for a read again, the skill turned off', () => {
    const large = report.suggestions.find((s) => s.kind === 'large_item')!.change!;
    expect(large.kind).toBe('ask_agent');
    // It refers to the earlier read, and names the range of the entry the model quoted and a pattern from it.
    expect(large.text).toMatch(
      /^evidence\/slow-query\.log is already in your context from your earlier read \(all 713 lines, /,
    );
    expect(large.text).toContain('read only lines 1–23 (the entry that holds most of what you quoted from it)');
    expect(large.text).toContain('grep -n -F "4f1c2a9e" evidence/slow-query.log');
    for (const d of report.suggestions.filter((s) => s.kind === 'duplicate_read')) {
      const path = d.title.replace(/ is in context \d+ times$/, '');
      expect(d.change).toEqual({
        kind: 'ask_agent',
        text: `${path} is already in your context: please refer to the earlier read instead of reading it again, unless it has changed.`,
      });
    }
    const skill = report.suggestions.find((s) => s.kind === 'unused_skill')!;
    expect(JSON.parse(skill.change!.text)).toEqual({
      agent: { build: { permission: { skill: { 'incident-report-writer': 'deny' } } } },
    });
  });

  it('count the model calls left before OpenCode compacts, at the median growth since the last compaction', () => {
    const h = report.verdict!.headroom!;
    // The demo compacted at call 7: the rate is taken from there.
    expect(h.callsLeftBasis).toMatchObject({ fromCall: 7, toCall: report.calibration!.calls });
    const at = report.timeline!.filter((p) => p.call >= 7).map((p) => p.promptTokens);
    const steps = at
      .slice(1)
      .map((t, i) => t - at[i]!)
      .filter((d) => d >= 0)
      .sort((a, b) => a - b);
    const mid = (steps.length - 1) / 2;
    const median = (steps[Math.floor(mid)]! + steps[Math.ceil(mid)]!) / 2;
    expect(h.callsLeftBasis!.perCall).toBe(Math.round(median));
    expect(h.callsLeft).toBe(Math.floor(h.left / median));
    expect(h.callsLeftBasis!.range!.low).toBeLessThanOrEqual(h.callsLeft!);
    expect(h.callsLeftBasis!.range!.high).toBeGreaterThanOrEqual(h.callsLeft!);
    expect(h.callsLeftBecause).toBeUndefined();
  });

  it('as of an earlier call: no live change, each saying what it would have done then, its text still usable', async () => {
    const past = contextReportSchema.parse(JSON.parse(await cli(['--json', '--items', 'all', '--call', '6'])));
    const changes = past.suggestions.filter((s) => s.change);
    expect(changes.length).toBeGreaterThan(0);
    for (const s of changes) {
      expect(s.change!.request).toBeUndefined();
      expect(s.detail).toContain('As of call 6: this is what the change would have done then');
      if (s.change!.kind === 'opencode_config') expect(() => JSON.parse(s.change!.text)).not.toThrow();
    }
  });

  it('tell what the cache saved over the session: the cached tokens at the input rate, less what they were billed', () => {
    const cost = report.cost!;
    const saved = cost.cacheSavings!;
    expect(saved.tokens).toBe(cost.tokens.cacheRead + cost.tokens.cacheWrite);
    expect(saved.atInputRate).toBeCloseTo((saved.tokens * cost.prices!.input) / 1e6, 5);
    expect(saved.billed).toBeCloseTo((cost.tokens.cacheRead * cost.prices!.cacheRead) / 1e6, 5);
    expect(saved.amount).toBeCloseTo(saved.atInputRate - saved.billed, 6);
    expect(saved.amount).toBeGreaterThan(1);
  });
});

describe('every view leads with the same suggestion, in the same order, with the same figures and changes', () => {
  const freesLine = (s: ContextReport['suggestions'][number]) => suggestionFrees(report, s.frees, s);

  it('the CLI table', () => {
    const first = report.suggestions[0]!;
    const head = table.slice(0, table.indexOf('┌'));
    expect(head).toContain(`What to do: ${first.title}. ${freesLine(first)}.`);
    expect(freesLine(first)).toBe(
      `Frees ${fmt(first.frees.tokens)} tokens (${first.frees.percentOfUsed!.toFixed(1)}%) from the next call on — ${fmtCost(first.frees.costPerCall!, 'USD')} a call; costs ${fmtCost(first.oneTime!.cost!, 'USD')} once (${fmt(first.oneTime!.tokens)} tokens read uncached), paid back after ${first.breakEvenCalls} call${first.breakEvenCalls === 1 ? '' : 's'}`,
    );
    const large = report.suggestions.find((s) => s.kind === 'large_item')!;
    expect(freesLine(large)).toBe(
      `Frees nothing now; avoids ${fmt(large.avoids!.tokens)} tokens each time it would be read again`,
    );
    expect(head).toContain(`${changeLead(first.change!)}:\n      ${first.change!.text.split('\n')[0]}`);
    expect(head).toContain(callsLeftText(report.verdict!.headroom!)!);
    expect(head).toContain(`the cache saved ${fmtCost(report.cost!.cacheSavings!.amount, 'USD')}`);
    const list = table.slice(table.indexOf('Suggestions (by what they free, largest first):'));
    expect(
      ascending(
        positions(
          list,
          report.suggestions.map((s, i) => `${i + 1}. ${s.severity === 'warning' ? '! ' : ''}${s.title}`),
        ),
      ),
    ).toBe(true);
    for (const s of report.suggestions) {
      expect(list).toContain(`${freesLine(s)}.`);
      expect(list).toContain(`${changeLead(s.change!)}:\n       ${s.change!.text.split('\n')[0]}`);
    }
  });

  it('the Markdown export', () => {
    const markdown = reportToMarkdown(buildReportModel(report));
    const first = report.suggestions[0]!;
    const head = markdown.slice(0, markdown.indexOf('| Source'));
    expect(head).toContain(`- **What to do:** ${first.title}. ${freesLine(first)}.`);
    expect(head).toContain(`  > ${first.change!.text.split('\n')[0]}`);
    expect(head).toContain(callsLeftText(report.verdict!.headroom!)!);
    const list = markdown.slice(markdown.indexOf('**Suggestions**'));
    expect(
      ascending(
        positions(
          list,
          report.suggestions.map((s, i) => `${i + 1}. ${s.title}. ${freesLine(s)}.`),
        ),
      ),
    ).toBe(true);
    const tools = report.suggestions.find((s) => s.kind === 'unused_tools')!;
    expect(list).toContain(`   \`\`\`json\n   ${tools.change!.text}\n   \`\`\``);
  });

  it('the MCP tool: its text and its structured content', () => {
    const summary = contextSummary(report);
    const text = summaryText(report, summary);
    const first = report.suggestions[0]!;
    expect(summary.verdict[2]).toBe(`What to do: ${first.title}. ${freesLine(first)}. The change: suggestion 1 below.`);
    expect(summary.suggestions.map((s) => [s.title, s.frees, s.change])).toEqual(
      report.suggestions.map((s) => [s.title, s.frees, s.change]),
    );
    expect(summary.suggestions.map((s) => s.freesText)).toEqual(report.suggestions.map(freesLine));
    expect(summary.callsLeft).toBe(report.verdict!.headroom!.callsLeft);
    expect(summary.cost!.cacheSaved).toBe(report.cost!.cacheSavings!.amount);
    const list = text.slice(text.indexOf('Suggestions (by what they free, largest first):'));
    expect(list).toContain(`\n1. ${first.severity === 'warning' ? '(!) ' : ''}${first.title}. ${freesLine(first)}.\n`);
    expect(
      ascending(
        positions(
          list,
          report.suggestions.map((s, i) => `${i + 1}. `),
        ),
      ),
    ).toBe(true);
    for (const s of report.suggestions) expect(list).toContain(`   ${changeLead(s.change!)}: ${s.change!.text}`);
  });
});
