/**
 * Issue 21 in a real Chromium, on `npm start`'s demo, at desktop (1440 × 900) and phone
 * (390 × 844) size: one figure per item in every view of one report (table, reader, timeline,
 * biggest jumps, suggestions, verdict, the Markdown export), the verdict first and above the fold
 * and leading with the suggestion that frees the most, each change copied as it is (issue 28),
 * a bar whose segments and legend focus their source in colours that can be told apart, plain
 * words and formatted numbers, saved turns with their outcomes, and the polish — did-you-mean,
 * a first-run hint, one time format, Markdown never raw, touch targets and touch wording, a
 * chips row that scrolls with a cue, an error card with room, no raw backticks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callsLeftParts, suggestionFrees } from '../../src/shared/advice-text';
import { fmt, fmtPct } from '../../src/shared/format';
import { biggestJumps, coverageText, fmtCost, repeatMark, timelineCoverage } from '../../src/shared/report-figures';
import { contextReportSchema, workspaceSchema, type ContextReport, type Workspace } from '../../src/shared/wire';
import { launchChromium, newContext } from '../support/browser';
import {
  aboveTheFold,
  axeViolations,
  deltaE,
  overflow,
  smallTargets,
  sourceColors,
  visibleText,
  watchErrors,
} from '../support/browser-checks';
import { sharedDemoServer, startServerProcess, type ServerProcess } from '../support/server-process';

// The project's demo server: this file only reads it.
const server = sharedDemoServer();
let browser: Browser;
let report: ContextReport;
let workspace: Workspace;

const api = async (path: string) =>
  (
    await fetch(`${server.origin}/api/workspace/demo${path}`, { headers: { Authorization: `Bearer ${server.token}` } })
  ).json();

beforeAll(async () => {
  browser = await launchChromium();
  workspace = workspaceSchema.parse(await api(''));
  // The report the page shows: the same request, so the same snapshot and figures.
  report = contextReportSchema.parse(await api(`/debug/context?session_id=${workspace.defaultSessionId}`));
});

afterAll(async () => {
  await Promise.all([...shared.values()].map(async (s) => (await s.opened).context.close()));
  await browser?.close();
});

const SIZES = [
  { name: 'desktop', viewport: { width: 1440, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 }, touch: true },
] as const;
type Size = (typeof SIZES)[number];
type Scheme = 'light' | 'dark';

async function open(
  size: Size,
  options: BrowserContextOptions = {},
  url = server.url,
  /** What to set up on the page before it loads (a held request). */
  before: (page: Page) => Promise<unknown> = async () => {},
) {
  const context = await newContext(browser, {
    viewport: size.viewport,
    ...('touch' in size ? { hasTouch: true, isMobile: true } : {}),
    ...options,
  });
  const page = await context.newPage();
  const errors = await watchErrors(page);
  await before(page);
  await page.goto(url);
  await page.getByText(/Stopped\. Summary: cause found/).waitFor();
  return { context, page, errors };
}

async function runDebug(page: Page): Promise<Locator> {
  const input = page.getByRole('combobox', { name: 'Message' });
  await input.fill('/debug');
  await input.press('Enter');
  const region = page.getByRole('region', { name: 'Context breakdown' });
  await region.getByRole('heading', { name: 'Context breakdown' }).waitFor();
  return region;
}

/**
 * One page per size for every test that only looks: signed in once, its /debug run once (a
 * context, a page load and a report per test were most of this file's time). The tests that
 * share it run in this file's order and leave what they opened open — each opens what it needs
 * whether or not it already is — and each says its colour scheme, which the page switches
 * without a reload. A test that needs a page as it was first loaded (the first-run hint, a held
 * script, a failing report) opens its own.
 */
interface Shared {
  opened: Promise<{ context: BrowserContext; page: Page; errors: string[] }>;
  region?: Promise<Locator>;
}
const shared = new Map<Size['name'], Shared>();

function sharedOf(size: Size): Shared {
  let entry = shared.get(size.name);
  if (!entry) {
    entry = { opened: open(size, { permissions: ['clipboard-read', 'clipboard-write'] }) };
    shared.set(size.name, entry);
  }
  return entry;
}

/** The size's shared page, in `scheme`. */
async function sharedPage(size: Size, scheme: Scheme = 'light') {
  const opened = await sharedOf(size).opened;
  await opened.page.emulateMedia({ colorScheme: scheme });
  return opened;
}

/** The size's shared page with its one report, in `scheme`. */
async function sharedReport(size: Size, scheme: Scheme = 'light') {
  const opened = await sharedPage(size, scheme);
  const entry = sharedOf(size);
  entry.region ??= runDebug(opened.page);
  return { ...opened, region: await entry.region };
}

const items = () => report.sources.flatMap((s) => s.items.map((item) => ({ item, source: s })));
const itemById = (id: string) => items().find((x) => x.item.id === id)?.item;

describe.each(SIZES)('on a $name', (size) => {
  it('keeps saved turns’ outcomes: stopped, refused with the reason, expandable rows, tool names, relative paths', async () => {
    // On the shared page before its /debug: the history alone.
    const { page } = await sharedPage(size);
    const list = page.getByRole('region', { name: 'Messages' });
    expect(await list.getByText('Stopped by you').count()).toBeGreaterThan(0);
    await list.getByText(/^Refused by the server’s policy: tiup ctl:v7\.5\.1 pd -u /).waitFor();
    const names = new Set(await list.locator('.tool-name').allTextContents());
    expect([...names].sort()).toEqual(expect.arrayContaining(['bash', 'read', 'skill']));
    for (const kind of ['execute', 'search', 'tool']) expect(names.has(kind)).toBe(false);
    expect(await list.textContent()).not.toContain(workspace.root!.slice(1));
    const bash = list.locator('.tool-details').filter({ hasText: 'tail -f evidence/pd-hot-regions.txt' }).first();
    await bash.locator('summary').click();
    expect(await bash.locator('.tool-body').textContent()).toContain('Input');
    expect(await overflow(page)).toEqual({ page: 0, list: 0 });
    expect(await axeViolations(page, 'history with a tool row open')).toEqual([]);
  });

  it.each(['light', 'dark'] as const)(
    '%s: one screen answers what fills the context — the verdict, the bar and every source down to the Total',
    async (scheme) => {
      const { page, errors, region } = await sharedReport(size, scheme);
      const verdict = region.getByRole('region', { name: 'In short' });
      const v = report.verdict!;
      await expect.poll(() => aboveTheFold(page, verdict)).toBe(true);
      const text = (await verdict.textContent())!;
      expect(text).toContain(`${fmtPct(v.biggestSource!.percentOfUsed)}`);
      expect(text).toContain(`${v.biggestItem!.label}`);
      expect(text).toContain(`${fmt(v.biggestItem!.tokens)} tokens`);
      expect(text).toContain(`What to do:`);
      const total = region.locator('.report-table .total-row');
      const bar = region.locator('.window-figure');
      const table = region.locator('.report-table');
      const box = async (l: Locator) => (await l.boundingBox())!;
      if ('touch' in size) {
        // A phone: the verdict, then the sources down to the Total, then the bar.
        expect((await box(verdict)).y + (await box(verdict)).height).toBeLessThanOrEqual((await box(table)).y);
        expect((await box(total)).y + (await box(total)).height).toBeLessThanOrEqual((await box(bar)).y);
        for (const index of [0, 1])
          expect(await aboveTheFold(page, table.locator('tbody .source-row').nth(index)), `row ${index}`).toBe(true);
      } else {
        // A desktop: all of it between the report's top and the composer, in that order.
        for (const [name, part] of [
          ['bar', bar],
          ['first source', table.locator('tbody .source-row').first()],
          ['Total', total],
        ] as const)
          expect(
            await aboveTheFold(page, part),
            `${name} ${JSON.stringify([await part.boundingBox(), await page.locator('[aria-label="Messages"]').boundingBox()])}`,
          ).toBe(true);
        expect((await box(verdict)).y).toBeLessThan((await box(bar)).y);
        expect((await box(bar)).y).toBeLessThan((await box(table)).y);
      }
      // The room, cache and cost follow the sources, each as every view prints it.
      const facts = region.getByRole('region', { name: 'Room, cache and cost' });
      expect((await box(facts)).y).toBeGreaterThan((await box(total)).y);
      const factsText = (await facts.textContent())!;
      expect(factsText).toContain(`${fmt(v.headroom!.left)} tokens left before OpenCode compacts`);
      expect(factsText).toContain(`${fmtPct(v.cacheReadPercent)} of the last prompt read from cache`);
      expect(report.cost?.total).not.toBeNull(); // the demo's calls are priced
      expect(factsText).toContain(`${fmtCost(report.cost!.total!, report.cost!.currency)} over`);
      // Nothing sticky covers the report's first lines: what is drawn at their middle is themselves.
      for (const selector of ['.report-made', '.verdict-main', '.table-title']) {
        const covered = await region.locator(selector).evaluate((el) => {
          const r = el.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + Math.min(20, r.width / 2), r.top + r.height / 2);
          return hit !== null && !el.contains(hit);
        });
        expect(covered, selector).toBe(false);
      }
      expect(await overflow(page)).toEqual({ page: 0, list: 0 });
      expect(errors).toEqual([]);
    },
  );

  it('names its columns and figures in one vocabulary, its notes no larger than their headings', async () => {
    const { region } = await sharedReport(size);
    expect(await region.locator('.report-table thead th').allTextContents()).toEqual([
      'Source',
      'Tokens',
      'Used %',
      'Cost',
    ]);
    const sizeOf = (l: Locator) => l.evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    expect(await sizeOf(region.locator('.table-note'))).toBeLessThanOrEqual(
      await sizeOf(region.locator('.table-title')),
    );
    // The legend names every source of 5 % of the used context or more; only smaller ones are "Other".
    const legend = await region
      .getByRole('list', { name: 'Legend, in the bar’s order' })
      .getByRole('button')
      .allTextContents();
    for (const source of report.sources.filter((s) => (s.percentOfUsed ?? 0) >= 5))
      expect(
        legend.some((entry) => entry.startsWith(`${source.label} `)),
        source.label,
      ).toBe(true);
    // The source whose name alone says little says what it holds, where it shows: in the demo every tool
    // payload has an owner (issue 38), so it is named in the line of empty sources, with what it would hold.
    expect(report.sources.find((s) => s.id === 'unknown_tool_payload')?.estimatedTokens).toBe(0);
    const unknown = region.locator('.empty-row .source-label', { hasText: 'Unknown tool payload' });
    expect(await unknown.getAttribute('title')).toMatch(/name no file, web address or working folder/);
  });

  it('uses plain words and formatted numbers; the timeline’s counts match; a fall lists no addition', async () => {
    const { page, region } = await sharedReport(size);
    const text = await visibleText(region);
    for (const jargon of [/scale ×/, /calibrat/i, /o200k/, /BPE/, /Basis/, /usage_update/, /\bACP\b/])
      expect(text, String(jargon)).not.toMatch(jargon);
    // Every figure formatted (labels may hold a port or an id: only figures are looked at).
    const figures = await region
      .locator(
        '.num, .verdict, .window-scale, .legend-share, .readout-head, .footnote, .suggestion-detail, .section-note',
      )
      .allTextContents();
    expect(figures.join(' ')).not.toMatch(/(?<![\d,.:])\d{4,}(?![\d,])/);
    expect(text).not.toMatch(/\b0 0%/);
    // "(30 model calls — 1 more reported no prompt size …)": only counted calls are numbered, nothing missing silently.
    const coverage = timelineCoverage(report)!;
    expect(coverage.uncounted).toBeGreaterThan(0);
    expect(text).toContain(`(${coverageText(coverage)})`);
    // The compaction call: its prompt fell, and its readout says so without a "+".
    const slider = region.getByRole('slider', { name: 'Model call' });
    const points = report.timeline!;
    const fall = points.findIndex((p, i) => i > 0 && p.promptTokens < points[i - 1]!.promptTokens);
    await slider.focus();
    await page.keyboard.press('Home');
    for (let i = 0; i < fall; i++) await page.keyboard.press('ArrowRight');
    const readout = region.locator('.timeline-readout');
    await expect.poll(() => readout.textContent()).toContain(`Call ${points[fall]!.call}`);
    expect(await readout.textContent()).toContain('The prompt shrank by');
    expect(await readout.locator('.added-label').allTextContents()).not.toContainEqual(expect.stringMatching(/^\+/));
  });

  it('leads with what frees the most, and hands over each change: Copy puts it on the clipboard', async () => {
    const { page, errors, region } = await sharedReport(size);
    const verdict = region.getByRole('region', { name: 'In short' });
    const [first] = report.suggestions;
    const text = (await verdict.textContent())!;
    expect(text).toContain(`What to do: ${first!.title}. ${suggestionFrees(report, first!.frees, first)}.`);
    const calls = callsLeftParts(report.verdict!.headroom!)!;
    const facts = (await region.getByRole('region', { name: 'Room, cache and cost' }).textContent())!;
    expect(facts).toContain(
      `${fmt(report.verdict!.headroom!.left)} tokens left before OpenCode compacts — ${calls.text}`,
    );
    expect(facts).toContain(`it saved ${fmtCost(report.cost!.cacheSavings!.amount, report.cost!.currency)}`);
    // Copy: the change itself, folded under the verdict's line; opened, the text Copy takes is the
    // text on the screen (on a phone too), and the button says so.
    const change = verdict.getByRole('group', { name: /^The change: / });
    const unfold = change.getByRole('button', { name: /^Show the text \(\d+ lines?\)$/ });
    if ((await unfold.count()) > 0) await unfold.click();
    await change.getByRole('button', { name: 'Copy' }).click();
    await change.getByRole('button', { name: 'Copied' }).waitFor();
    const shown = change.locator('.change-text');
    expect(await shown.isVisible()).toBe(true);
    const onClipboard = await page.evaluate(() => navigator.clipboard.readText());
    expect(onClipboard).toBe(first!.change!.text);
    expect(await shown.innerText()).toBe(onClipboard);
    // The list: the report's order, each with what it frees and its change, in full.
    const list = region.getByRole('region', { name: 'Suggestions' });
    const titles = await list.locator('.suggestion-title').allTextContents();
    expect(titles).toEqual(report.suggestions.map((s) => s.title));
    const entries = list.getByRole('listitem');
    for (const [i, s] of report.suggestions.entries()) {
      const entry = entries.nth(i);
      expect(await entry.locator('.suggestion-frees').textContent()).toBe(suggestionFrees(report, s.frees, s));
      expect(await entry.locator('.change-text').innerText()).toBe(s.change!.text);
    }
    const tools = entries.nth(report.suggestions.findIndex((s) => s.kind === 'unused_tools'));
    await tools.getByRole('button', { name: 'Copy' }).click();
    await tools.getByRole('button', { name: 'Copied' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(JSON.parse(copied)).toEqual({
      agent: { build: { permission: { task: 'deny', todowrite: 'deny', webfetch: 'deny' } } },
    });
    expect(await overflow(page)).toEqual({ page: 0, list: 0 });
    expect(errors).toEqual([]);
  });

  it('reaches every segment of the bar from its legend, in the bar’s order; a click or tap focuses the source', async () => {
    const { page, errors, region } = await sharedReport(size);
    const segments = region.locator('.window-track .segment');
    const legend = region.getByRole('list', { name: 'Legend, in the bar’s order' }).getByRole('button');
    const count = await segments.count();
    expect(await legend.count()).toBe(count);
    // The legend names every segment, in order, and "Other (n)" too; OpenCode's own prompt and
    // tools are part of their source's segment, never an entry of their own (issue 29).
    const titles = await segments.evaluateAll((els) => els.map((el) => el.getAttribute('data-focus')));
    const labels = await legend.allTextContents();
    expect(labels[0]).toMatch(/^Evidence /);
    expect(labels.some((l) => l.startsWith('OpenCode’s own prompt'))).toBe(false);
    expect(labels.some((l) => l.startsWith('Agent/runtime instructions '))).toBe(true);
    expect(labels.some((l) => /^Other \(\d+\)/.test(l))).toBe(true);
    expect(titles[0]).toBe('evidence');
    // A click (a tap on a phone) on a segment: its source opens and takes the focus.
    const evidence = segments.first();
    if ('touch' in size) await evidence.tap();
    else await evidence.click();
    const toggle = region.getByRole('button', { name: 'Evidence', exact: true });
    await expect.poll(() => toggle.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    // The same from the legend, for a keyboard: the "Other" entry leads to its largest source.
    const other = legend.filter({ hasText: /^Other/ });
    await other.focus();
    await page.keyboard.press('Enter');
    const first = await page.evaluate(() => document.activeElement?.textContent ?? '');
    const grouped = await other.textContent();
    expect(grouped).toContain(first.trim());
    expect(errors).toEqual([]);
  });

  it.each(['light', 'dark'] as const)(
    '%s: adjacent segments and every two sources can be told apart',
    async (scheme) => {
      const { page, region } = await sharedReport(size, scheme);
      const bar = await sourceColors(region.locator('.window-track .segment:not(.segment-runtime)'));
      for (let i = 1; i < bar.length; i++)
        expect(deltaE(bar[i - 1]!, bar[i]!), `${bar[i - 1]} next to ${bar[i]}`).toBeGreaterThan(20);
      const swatches = await sourceColors(region.locator('.report-table tbody .source-row .swatch'));
      // A swatch per source with something in context: the nine but Unknown tool payload, empty in the demo.
      expect(swatches).toHaveLength(8);
      for (let i = 0; i < swatches.length; i++)
        for (let j = i + 1; j < swatches.length; j++)
          expect(deltaE(swatches[i]!, swatches[j]!), `${swatches[i]} and ${swatches[j]}`).toBeGreaterThan(20);
      expect(await axeViolations(page, `report (${scheme})`)).toEqual([]);
    },
  );

  it('prints one figure per item in every view: table, reader, timeline, jumps, suggestions, verdict, Markdown', async () => {
    const { page, errors, region } = await sharedReport(size);
    const seen: { view: string; id: string; shown: string }[] = [];
    // The table: every source opened, every item row.
    for (const source of report.sources.filter((s) => s.itemCount > 0)) {
      const toggle = region.getByRole('button', { name: source.label, exact: true });
      if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
      const table = region.getByRole('table', { name: `Largest items of ${source.label}` });
      const rows = await table.locator('tbody tr:not(.more-row):not(.reveal-row)').evaluateAll((trs) =>
        trs.map((tr) => ({
          label: tr.querySelector('.item-label')?.textContent ?? '',
          tokens: tr.querySelectorAll('td')[0]?.textContent ?? '',
          share: tr.querySelectorAll('td')[1]?.textContent ?? '',
        })),
      );
      expect(rows.map((r) => r.label)).toEqual(source.items.map((i) => i.label));
      source.items.forEach((item, k) => {
        // An estimated share of what its call added is marked ≈; a measured figure is not.
        expect(rows[k]!.tokens.startsWith('≈'), item.label).toBe(!item.measured);
        seen.push({ view: 'table', id: item.id, shown: rows[k]!.tokens.replace(/^≈/, '') });
        expect(rows[k]!.share).toBe(fmtPct(item.percentOfUsed));
      });
    }
    // The reader: every block of every page.
    await region.getByRole('button', { name: 'Open reader' }).click();
    const reader = page.getByRole('dialog', { name: 'Reader' });
    await reader.locator('[data-item]').first().waitFor();
    for (;;) {
      const blocks = await reader.locator('[data-item]').evaluateAll((lis) =>
        lis.map((li) => ({
          id: (li as HTMLElement).dataset.item!,
          tokens: li.querySelector('.reader-block-meta .num')?.textContent ?? '',
        })),
      );
      for (const b of blocks) {
        // What came after the last call is the report's pending part: its estimate, marked so.
        const pending = report.pending?.items.find((i) => i.id === b.id);
        if (pending) expect(b.tokens).toBe(`≈${fmt(pending.estimatedTokens)} tokens · not in the total yet`);
        else seen.push({ view: 'reader', id: b.id, shown: b.tokens.replace(/ tokens.*$/, '') });
      }
      const next = reader.getByRole('button', { name: 'Next blocks' });
      if ((await next.count()) === 0 || (await next.isDisabled())) break;
      await next.click();
    }
    await page.keyboard.press('Escape');
    // The timeline's table, its biggest jumps: an item still in context carries its report figure.
    await region.getByText(/^Timeline as a table/).click();
    const timeline = await region.locator('.timeline-table tbody').textContent();
    const jumps = await region.locator('.jumps').textContent();
    for (const point of report.timeline!) {
      const top = point.added[0];
      const item = top?.itemId ? itemById(top.itemId) : undefined;
      if (!top || !item) continue;
      expect(top.tokens).toBe(item.scaledTokens);
      expect(timeline).toContain(`${top.label} (${fmt(item.scaledTokens)})`);
      seen.push({ view: 'timeline', id: item.id, shown: fmt(top.tokens) });
    }
    for (const jump of biggestJumps(report.timeline!)) {
      const top = jump.point.added[0]!;
      expect(jumps).toContain(`${top.label} (${fmt(top.tokens)})`);
    }
    // The suggestion about the largest item, and the verdict: the same figure.
    const large = report.suggestions.find((s) => s.kind === 'large_item')!;
    const largeItem = itemById(large.itemIds[0]!)!;
    expect(await region.locator('.suggestions').textContent()).toContain(`${fmt(largeItem.scaledTokens)} tokens`);
    const verdict = await region.getByRole('region', { name: 'In short' }).textContent();
    expect(verdict).toContain(`${report.verdict!.biggestItem!.label} — ${fmt(largeItem.scaledTokens)} tokens`);
    // The Markdown export: its largest items.
    await region.getByRole('button', { name: 'Copy Markdown' }).click();
    await region.getByText('Markdown copied').waitFor();
    const markdown = await page.evaluate(() => navigator.clipboard.readText());
    for (const { item, source } of items()
      .sort((a, b) => b.item.scaledTokens! - a.item.scaledTokens!)
      .slice(0, 10))
      expect(markdown).toContain(
        `| ${item.label}${repeatMark(item) ? ` _(${repeatMark(item)})_` : ''} | ${source.label} | ${fmt(item.scaledTokens)} | ${fmtPct(item.percentOfUsed)} |`,
      );
    expect(markdown).toContain(`| **Total** | **${fmt(report.actual!.contextUsed)}** | **100.0%** |`);

    // Every view printed each item's one figure.
    const mismatches = seen
      .filter((s) => s.shown !== fmt(itemById(s.id)?.scaledTokens ?? null))
      .map((s) => ({ ...s, report: itemById(s.id)?.scaledTokens, label: itemById(s.id)?.label }));
    expect(mismatches).toEqual([]);
    // The reader shows every item of the report (the demo's sources list them all).
    expect(new Set(seen.filter((s) => s.view === 'reader').map((s) => s.id))).toEqual(
      new Set(items().map((x) => x.item.id)),
    );
    expect(errors).toEqual([]);
  });

  // Its own page: the first-run hint shows only before the page's first /debug, and it makes the report fail.
  it('polishes: did-you-mean keeps the text, a first-run hint, one time format, no raw Markdown, error cards with room', async () => {
    // Markdown is never shown raw, even while its renderer is still loading: the page loads with
    // it held until the raw replies have been checked, then let through (no race with a timer).
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { context, page } = await open(size, {}, server.url, (p) =>
      p.route('**/assets/markdown-*.js', async (route) => {
        await held;
        await route.continue();
      }),
    );
    const replies = page.locator('.message-assistant > .message-text');
    expect(await replies.count()).toBeGreaterThan(5);
    expect(await page.locator('.markdown').count()).toBe(0);
    const raw = (await replies.allTextContents()).join('\n');
    expect(raw).not.toMatch(/\*\*|`|^#+ /m);
    // And once it has loaded, the same replies are formatted.
    release();
    await page.locator('.markdown').first().waitFor();
    const input = page.getByRole('combobox', { name: 'Message' });
    // The first-run hint, until /debug runs.
    await page.getByText(/Tip: \/debug shows what fills the agent’s context/).waitFor();
    await input.fill('/debgu');
    await expect.poll(() => page.locator('.composer-hint').textContent()).toContain('Did you mean /debug?');
    await input.press('Enter');
    await page.getByText(/\/debgu is not a command\. Did you mean \/debug\?/).waitFor();
    expect(await input.inputValue()).toBe('/debgu');
    await input.fill('/debug');
    await input.press('Enter');
    const region = page.getByRole('region', { name: 'Context breakdown' });
    await region.getByRole('heading', { name: 'Context breakdown' }).waitFor();
    expect(await page.getByText(/^Tip: /).count()).toBe(0);
    // One time format: relative, the exact time on hover.
    const times = page.locator('time');
    expect(await times.count()).toBeGreaterThan(5);
    for (const [shown, exact] of await times.evaluateAll((els) =>
      els.map((el) => [el.textContent, el.getAttribute('title')]),
    )) {
      expect(shown).toMatch(/^(just now|\d+ (min|h|days) ago|yesterday|\d{1,2} [A-Z][a-z]{2}( \d{4})?)$/);
      expect(exact).toMatch(/\d{2}:\d{2}:\d{2}/);
    }
    // No other time format is left in the messages' headers.
    const stamps = await page.locator('.message-meta').allTextContents();
    expect(stamps.join(' ')).not.toMatch(/\b\d{1,2}:\d{2}\b|AM|PM/);
    // The error card has room around its words.
    await page.route('**/debug/context?*', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: '{"error":{"code":"internal","message":"Down"}}',
      }),
    );
    await input.fill('/debug');
    await input.press('Enter');
    const card = page.locator('.report-error').last();
    await card.waitFor();
    const padding = await card.evaluate((el) => parseFloat(getComputedStyle(el).paddingLeft));
    expect(padding).toBeGreaterThanOrEqual(8);
    await context.close();

    // The sign-in page: commands as code, not backticks.
    const out = await newContext(browser, { viewport: size.viewport });
    const signIn = await out.newPage();
    await signIn.goto(`${server.origin}/w/demo`);
    await signIn.getByRole('heading', { name: 'Sign in needed' }).waitFor();
    expect(await signIn.locator('body').textContent()).not.toContain('`');
    expect(await signIn.locator('code').first().textContent()).toBe('npm start');
    await out.close();
    // Two pages, three reports and a held chunk in one test: twice a test's time before a hang is called one.
  }, 240_000);
});

describe('on a phone, by touch', () => {
  it('says "tap", keeps every control at 24 px at least, and scrolls the reader’s chips with a cue', async () => {
    const { page, region } = await sharedReport(SIZES[1]);
    const note = await visibleText(region.locator('.timeline .section-note'));
    expect(note).toContain('Tap or drag across the chart');
    expect(note).not.toMatch(/arrow keys|hover/);
    // Open (unless a test before it on this page opened it: a tap would close it).
    const evidence = region.getByRole('button', { name: 'Evidence', exact: true });
    if ((await evidence.getAttribute('aria-expanded')) !== 'true') await evidence.tap();
    await region
      .getByRole('button', { name: /^Reveal content: Read evidence/ })
      .first()
      .tap();
    await region
      .getByRole('region', { name: /^Content of / })
      .getByText(/\S/)
      .first()
      .waitFor();
    expect(await smallTargets(page)).toEqual([]);
    await region.getByRole('button', { name: 'Open reader' }).tap();
    const reader = page.getByRole('dialog', { name: 'Reader' });
    await reader.getByText('Instructions: AGENTS.md').waitFor();
    const chips = reader.getByRole('group', { name: 'Focus on a source' });
    const [scrollWidth, clientWidth] = await chips.evaluate((el) => [el.scrollWidth, el.clientWidth]);
    expect(scrollWidth).toBeGreaterThan(clientWidth);
    await expect.poll(() => chips.getAttribute('data-more')).toBe('end');
    expect(await chips.evaluate((el) => getComputedStyle(el).maskImage)).toContain('gradient');
    await chips.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await expect.poll(() => chips.getAttribute('data-more')).toBe('start');
    expect(await smallTargets(page)).toEqual([]);
    expect(await axeViolations(page, 'reader on a phone')).toEqual([]);
    await page.keyboard.press('Escape');
  });
});

describe('a note saved without an agent', () => {
  // It writes a message: a server of its own, so the project's shared one stays as seeded.
  let dir: string;
  let own: ServerProcess;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'investibook-views-'));
    own = await startServerProcess(join(dir, 'investibook.db'), 'views-note-token');
  });
  afterAll(async () => {
    await own?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('on a phone, says how to attach an agent in code, never raw backticks', async () => {
    const { context, page } = await open(SIZES[1], {}, own.url);
    const input = page.getByRole('combobox', { name: 'Message' });
    await input.fill('A note for the team');
    await input.press('Enter');
    const note = page.getByRole('article', { name: /Saved, but no agent is attached/ });
    await note.waitFor();
    expect(await note.textContent()).not.toContain('`');
    expect(await note.locator('code').allTextContents()).toContain('npm run demo:agent');
    await context.close();
  });
});
