/**
 * What to do, ranked by what it frees (issue 28), on the seeded demo: the suggestions ordered by
 * what each frees from every later call, the figures (tokens, share, money per call at the
 * session's own rates; a bound marked as one), the never-called tools as one suggestion whose
 * figure is the sum of their parts, each change as it is handed over, the calls left before
 * OpenCode compacts and what the cache saved — and the same order, figures, verdict lead and
 * changes in the CLI table, the Markdown export and the MCP tool's text and structured content.
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
  it('are ordered by what each frees from every later call, and the verdict leads with the first', () => {
    const kinds = report.suggestions.map((s) => s.kind);
    expect(kinds).toEqual([
      'large_item',
      'unused_tools',
      'duplicate_read',
      'duplicate_read',
      'duplicate_read',
      'duplicate_read',
      'unused_skill',
    ]);
    const freed = report.suggestions.map((s) => s.frees.tokens);
    expect(freed).toEqual([...freed].sort((a, b) => b - a));
    const first = report.suggestions[0]!;
    expect(report.verdict!.action).toEqual({
      kind: first.kind,
      title: first.title,
      itemIds: first.itemIds,
      frees: first.frees,
    });
    // The largest item, which the verdict names, is what it says to act on.
    expect(first.itemIds).toEqual([report.verdict!.biggestItem!.id]);
    expect(first.title).toBe(
      `Read evidence: slow-query.log is ${report.verdict!.biggestItem!.percentOfUsed}% of the used context`,
    );
  });

  it('say what each frees: tokens, share, money per call at the session’s own rates, a bound marked', () => {
    const used = report.actual!.contextUsed;
    const prices = report.cost!.prices!;
    for (const s of report.suggestions) {
      expect(s.frees.percentOfUsed).toBe(Math.round((s.frees.tokens * 1000) / used) / 10);
      // One rate for every suggestion: what a carried token cost in the latest priced call,
      // between the cache-read price and the input price.
      const rate = (s.frees.costPerCall! / s.frees.tokens) * 1e6;
      expect(rate).toBeGreaterThanOrEqual(prices.cacheRead - 0.01);
      expect(rate).toBeLessThanOrEqual(prices.input);
      expect(s.frees.costPerCall).toBeCloseTo(
        (report.suggestions[0]!.frees.costPerCall! * s.frees.tokens) / report.suggestions[0]!.frees.tokens,
        5,
      );
    }
    const large = report.suggestions[0]!;
    expect(large.frees).toMatchObject({ tokens: report.verdict!.biggestItem!.tokens, upTo: true });
    expect(report.suggestions.filter((s) => s.frees.upTo)).toEqual([large]);
    for (const d of report.suggestions.filter((s) => s.kind === 'duplicate_read'))
      expect(d.frees.tokens).toBe(d.figures.repeatedScaledTokens);
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
    const large = report.suggestions[0]!.change!;
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

  it('count the model calls left before OpenCode compacts, at the recent growth, and say over which calls', () => {
    const h = report.verdict!.headroom!;
    // The calls the provider counted (the one stopped before it counted anything has no number).
    expect(h.callsLeftBasis).toEqual({ perCall: expect.any(Number), calls: 5, fromCall: 25, toCall: 30 });
    // The growth over those calls, from the timeline every view draws.
    const at = (call: number) => report.timeline!.find((p) => p.call === call)!.promptTokens;
    const perCall = (at(30) - at(25)) / 5;
    expect(h.callsLeftBasis!.perCall).toBe(Math.round(perCall));
    expect(h.callsLeft).toBe(Math.floor(h.left / perCall));
    expect(h.callsLeftBecause).toBeUndefined();
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
  const freesLine = (s: ContextReport['suggestions'][number]) => suggestionFrees(report, s.frees);

  it('the CLI table', () => {
    const first = report.suggestions[0]!;
    const head = table.slice(0, table.indexOf('┌'));
    expect(head).toContain(`What to do: ${first.title}. ${freesLine(first)}.`);
    expect(freesLine(first)).toBe(
      `Frees up to ${fmt(first.frees.tokens)} tokens (${first.frees.percentOfUsed!.toFixed(1)}%) from each later call — ${fmtCost(first.frees.costPerCall!, 'USD')} a call`,
    );
    expect(head).toContain(`Send the agent:\n      ${first.change!.text}`);
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
      expect(list).toContain(`${changeLead(s.change!)}:\n       ${s.change!.text}`);
    }
  });

  it('the Markdown export', () => {
    const markdown = reportToMarkdown(buildReportModel(report));
    const first = report.suggestions[0]!;
    const head = markdown.slice(0, markdown.indexOf('| Source'));
    expect(head).toContain(`- **What to do:** ${first.title}. ${freesLine(first)}.`);
    expect(head).toContain(`  > ${first.change!.text}`);
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
