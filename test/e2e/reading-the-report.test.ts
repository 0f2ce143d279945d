/**
 * Issues 29 and 39 in a real Chromium, on `npm start`'s demo, at phone (390 × 844) and desktop
 * (1440 × 900) size, light and dark: no label breaks inside a word; a call chosen on the
 * timeline is exactly the one under the pointer (or the finger), with a mark of its own, and a
 * step in the browser's history that a reload forgets; OpenCode's runtime is one row of the
 * table and one entry of the legend, with one cost; plain words and one money format in the main
 * views, what Cost means said without hover; two reports on one page name their regions apart.
 */
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReportModel } from '../../src/chat/report/report-model';
import { reportToMarkdown } from '../../src/chat/report/report-markdown';
import { fmt } from '../../src/shared/format';
import {
  costCells,
  costColumnNote,
  fmtCost,
  partLabel,
  reportFigures,
  roomParts,
  runtimeFigures,
} from '../../src/shared/report-figures';
import { contextReportSchema, workspaceSchema, type ContextReport, type Workspace } from '../../src/shared/wire';
import { launchChromium, newContext } from '../support/browser';
import {
  axeViolations,
  brokenWords,
  framesPainted,
  overflow,
  visibleText,
  watchErrors,
} from '../support/browser-checks';
import { sharedDemoServer } from '../support/server-process';

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
  report = contextReportSchema.parse(await api(`/debug/context?session_id=${workspace.defaultSessionId}`));
});

afterAll(async () => {
  await Promise.all([...shared.values()].map(async (s) => (await s.opened).context.close()));
  await browser?.close();
});

const SIZES = [
  { name: 'phone', viewport: { width: 390, height: 844 }, touch: true },
  { name: 'desktop', viewport: { width: 1440, height: 900 }, touch: false },
] as const;
const SCHEMES = ['light', 'dark'] as const;
type Size = (typeof SIZES)[number];
type Scheme = (typeof SCHEMES)[number];

async function open(size: Size, scheme: Scheme = 'light', options: BrowserContextOptions = {}) {
  const context = await newContext(browser, {
    viewport: size.viewport,
    colorScheme: scheme,
    ...(size.touch ? { hasTouch: true, isMobile: true } : {}),
    ...options,
  });
  const page = await context.newPage();
  const errors = await watchErrors(page);
  await page.goto(server.url);
  await page.getByText(/Stopped\. Summary: cause found/).waitFor();
  return { context, page, errors };
}

async function runDebug(page: Page, args = ''): Promise<Locator> {
  const input = page.getByRole('combobox', { name: 'Message' });
  await input.fill(`/debug${args}`);
  await input.press('Enter');
  const region = page.getByRole('region', { name: /^Context breakdown/ }).last();
  await region.getByRole('heading', { name: 'Context breakdown' }).waitFor();
  return region;
}

/**
 * One page per size for the tests that read the first report: signed in once, its /debug run
 * once (a context, a page load and a report per test were most of this file's time). They run
 * in this file's order and leave open what they opened — each opens what it needs unless it
 * already is (a second click would close it) and puts back what it changes — and each says its
 * colour scheme, which the page switches without a reload. The tests that make more reports on
 * a page, or reload it, open their own; two reports of two sessions are made last, on this page.
 */
interface Shared {
  opened: Promise<{ context: BrowserContext; page: Page; errors: string[] }>;
  region?: Promise<Locator>;
}
const shared = new Map<Size['name'], Shared>();

async function sharedReport(size: Size, scheme: Scheme = 'light') {
  let entry = shared.get(size.name);
  if (!entry) {
    entry = { opened: open(size, 'light', { permissions: ['clipboard-read', 'clipboard-write'] }) };
    shared.set(size.name, entry);
  }
  const opened = await entry.opened;
  await opened.page.emulateMedia({ colorScheme: scheme });
  entry.region ??= runDebug(opened.page).then(() =>
    // The first report's region, whatever reports follow it on the page.
    opened.page.getByRole('region', { name: /^Context breakdown/ }).first(),
  );
  return { ...opened, region: await entry.region };
}

/** Opens a disclosure (a source's row, an item's parts) by a tap or a click, unless it is open. */
async function expand(toggle: Locator, touch: boolean): Promise<void> {
  if ((await toggle.getAttribute('aria-expanded')) === 'true') return;
  await (touch ? toggle.tap() : toggle.click());
  await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('true');
}

/** Every label the report shows: sources, items, the legend, the runtime's parts, what a call added, suggestions. */
const LABELS = [
  '.source-label',
  '.item-label',
  '.legend-entry',
  '.added-label',
  '.suggestion-title',
  '.verdict-item',
  '.reader-label',
].join(', ');

/** One money rule: two significant digits under a dollar, cents from one dollar on. */
const moneyRule = (text: string) =>
  [...text.matchAll(/\$(\d[\d,]*\.\d+)/g)]
    .map((m) => m[1]!)
    .filter((amount) =>
      Number(amount.replaceAll(',', '')) >= 1 ? !/^[\d,]+\.\d\d$/.test(amount) : !/^0\.0*[1-9]\d$/.test(amount),
    );

describe.each(SIZES)('on a $name', (size) => {
  it.each(SCHEMES)('%s: no label breaks inside a word, every source, item and part open', async (scheme) => {
    const { page, errors, region } = await sharedReport(size, scheme);
    for (const row of reportFigures(report).rows.filter((r) => r.source && r.source.items.length > 0))
      await expand(region.getByRole('button', { name: row.label, exact: true }), size.touch);
    await expand(region.getByRole('button', { name: /^Parts \(\d+\)/ }), false);
    await region.locator('.parts-table').waitFor();
    const broken = await brokenWords(region, `${LABELS}, .parts-table .item-label`);
    expect(broken).toEqual([]);
    // The check bites: it finds the break a four-letter column made before (a name laid out that narrow).
    const narrowed = region.locator('.source-label').first();
    await narrowed.evaluate((el) => ((el as HTMLElement).style.width = '3.5ch'));
    expect((await brokenWords(region, '.source-label')).length).toBeGreaterThan(0);
    await narrowed.evaluate((el) => ((el as HTMLElement).style.width = ''));
    expect(await overflow(page)).toEqual({ page: 0, list: 0 });
    expect(errors).toEqual([]);
  });

  // A page of its own: it makes three reports of one session (the shared page reads its first).
  it('every report lays out like the first, light and dark — /debug, /debug again, Refresh: no hidden column, no broken name', async () => {
    const { context, page, errors } = await open(size);
    const folded = page.locator('.superseded');
    /** The newest report's table: each header cell drawn, together as wide as the table; no name broken. */
    const layout = async (region: Locator) => {
      const table = region.locator('.report-table');
      const columns = await table.evaluate((el) => {
        const cells = [...el.querySelectorAll<HTMLElement>('thead th')];
        return {
          hidden: cells.filter((c) => !c.checkVisibility()).map((c) => c.textContent),
          gap: el.getBoundingClientRect().width - cells.reduce((w, c) => w + c.getBoundingClientRect().width, 0),
          source: cells[0]!.getBoundingClientRect().width,
        };
      });
      return { ...columns, broken: await brokenWords(region, `${LABELS}, .report-table th`) };
    };
    /** The newest report laid out in each scheme: the page switches without a reload. */
    const inBothSchemes = async (region: Locator) => {
      const shown: Record<string, Awaited<ReturnType<typeof layout>>> = {};
      for (const scheme of SCHEMES) {
        await page.emulateMedia({ colorScheme: scheme });
        shown[scheme] = await layout(region);
      }
      return shown;
    };
    const first = await inBothSchemes(await runDebug(page));
    for (const scheme of SCHEMES) {
      expect(first[scheme]!.hidden, scheme).toEqual([]);
      expect(Math.abs(first[scheme]!.gap), scheme).toBeLessThan(2);
      expect(first[scheme]!.broken, scheme).toEqual([]);
    }
    // A second /debug of the session: the first folds, the new one compares with it.
    const second = await runDebug(page);
    await expect.poll(() => folded.count()).toBe(1);
    const again = await inBothSchemes(second);
    // Refresh: a third report, made the same way.
    await second.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => folded.count()).toBe(2);
    const region = page.getByRole('region', { name: /^Context breakdown/ }).last();
    await region.getByRole('heading', { name: 'Context breakdown' }).waitFor();
    const refreshed = await inBothSchemes(region);
    for (const scheme of SCHEMES)
      for (const [name, shown] of [
        [`${scheme} second`, again[scheme]!],
        [`${scheme} refreshed`, refreshed[scheme]!],
      ] as const) {
        expect(shown.hidden, name).toEqual([]);
        expect(Math.abs(shown.gap), name).toBeLessThan(2);
        expect(shown.broken, name).toEqual([]);
        // On a phone the table is the first one's (the change is in the expanded rows).
        if (size.touch) expect(Math.abs(shown.source - first[scheme]!.source), name).toBeLessThan(1);
      }
    expect(await overflow(page)).toEqual({ page: 0, list: 0 });
    expect(errors).toEqual([]);
    await context.close();
  });

  // A page of its own: it steps through the history and reloads.
  it('chooses exactly the call under the pointer, marks it, and makes it a step in the history', async () => {
    const { context, page, errors } = await open(size);
    const region = await runDebug(page);
    const plot = region.getByRole('slider', { name: 'Model call' });
    // In the middle of the list: brought just into view at the bottom, the readout's "Show the
    // report as of call N" button under the chart can be hidden by the composer, and Playwright's
    // tap first scrolls it into view — the chart moved by that scroll (170 px on a phone, in runs
    // whose seeded figures left the chart low), not because a call was chosen.
    await plot.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    const points = report.timeline!;
    const target = points[4]!; // call 5
    const box = (await plot.boundingBox())!;
    const span = points.at(-1)!.call - points[0]!.call;
    const x = box.x + ((target.call - points[0]!.call) / span) * box.width;
    const y = box.y + box.height / 2;
    const readout = region.locator('.readout-head strong');
    if (size.touch) {
      // A tap moves the readout; its button shows the report as of that call.
      await page.touchscreen.tap(x, y);
      await expect.poll(() => readout.textContent()).toBe(`Call ${target.call}`);
      await region.getByRole('button', { name: `Show the report as of call ${target.call}` }).tap();
    } else {
      await page.mouse.move(x, y);
      await expect.poll(() => readout.textContent()).toBe(`Call ${target.call}`);
      await page.mouse.click(x, y);
    }
    const banner = region.getByText(`As of call ${target.call} of ${points.at(-1)!.call} — read-only`);
    await banner.waitFor();
    // The readout and the report agree; the chart did not move under the pointer.
    expect(await readout.textContent()).toBe(`Call ${target.call}`);
    expect(await plot.getAttribute('aria-valuenow')).toBe('5');
    // The pointer is still on the chart, at the same call: the page held the chart's place (once
    // the report above it has been laid out again, a frame or two after the banner shows).
    const underPointer = () =>
      plot.evaluate((el, [px, py]) => el.contains(document.elementFromPoint(px!, py!)), [x, y]);
    await expect.poll(underPointer).toBe(true);
    // Its own mark, at the call's place (nearer to it than to either neighbouring call), apart from the hover line.
    const flag = region.locator('.as-of-flag');
    expect(await flag.textContent()).toBe(`as of call ${target.call}`);
    const mark = (await region.locator('.as-of-mark').boundingBox())!;
    const callWidth = (await plot.boundingBox())!.width / span;
    expect(Math.abs(mark.x + mark.width / 2 - x)).toBeLessThan(callWidth / 2);
    expect(await region.locator('.summary-figure').textContent()).toContain(`${fmt(target.promptTokens)} /`);
    // The regions say which report they are: as of call 5.
    expect(await region.getAttribute('aria-labelledby')).toBeTruthy();
    await region.getByRole('region', { name: new RegExp(`^In short — .*as of call ${target.call}$`) }).waitFor();

    // Back: the current context, still in the app; Forward: the call again.
    const url = page.url();
    await page.goBack();
    await expect.poll(() => banner.count()).toBe(0);
    expect(page.url()).toBe(url);
    expect(await region.locator('.summary-figure').textContent()).toContain(`${fmt(report.actual!.contextUsed)} /`);
    expect(await region.locator('.as-of-mark').count()).toBe(0);
    await page.goForward();
    await banner.waitFor();
    expect(await readout.textContent()).toBe(`Call ${target.call}`);
    // The call is in the history's state alone, never in the URL.
    expect(new URL(page.url()).search).toBe('');
    expect(page.url()).not.toMatch(/call/);
    // A reload forgets the report (local-only) and the view: nothing brings it back.
    await page.reload();
    await page.getByText(/Stopped\. Summary: cause found/).waitFor();
    expect(await page.getByRole('region', { name: /^Context breakdown/ }).count()).toBe(0);
    expect(await page.getByText(/As of call/).count()).toBe(0);
    await page.goBack();
    await expect.poll(() => page.url()).toBe(url);
    await framesPainted(page);
    expect(await page.getByText(/As of call/).count()).toBe(0);
    // A new /debug on this load starts at the current context.
    const fresh = await runDebug(page);
    expect(await fresh.getByText(/As of call/).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows OpenCode’s runtime as one row, one legend entry and one cost, its parts inside the row', async () => {
    const { region } = await sharedReport(size);
    const runtime = runtimeFigures(report)!;
    const row = reportFigures(report).rows.find((r) => r.key === runtime.sourceId)!;
    // The legend: one entry per table row (Other groups the small ones), the table's shares.
    const legend = region.getByRole('list', { name: 'Legend, in the bar’s order' });
    const entries = (await legend.locator('.legend-entry').allTextContents()).map((e) => e.replace(/\s+/g, ' ').trim());
    expect(entries.some((e) => /OpenCode|the rest/.test(e))).toBe(false);
    expect(entries).toContain(`${row.label} ${row.percentOfUsed!.toFixed(1)}%`);
    expect(await region.locator('.window-track .segment').count()).toBe(entries.length);
    // The table: its row, with the cost of the whole row (the runtime's included).
    const tableRow = region.locator('.report-table tbody .source-row').filter({ hasText: row.label });
    const cost = fmtCost(costCells(report)!.byKey.get(row.key)!, 'USD');
    expect(await tableRow.locator('td').allInnerTexts()).toEqual([
      fmt(row.tokens),
      `${row.percentOfUsed!.toFixed(1)}%`,
      cost,
    ]);
    // Its parts, inside the row: the same figures.
    await expand(region.getByRole('button', { name: row.label, exact: true }), size.touch);
    await expand(region.getByRole('button', { name: /^Parts \(\d+\)/ }), false);
    const parts = region.locator('.parts-table');
    expect(await parts.locator('caption').textContent()).toContain(`part of ${row.label}`);
    const cells = await parts
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [tr.querySelector('.item-label')!.textContent, tr.querySelector('td.num')!.textContent]),
      );
    expect(cells).toEqual(runtime.parts!.map((p) => [p.label, fmt(p.tokens)]));
    expect(runtime.parts!.map(partLabel).join(' ')).not.toContain('Framing');
  });

  it.each(SCHEMES)('%s: plain words, one money format, and what Cost means without hover', async (scheme) => {
    const { region } = await sharedReport(size, scheme);
    const text = await visibleText(region);
    for (const jargon of [
      'Framing and the rest',
      'Unattributed',
      'Cost in the total with no tokens in context now',
      'the build agent on',
    ])
      expect(text).not.toContain(jargon);
    expect(await region.locator('abbr.basis-mark').count()).toBe(0);
    // What Cost means, on the page (a phone has no hover), and not only in a title.
    const note = costColumnNote(report)!;
    expect(note).toMatch(/^Cost: what each row cost over the session \(31 model calls/);
    await expect.poll(() => region.getByText(note).isVisible()).toBe(true);
    expect(await region.locator('th.col-cost').getAttribute('title')).toBeNull();
    // One money format in every figure shown.
    expect(moneyRule(text)).toEqual([]);
    const costs = await region.locator('.report-table td.col-cost').allInnerTexts();
    expect(costs.length).toBeGreaterThan(5);
    expect(moneyRule(costs.join(' '))).toEqual([]);
    // The room sentence every view prints (the CLI, the Markdown, the MCP text).
    expect(text).toContain(roomParts(report.verdict!.headroom!).text);
  });
});

describe('the Markdown export', () => {
  it('is the page’s report: its Cost column, its repeat marks and its room sentence', async () => {
    const { page, region } = await sharedReport(SIZES[1]);
    await region.getByRole('button', { name: 'Copy Markdown' }).click();
    await region.getByText('Markdown copied').waitFor();
    const markdown = await page.evaluate(() => navigator.clipboard.readText());
    const title = workspace.sessions.find((s) => s.id === report.sessionId)!.title;
    const expected = reportToMarkdown(buildReportModel(report), title);
    // The same text but for when it was made.
    const stamp = (s: string) => s.replace(/^Generated .*$/m, 'Generated …');
    expect(stamp(markdown)).toBe(stamp(expected));
    expect(markdown).toContain('| Source | Tokens | Used % | Cost |');
    expect(markdown).toMatch(/_\(read again: 2 of 2\)_/);
    expect(markdown).toContain(roomParts(report.verdict!.headroom!).text);
  });
});

// Last: it adds a second report to the shared pages.
describe('two reports on one page', () => {
  it.each(SIZES)('name their regions apart ($name): no landmark shares a name', async (size) => {
    const { page } = await sharedReport(size);
    const warmup = workspace.sessions.find((s) => s.id !== workspace.defaultSessionId)!;
    const second = await runDebug(page, ` ${warmup.id}`);
    await second.getByRole('region', { name: new RegExp(`^In short — ${escape(warmup.title!)}`) }).waitFor();
    const names = await page
      .locator('section[aria-label], section[aria-labelledby]')
      .evaluateAll((sections) => sections.map((s) => s.getAttribute('aria-label') ?? ''));
    expect(new Set(names.filter(Boolean)).size).toBe(names.filter(Boolean).length);
    expect(await axeViolations(page, `two reports (${size.name})`)).toEqual([]);
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
