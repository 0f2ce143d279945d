/**
 * One figure per item and per source, everywhere: the CLI table, `--json` and the web's Markdown
 * export print the same rows in the same order (by size), the same token figures (the report's,
 * not the estimate) and the same percentages (the JSON's, rounded once), and every Total is the
 * sum of its column — the runtime item and the remainder rows included. One rule for the biggest
 * jumps in all three.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReportModel } from '../../src/chat/report/report-model';
import { reportToMarkdown } from '../../src/chat/report/report-markdown';
import { run } from '../../src/node/cli/main';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import { fmt, fmtPct } from '../../src/shared/format';
import {
  biggestJumps,
  costCells,
  costRows,
  fmtCost,
  jumpText,
  largestItems,
  partLabel,
  repeatMark,
  reportFigures,
  roomText,
  runtimeFigures,
} from '../../src/shared/report-figures';
import { contextSummary, summaryText } from '../../src/node/mcp/summary';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { captureIo } from '../support/cli';

let dir: string;
let dbPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-figures-'));
  dbPath = join(dir, 'investibook.db');
  await seedDemoDatabase(dbPath, 'figures-token');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]) {
  const io = captureIo(dir);
  expect(await run(['debug', 'context', 'demo', '--db', dbPath, ...args], io)).toBe(0);
  return io.stdout();
}

/** The cells of a cli-table3 table's body rows, the ones a first cell names. */
function tableRows(text: string, firstHead: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith('│') && l.split('│')[1]!.trim() === firstHead);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('│')) break;
    const cells = line
      .split('│')
      .slice(1, -1)
      .map((c) => c.trim());
    // A wrapped label continues on the next line with empty figures.
    if (cells.slice(1).every((c) => c === '') && rows.length) rows.at(-1)![0] += ` ${cells[0]}`;
    else rows.push(cells);
  }
  return rows;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const num = (text: string) => Number(text.replace(/[^\d]/g, ''));
const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the CLI table, --json and the Markdown export', () => {
  let report: ContextReport;
  let table: string;
  let markdown: string;

  beforeAll(async () => {
    report = contextReportSchema.parse(JSON.parse(await cli(['--json', '--items', 'all'])));
    table = await cli(['--items', 'all']);
    markdown = reportToMarkdown(buildReportModel(report));
  });

  it('print the same source rows, in one order, with the JSON’s figures and percentages', () => {
    const figures = reportFigures(report);
    const expected = figures.rows.map((r) => [r.label, fmt(r.tokens), fmtPct(r.percentOfUsed)]);
    expect(expected.length).toBeGreaterThan(5);
    // By size, largest first.
    const tokens = figures.rows.map((r) => r.tokens);
    expect(tokens).toEqual([...tokens].sort((a, b) => b - a));

    const cliRows = tableRows(table, 'Source');
    expect(cliRows.slice(0, -1).map((r) => r.slice(0, 3))).toEqual(expected);
    const md = markdown
      .split('\n')
      .filter((l) => /^\| (?!Source|---|Item|Part|\*\*Total)/.test(l) && l.split('|').length === 6)
      .map((l) =>
        l
          .split('|')
          .slice(1, 4)
          .map((c) => c.trim()),
      );
    expect(md.slice(0, expected.length)).toEqual(expected);
  });

  it('have Totals that are the sums of their columns (the runtime item included)', () => {
    const cliRows = tableRows(table, 'Source');
    const [label, tokens, percent, estimated, , items] = cliRows.at(-1)!;
    const body = cliRows.slice(0, -1);
    expect(label).toBe('Total');
    expect(num(tokens!)).toBe(sum(body.map((r) => num(r[1]!))));
    expect(num(tokens!)).toBe(report.actual!.contextUsed);
    expect(percent).toBe('100.0%');
    expect(num(estimated!)).toBe(sum(body.map((r) => num(r[3]!))));
    expect(num(items!)).toBe(sum(body.map((r) => num(r[5]!))));
    // The runtime item counts: the Items column holds every item of every source.
    expect(num(items!)).toBe(sum(report.sources.map((s) => s.itemCount)));
    expect(report.sources.some((s) => s.items.some((i) => i.runtime))).toBe(true);
    expect(markdown).toContain(
      `| **Total** | **${fmt(report.actual!.contextUsed)}** | **100.0%** | **${fmtCost(report.cost!.total!, 'USD')}** |`,
    );
  });

  it('print every item with its report figure and the JSON’s percentage', () => {
    for (const source of report.sources.filter((s) => s.itemCount > 0)) {
      const section = table.slice(table.indexOf(`${source.label} — top`));
      const rows = tableRows(section, 'Item');
      expect(rows.map((r) => [r[1], r[2]])).toEqual(
        source.items.map((i) => [fmt(i.scaledTokens), fmtPct(i.percentOfUsed)]),
      );
    }
    // The Markdown's largest items: the same figures.
    const items = report.sources.flatMap((s) => s.items);
    const from = markdown.indexOf('**Largest items**');
    const largest = markdown.slice(from, markdown.indexOf('\n**', from + 1));
    const mdItems = largest
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| Item') && !l.startsWith('|---'))
      .map((l) => l.split('|').map((c) => c.trim().replace(/ _\((read again: \d+ of \d+|read \d+ of \d+)\)_$/, '')));
    expect(mdItems.length).toBe(10);
    // The demo's runtime definitions were seeded with it: its runtime item is in parts, there too.
    const runtime = items.find((i) => i.runtime)!;
    expect(runtime.parts?.reduce((n, p) => n + p.tokens, 0)).toBe(runtime.scaledTokens);
    expect(markdown).toContain(`**${runtime.label}** — part of Agent/runtime instructions, in parts`);
    // (A file read twice gives two items of one label: each row is one of them, figure for figure.)
    for (const [, label, , tokens, percent] of mdItems) {
      const same = items.filter((i) => i.label === label!.replaceAll('\\|', '|'));
      expect(same.map((i) => [fmt(i.scaledTokens), fmtPct(i.percentOfUsed)])).toContainEqual([tokens, percent]);
    }
  });

  it('name the same biggest jumps, by one rule: growth from the previous call, never the first call', async () => {
    const jumps = biggestJumps(report.timeline ?? []);
    expect(jumps).toHaveLength(3);
    expect(jumps.every((j) => j.index > 0 && j.point.call !== report.timeline![0]!.call)).toBe(true);
    for (const jump of jumps) {
      expect(table).toContain(`  ${jumpText(jump)}`);
      expect(markdown).toContain(`- ${jumpText(jump)}`);
    }
    const timeline = await cli(['--timeline']);
    for (const jump of jumps) expect(timeline).toContain(`  ${jumpText(jump)}`);
    // Counts that match: only the calls with a prompt size are numbered; the one without is said.
    expect(timeline).toMatch(/\(30 model calls — 1 more reported no prompt size \(failed or stopped\), unnumbered\)/);
  });

  it('give OpenCode’s runtime one figure, one split and one cost: a part of Agent/runtime instructions', async () => {
    const runtime = runtimeFigures(report)!;
    expect(runtime.sourceId).toBe('agent_instructions');
    const row = reportFigures(report).rows.find((r) => r.key === 'agent_instructions')!;
    // One cost for the row, the runtime's included, and no row of its own anywhere.
    const costs = costRows(report)!;
    expect(costs.rows.map((r) => r.id)).not.toContain('runtime');
    const cost = costs.rows.find((r) => r.id === 'agent_instructions')!;
    const sourceOnly = report.cost!.sources.find((s) => s.id === 'agent_instructions')!.amount!;
    const runtimeOnly = report.cost!.rows.find((r) => r.kind === 'runtime')!.amount!;
    expect(cost.amount).toBeCloseTo(sourceOnly + runtimeOnly, 9);
    expect(costCells(report)!.byKey.get('agent_instructions')).toBe(cost.amount);
    const money = fmtCost(cost.amount!, 'USD');
    const costTable = tableRows(table.slice(table.indexOf('Cost over the session')), 'Source or row');
    expect(costTable.find((r) => r[0] === 'Agent/runtime instructions')?.[1]).toBe(money);
    expect(costTable.map((r) => r[0])).not.toContain(runtime.item.label.replace(', measured', ''));
    expect(markdown).toContain(
      `| Agent/runtime instructions | ${fmt(row.tokens)} | ${fmtPct(row.percentOfUsed)} | ${money} |`,
    );
    const mcp = summaryText(report);
    expect(mcp).toContain(
      `- Agent/runtime instructions: ${fmt(row.tokens)} (${fmtPct(row.percentOfUsed)}), 4 items, ${money}`,
    );
    expect(mcp).toContain(
      `  of which OpenCode’s own prompt and tools ${fmt(runtime.tokens)} (${fmtPct(runtime.percentOfUsed)}): `,
    );
    // Its parts, the same in the CLI, the Markdown and the MCP text: they add up to the item.
    expect(runtime.parts!.reduce((n, p) => n + p.tokens, 0)).toBe(runtime.tokens);
    for (const part of runtime.parts!) {
      expect(table).toMatch(new RegExp(`│ ${escapeRe(partLabel(part))}\\s+│\\s+${fmt(part.tokens)} │`));
      expect(markdown).toContain(`| ${partLabel(part)} | ${fmt(part.tokens)} | ${fmtPct(part.percentOfUsed)} |`);
      expect(mcp).toContain(`${partLabel(part)} ${fmt(part.tokens)}`);
    }
    for (const jargon of ['Framing and the rest', 'the build agent on']) {
      expect(table).not.toContain(jargon);
      expect(markdown).not.toContain(jargon);
      expect(mcp).not.toContain(jargon);
    }
  });

  it('keep the web’s repeat marks, room sentence and money format in the Markdown and the MCP text', () => {
    const again = report.sources.flatMap((s) => s.items).filter((i) => (i.duplicate?.ordinal ?? 0) > 1);
    expect(again.length).toBeGreaterThan(0);
    const largest = largestItems(report, 10).map(({ item }) => item);
    const marked = largest.filter((i) => repeatMark(i));
    expect(marked.length).toBeGreaterThan(0);
    for (const item of marked) expect(markdown).toContain(`| ${item.label} _(${repeatMark(item)})_ |`);
    const mcp = summaryText(report, contextSummary(report, 10));
    for (const item of marked) expect(mcp).toContain(`. ${item.label} (${repeatMark(item)}) — `);
    for (const item of again) expect(table).toContain(`[${repeatMark(item)}]`);
    // One room sentence: the web's Room line (roomText) in every view.
    const room = roomText(report.verdict!.headroom!);
    expect(room).toMatch(
      /^[\d,]+ tokens left before OpenCode compacts — about [\d,]+ more model calls, between [\d,]+ and [\d,]+, at \+[\d,]+ tokens a call \(the median growth over calls/,
    );
    for (const text of [table, markdown, mcp]) expect(text).toContain(`${room}.`);
    // One money rule: two significant digits under a dollar, cents above it; never $0.00 for a cost.
    const amounts = [...`${table}\n${markdown}\n${mcp}`.matchAll(/\$(\d+\.\d+)/g)].map((m) => m[1]!);
    expect(amounts.length).toBeGreaterThan(20);
    for (const amount of amounts) {
      const value = Number(amount);
      if (value >= 1) expect(amount).toMatch(/^\d+\.\d\d$/);
      else expect(amount, amount).toMatch(/^0\.0*[1-9]\d$/);
    }
  });

  it('lead with the verdict, and keep the methods for the fine print', () => {
    const v = report.verdict!;
    const head = table.slice(0, table.indexOf('┌'));
    expect(head).toContain(`${v.biggestSource!.label} holds ${fmtPct(v.biggestSource!.percentOfUsed)} of the context`);
    expect(head).toContain(`Largest item: ${v.biggestItem!.label} — ${fmt(v.biggestItem!.tokens)} tokens`);
    expect(head).toContain(`What to do: ${v.action!.title}.`);
    expect(head).toContain('of the last prompt read from cache');
    expect(report.cost?.total).not.toBeNull(); // the demo's calls are priced
    expect(head).toContain(`${fmtCost(report.cost!.total!, report.cost!.currency)} over ${report.cost!.calls} calls`);
    for (const jargon of [/scale ×/, /calibrated/, /o200k/, /Basis/, /usage_update/]) expect(head).not.toMatch(jargon);
    expect(markdown.slice(0, markdown.indexOf('| Source'))).toContain(`**What to do:** ${v.action!.title}.`);
    // Numbers in the engine's sentences read like every other figure.
    expect(table).not.toMatch(/\b\d{5,}\b tokens/);
    expect(markdown).not.toMatch(/\b\d{5,}\b tokens/);
  });
});
