/**
 * Issue 22 in a real Chromium, on the project's `npm start` demo server with a workspace of this
 * file's own beside the demo, holding a session the real
 * OpenCode recorded (a task call whose subagent worked in a session of its own, an MCP server,
 * the runtime's definitions as the bridge records them): the runtime item's parts in the item
 * view, the task item's subagent with the way to its own report, and a call chosen on the
 * timeline — by keyboard and by pointer — showing the whole report as of that call.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_USER_ID } from '../../src/node/demo/builder';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { fmt } from '../../src/shared/format';
import { contextReportSchema, workspaceSchema, type ContextReport, type ReportItem } from '../../src/shared/wire';
import { launchChromium, newContext } from '../support/browser';
import { axeViolations, watchErrors } from '../support/browser-checks';
import type { Fixture } from '../support/fixtures';
import { loadRecording, seedRecording, type Recording } from '../support/recordings';
import { sharedDemoServer } from '../support/server-process';

// The project's demo server: this file adds a workspace of its own to it (another workspace's
// rows change nothing of the demo's) and reads only that.
const server = sharedDemoServer();
const TOKEN = server.token;
const WS = 'runtime-views';
let dir: string;
let browser: Browser;
let recording: Recording;
let report: ContextReport;

/** The report the page shows, asked the same way (`?session_id=…`, `?call=N`). */
const api = async (path: string) =>
  contextReportSchema.parse(
    await (
      await fetch(`${server.origin}/api/workspace/${WS}/debug/context${path}`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      })
    ).json(),
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-runtime-views-'));
  // Another writer's rows, as the bridge would store them: a workspace of the demo user.
  const root = join(dir, 'rec');
  mkdirSync(root);
  const store = await openSqlite(server.dbPath);
  await store.insertWorkspace({ id: WS, name: 'Recorded subagent', root_path: root, created_at: Date.now() });
  await store.addMember(WS, DEMO_USER_ID);
  recording = loadRecording('subagent');
  seedRecording({ root, raw: store.db } as unknown as Fixture, recording, WS);
  await store.close();
  browser = await launchChromium();
  report = await api('');
});

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await newContext(browser, { viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = await watchErrors(page);
  await page.goto(server.url.replace(`/w/demo`, `/w/${WS}`));
  await page.getByRole('combobox', { name: 'Message' }).waitFor();
  return { page, errors, close: () => context.close() };
}

async function runDebug(page: Page): Promise<Locator> {
  const input = page.getByRole('combobox', { name: 'Message' });
  await input.fill('/debug');
  await input.press('Enter');
  const region = page.getByRole('region', { name: 'Context breakdown' }).last();
  await region.getByRole('heading', { name: 'Context breakdown' }).waitFor();
  return region;
}

const openSource = async (region: Locator, label: string) => {
  await region.locator('.source-row button.disclosure', { hasText: label }).click();
};

const itemOf = (r: ContextReport, test: (i: ReportItem) => boolean) => r.sources.flatMap((s) => s.items).find(test)!;

describe('the runtime, subagents and any call, in the browser', () => {
  it('shows the runtime item in parts that add up to it, MCP tools grouped and never-called marked', async () => {
    const { page, errors, close } = await open();
    const region = await runDebug(page);
    const runtime = itemOf(report, (i) => i.runtime === true);
    await openSource(region, 'Agent/runtime instructions');
    await region.getByRole('button', { name: new RegExp(`^Parts \\(${runtime.parts!.length}\\)`) }).click();
    const table = region.locator('.parts-table');
    await table.waitFor();
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(runtime.parts!.length);
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => ({
        label: tr.querySelector('.item-label')?.textContent ?? '',
        tokens: Number((tr.querySelectorAll('td')[0]?.textContent ?? '').replaceAll(',', '')),
      })),
    );
    expect(shown).toEqual(runtime.parts!.map((p) => ({ label: p.label, tokens: p.tokens })));
    expect(shown.reduce((n, p) => n + p.tokens, 0)).toBe(runtime.scaledTokens);
    const mcp = table.locator('tr', { hasText: 'MCP server: incident-tools' });
    expect(await mcp.textContent()).toContain('incident-tools_pd_hot_regions (never called)');
    expect(await table.locator('tr', { hasText: 'Tool: bash' }).textContent()).toContain('never called');
    expect(await table.locator('tr', { hasText: 'Tool: task' }).textContent()).not.toContain('never called');
    expect(await axeViolations(page, 'runtime parts')).toEqual([]);
    if (process.env.SHOTS) await page.screenshot({ path: join(process.env.SHOTS, 'parts.png'), fullPage: false });
    expect(errors).toEqual([]);
    await close();
  });

  it("shows the task item's subagent: its total and largest sources, and opens its own report", async () => {
    const { page, errors, close } = await open();
    const region = await runDebug(page);
    const task = itemOf(report, (i) => i.subagent !== undefined);
    const child = recording.children![0]!.sessionId;
    const own = await api(`?session_id=${child}`);
    const source = report.sources.find((s) => s.items.includes(task))!;
    await openSource(region, source.label);
    const note = region.locator('.subagent-note');
    await note.waitFor();
    const text = (await note.textContent())!;
    expect(text).toContain(`its own session reached ${fmt(own.actual!.contextUsed)} tokens`);
    for (const s of task.subagent!.largest!) expect(text).toContain(`${s.label} ${fmt(s.tokens)}`);
    // (Before a second report is on the page: two reports are two regions of the same name.)
    expect(await axeViolations(page, 'subagent')).toEqual([]);
    await note.getByRole('button', { name: /^Open its report/ }).click();
    // A new /debug output, about the child's session: its own total, and the way back to its parent.
    const childRegion = page.getByRole('region', { name: 'Context breakdown' }).nth(1);
    await childRegion.getByRole('heading', { name: 'Context breakdown' }).waitFor();
    await childRegion.locator('.subagent-parent').waitFor();
    expect(await childRegion.locator('.summary-figure').textContent()).toContain(fmt(own.actual!.contextUsed));
    // Its parent named as the chat names it — by its title, never its session id.
    const listed = workspaceSchema.parse(
      await (
        await fetch(`${server.origin}/api/workspace/${WS}`, { headers: { Authorization: `Bearer ${TOKEN}` } })
      ).json(),
    );
    const parentTitle = listed.sessions.find((s) => s.id === recording.sessionId)?.title;
    expect(parentTitle).toBeTruthy();
    const parentLine = await childRegion.locator('.subagent-parent').textContent();
    expect(parentLine).toContain(`made by a task call of “${parentTitle}”`);
    expect(parentLine).not.toContain(recording.sessionId);
    expect(errors).toEqual([]);
    await close();
  });

  it('shows the whole report as of a call chosen on the timeline, by keyboard and by pointer, and back', async () => {
    const { page, errors, close } = await open();
    const region = await runDebug(page);
    const points = report.timeline!;
    expect(points.length).toBeGreaterThan(1);
    const slider = region.getByRole('slider', { name: 'Model call' });
    await slider.focus();
    await slider.press('Home');
    await slider.press('Enter');
    const banner = region.locator('.as-of-banner');
    await banner.getByText(`As of call ${points[0]!.call} of`).waitFor();
    const first = await api(`?call=${points[0]!.call}`);
    expect(await region.locator('.summary-figure').textContent()).toContain(fmt(first.actual!.contextUsed));
    // The same views, as of then: the source rows carry that call's figures.
    const instructions = first.sources.find((s) => s.id === 'agent_instructions')!;
    expect(await region.locator('.source-row', { hasText: instructions.label }).textContent()).toContain(
      fmt(instructions.scaledTokens!),
    );
    expect(await slider.getAttribute('aria-valuenow')).toBe('1');
    // Its items' text is the text as of then (pinned to that report's snapshot).
    await openSource(region, instructions.label);
    await region.getByRole('button', { name: 'Reveal content: Instructions: AGENTS.md' }).click();
    await region.locator('.item-content .item-text').waitFor();
    expect(await region.locator('.item-content [role=alert]').count()).toBe(0);

    // By pointer: a click on the plot's right edge chooses the last call.
    await slider.scrollIntoViewIfNeeded();
    const box = (await slider.boundingBox())!;
    await page.mouse.click(box.x + box.width - 2, box.y + box.height / 2);
    const last = points.at(-1)!;
    await banner.getByText(`As of call ${last.call} of`).waitFor();
    expect(await region.locator('.summary-figure').textContent()).toContain(fmt(last.promptTokens));
    expect(await axeViolations(page, 'as of a call')).toEqual([]);
    if (process.env.SHOTS) await page.screenshot({ path: join(process.env.SHOTS, 'as-of.png'), fullPage: false });

    await banner.getByRole('button', { name: 'Back to the current context' }).click();
    await banner.waitFor({ state: 'detached' });
    expect(await region.locator('.summary-figure').textContent()).toContain(fmt(report.actual!.contextUsed));
    expect(errors).toEqual([]);
    await close();
  });
});
