/**
 * `npm run demo:agent` as a user meets it: the real process (the server, the scripted model, the
 * pinned OpenCode), a real Chromium, sign-in by link. The first message continues the seeded
 * incident session — its history stays, the turn says it is not a new session, the context grows
 * past the seeded total and /debug explains it — tool calls read the same live and saved, a
 * refusal and a Stop keep their outcomes once saved, and the session switcher opens the other
 * conversation, at desktop and phone size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAgentEvent, type AgentEvent } from '../../src/shared/agent';
import { relativeTime } from '../../src/chat/relative-time';
import { fmt } from '../../src/shared/format';
import { contextReportSchema, workspaceSchema, type ContextReport, type Workspace } from '../../src/shared/wire';
import { launchChromium } from '../support/browser';
import { axeViolations, overflow } from '../support/browser-checks';
import { startServerProcess, type ServerProcess } from '../support/server-process';

const TOKEN = 'live-token';
let dir: string;
let server: ServerProcess;
let browser: Browser;
let seeded: Workspace;

const api = async (path: string) =>
  (await fetch(`${server.origin}/api/workspace/demo${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-live-'));
  server = await startServerProcess(join(dir, 'investibook.db'), TOKEN, {}, 'demo-agent.js');
  browser = await launchChromium();
  seeded = workspaceSchema.parse(await api(''));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The events of every turn the page streams: the page's own fetch of …/agent/prompt is teed, so
 * the chat still reads the stream as it comes and the test gets a copy once it ends.
 */
async function recordTurns(page: Page): Promise<() => Promise<AgentEvent[][]>> {
  await page.addInitScript(() => {
    const bodies: string[] = [];
    (window as unknown as { __turns: string[] }).__turns = bodies;
    const original = window.fetch.bind(window);
    window.fetch = async (input, init) => {
      const response = await original(input, init);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!url.endsWith('/agent/prompt') || !response.body) return response;
      const [mine, theirs] = response.body.tee();
      const slot = bodies.push('') - 1;
      void new Response(theirs).text().then((text) => (bodies[slot] = text));
      return new Response(mine, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  });
  return async () =>
    (await page.evaluate(() => (window as unknown as { __turns: string[] }).__turns))
      .filter((body) => body !== '')
      .map((body) =>
        body
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .flatMap((line) => parseAgentEvent(line.slice(5).trim()) ?? []),
      );
}

describe('the live agent in the browser', () => {
  it('continues the seeded session: its history stays, the context grows, /debug explains it', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    const turnsSoFar = await recordTurns(page);
    await page.goto(server.url);
    await page.getByText(/Stopped\. Summary: cause found/).waitFor();
    const incident = seeded.sessions.find((s) => s.id === seeded.defaultSessionId)!;
    expect(incident.contextUsed).toBeGreaterThan(30_000);
    const meter = page.getByRole('button', { name: /^Context / });
    expect(await meter.textContent()).toContain(fmt(incident.contextUsed!));

    const input = page.getByRole('combobox', { name: 'Message' });
    const seededReport = contextReportSchema.parse(await api('/debug/context?items=all'));
    await input.fill('What do we know so far?');
    await input.press('Enter');
    // The reply arrives as the agent writes it — from what its context holds: the seeded
    // conversation's finding, no file read again.
    const live = page.getByRole('article', { name: 'Agent (live reply)' });
    await live.getByText('What we know, from this conversation', { exact: false }).waitFor({ timeout: 60_000 });
    await expect.poll(() => live.count(), { timeout: 30_000 }).toBe(0);
    const saved = page.locator('.message-assistant').last();
    expect(await saved.textContent()).toContain('missing index on merchant_limits.merchant_id');
    expect(await saved.locator('.tool-call').count()).toBe(0);

    // The turn continued the seeded session: not a new one, no notice, the history still there.
    await expect.poll(async () => (await turnsSoFar()).length).toBe(1);
    const turns = await turnsSoFar();
    expect(turns[0]!.find((e) => e.type === 'turn')).toMatchObject({
      sessionId: seeded.defaultSessionId,
      newSession: false,
    });
    expect(turns[0]!.filter((e) => e.type === 'tool')).toEqual([]);
    expect(await page.getByText('New session').count()).toBe(0);
    expect(await page.getByText(/Stopped\. Summary: cause found/).count()).toBe(1);
    const used = Math.max(...turns[0]!.flatMap((e) => (e.type === 'usage' ? [e.used] : [])));
    expect(used).toBeGreaterThan(incident.contextUsed!);
    await expect.poll(() => meter.textContent()).toContain(fmt(used));

    // The report at the turn's end, its reader pinned to its snapshot; nothing is in context twice more.
    const atEnd = contextReportSchema.parse(await api('/debug/context?items=all'));
    expect(atEnd.duplicates.extraReads).toBe(seededReport.duplicates.extraReads);
    const readerAt = (snapshot: string) =>
      fetch(`${server.origin}/api/workspace/demo/debug/context/reader?snapshot=${snapshot}&page=0`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
    const pageAtEnd = await (await readerAt(atEnd.snapshotId)).json();
    // The live agent's definitions, recorded in the background: its MCP tool is in the runtime's
    // parts, and the runtime's change says why.
    const runtimeOf = (r: ContextReport) => r.sources.flatMap((x) => x.items).find((i) => i.runtime)!;
    let now = atEnd;
    await expect
      .poll(
        async () => {
          now = contextReportSchema.parse(await api('/debug/context?items=all'));
          return runtimeOf(now).parts?.find((p) => p.kind === 'mcp_server')?.name;
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toBe('investibook');
    expect(
      runtimeOf(now)
        .parts!.find((p) => p.kind === 'mcp_server')!
        .tools!.map((t) => t.name),
    ).toEqual(['investibook_context_report']);
    const change = now.calibration!.runtime!.changes.at(-1)!;
    expect(change.reason).toBe('tools added: investibook_context_report; MCP server investibook added');
    // …and the report shown at the turn's end kept its reader.
    expect(now.snapshotId).toBe(atEnd.snapshotId);
    const again = await readerAt(atEnd.snapshotId);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(pageAtEnd);

    // /debug is answered locally: the grown context; the runtime's parts and why it changed.
    await input.fill('/debug');
    await input.press('Enter');
    const region = page.getByRole('region', { name: /^Context breakdown/ });
    await region.waitFor({ timeout: 30_000 });
    expect(await region.locator('.summary-figure').textContent()).toContain(`${fmt(used)} / 200,000 tokens`);
    await region.getByRole('button', { name: 'Agent/runtime instructions', exact: true }).click();
    await region.getByRole('button', { name: /^Parts \(\d+\)/ }).click();
    await region.getByText(/^MCP server: investibook \(1 tool\)/).waitFor();
    await region
      .getByText(/Changed at call \d+: [+−][\d,]+ tokens \(tools added: investibook_context_report/)
      .first()
      .waitFor();

    // After a reload the turn is history; the report is gone (it was never persisted).
    await page.reload();
    await page.getByText('What we know, from this conversation', { exact: false }).first().waitFor({ timeout: 30_000 });
    expect(await page.getByRole('region', { name: /^Context breakdown/ }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps a refusal and a Stop as they were said live, once saved', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(server.url);
    await page.getByText(/Stopped\. Summary: cause found/).waitFor();
    const input = page.getByRole('combobox', { name: 'Message' });

    // A shell command the server's policy refuses: said on the call's row, live and saved.
    await input.fill('Can you check with the cluster?');
    await input.press('Enter');
    const live = page.getByRole('article', { name: 'Agent (live reply)' });
    const refusal = /^Refused by the server’s policy: tiup ctl:v7\.5\.1 pd store --pd http:\/\/pd-0:2379$/;
    await live.getByText(refusal).waitFor({ timeout: 60_000 });
    expect(await live.locator('.tool-name').allTextContents()).toEqual(['bash']);
    await expect.poll(() => live.count(), { timeout: 30_000 }).toBe(0);
    const list = page.getByRole('region', { name: 'Messages' });
    await expect.poll(() => list.getByText(refusal).count()).toBe(1);
    await list.locator('.tool-refused summary').last().click();
    expect(await list.locator('.tool-refused .tool-body').last().textContent()).toContain(
      'The user rejected permission to use this specific tool call.',
    );

    // Stop: "Stopping…" said once, "Stopped by you" live and saved.
    await input.fill('Draft the incident report');
    await input.press('Enter');
    await live.locator('.tool-call.tool-done').first().waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopping…').first().waitFor();
    expect(await page.getByText('Stopping…').count()).toBe(1);
    await page.getByRole('group', { name: 'Agent turn' }).getByText('Stopped by you').waitFor({ timeout: 30_000 });
    await expect.poll(() => live.count(), { timeout: 30_000 }).toBe(0);
    const last = list.getByRole('article', { name: 'Agent' }).last();
    await expect.poll(() => last.textContent()).toContain('Stopped by you');
    await page.reload();
    await page.getByText('What we know, from this conversation', { exact: false }).first().waitFor({ timeout: 30_000 });
    expect(await list.getByRole('article', { name: 'Agent' }).last().textContent()).toContain('Stopped by you');
    expect(await list.getByText(refusal).count()).toBe(1);
    await page.close();
  });

  it.each([
    { name: 'desktop', width: 1440, height: 900 },
    { name: 'phone', width: 390, height: 844 },
  ])('switches sessions on a $name: each by its title, time and context; names them by title', async (viewport) => {
    const page = await browser.newPage({ viewport });
    // The page's clock is fixed, so each session's shown time is one the test can name whatever today is
    // (the seeded story has fixed dates: a week later they are shown as dates, not "… ago").
    const now = Date.now();
    await page.clock.setFixedTime(now);
    await page.goto(server.url);
    await page.getByText(/Stopped\. Summary: cause found/).waitFor();
    const workspace = workspaceSchema.parse(await api(''));
    const toggle = page.getByRole('button', { name: /^Conversation: / });
    expect(await toggle.textContent()).toContain('INC-4821 just paged.');
    await toggle.click();
    const menu = page.getByRole('list', { name: 'Conversations in this workspace' });
    const entries = menu.getByRole('button');
    expect(await entries.count()).toBe(workspace.sessions.length);
    const texts = await entries.allTextContents();
    for (const [i, s] of workspace.sessions.entries()) {
      expect(texts[i]).toContain(s.title!);
      expect(texts[i]).toContain(`${fmt(s.contextUsed!)} / 200,000 tokens`);
      expect(texts[i]).toContain(relativeTime(s.lastActiveAt, now));
      expect(await entries.nth(i).locator('time').getAttribute('datetime')).toBe(
        new Date(s.lastActiveAt).toISOString(),
      );
    }
    // Never a raw id on the page.
    expect(await page.locator('body').textContent()).not.toMatch(/ses_[A-Za-z0-9]{8,}/);
    expect(await overflow(page)).toEqual({ page: 0, list: 0 });
    expect(await axeViolations(page, `session list (${viewport.name})`)).toEqual([]);
    await entries.filter({ hasText: 'Before the real incident comes in' }).click();
    await page.getByText("I'll wait for the incident.", { exact: false }).waitFor();
    expect(await page.getByText(/Stopped\. Summary: cause found/).count()).toBe(0);
    expect(await toggle.textContent()).toContain('Before the real incident comes in');
    const warmup = workspace.sessions.find((s) => s.title?.startsWith('Before the real incident'))!;
    await expect
      .poll(() => page.getByRole('button', { name: /^Context / }).textContent())
      .toContain(fmt(warmup.contextUsed!));
    await page.close();
  });

  it.each([
    { name: 'desktop', width: 1440, height: 900 },
    { name: 'phone', width: 390, height: 844 },
  ])(
    'hands a check to a subagent: its own report, the way back, and its session under its parent ($name)',
    async (viewport) => {
      const page = await browser.newPage({ viewport });
      await page.goto(server.url);
      await page.getByText(/Stopped\. Summary: cause found/).waitFor();
      const input = page.getByRole('combobox', { name: 'Message' });
      if (viewport.name === 'desktop') {
        await input.fill('Ask a subagent to double-check the fix');
        await input.press('Enter');
        const live = page.getByRole('article', { name: 'Agent (live reply)' });
        await live.locator('.tool-call').filter({ hasText: 'task' }).first().waitFor({ timeout: 60_000 });
        await expect.poll(() => live.count(), { timeout: 60_000 }).toBe(0);
        await page.getByText('The subagent confirms the fix', { exact: false }).first().waitFor();
      }
      // The subagent's session is read back from OpenCode in the background once the turn is
      // saved; until then the task's item says it is not stored here.
      const taskItem = (r: ContextReport) => r.sources.flatMap((s) => s.items).find((i) => i.subagent);
      await expect
        .poll(
          async () => taskItem(contextReportSchema.parse(await api('/debug/context?items=all')))?.subagent?.stored,
          {
            timeout: 60_000,
            interval: 1000,
          },
        )
        .toBe(true);
      // The task call's item names the subagent's session; its report is one click away.
      await input.fill('/debug');
      await input.press('Enter');
      const parent = page.getByRole('region', { name: /^Context breakdown/ }).last();
      await parent.waitFor({ timeout: 30_000 });
      const report = contextReportSchema.parse(await api('/debug/context?items=all'));
      const task = report.sources.flatMap((s) => s.items.map((i) => ({ i, s }))).find((x) => x.i.subagent)!;
      expect(task.i.subagent).toMatchObject({ stored: true, agent: 'general', description: 'Check the index fix' });
      await parent.getByRole('button', { name: task.s.label, exact: true }).click();
      await parent.getByRole('button', { name: /^Open its report/ }).click();
      const child = page.getByRole('region', { name: /^Context breakdown — .*a subagent’s session/ });
      await child.waitFor({ timeout: 30_000 });
      // Its parent named as the chat names it: by its title, never its session id.
      const parentTitle = workspaceSchema.parse(await api('')).sessions.find((s) => s.id === report.sessionId)?.title;
      expect(parentTitle).toBeTruthy();
      expect(await child.textContent()).toContain(`A subagent’s session, made by a task call of “${parentTitle}”`);
      expect(await child.locator('.subagent-parent').textContent()).not.toContain(report.sessionId!);
      expect(await child.locator('.summary-figure').textContent()).toContain(`${fmt(task.i.subagent!.total!)} /`);
      // …and back to its parent's: a newer report of the parent, the earlier one folded to a line.
      await child.getByRole('button', { name: 'Open the parent’s report' }).click();
      await page.locator('.superseded').first().waitFor({ timeout: 30_000 });
      const regions = page.getByRole('region', { name: /^Context breakdown/ });
      expect(await regions.count()).toBe(2);
      expect(await regions.last().textContent()).not.toContain('A subagent’s session, made by a task call');
      expect(await page.locator('.superseded').textContent()).toContain('a newer report of this session is below');
      expect(await axeViolations(page, `parent, child and parent reports (${viewport.name})`)).toEqual([]);
      // The session switcher lists the subagent's session under its parent, not as a conversation.
      const toggle = page.getByRole('button', { name: /^Conversation: / });
      await toggle.click();
      const menu = page.getByRole('list', { name: 'Conversations in this workspace' });
      const nested = menu.getByRole('list', { name: /^Subagents of INC-4821 just paged/ });
      expect(await nested.getByRole('button').textContent()).toMatch(
        /^Subagent: Subagent task: check that the index fix/,
      );
      expect(await menu.locator(':scope > li').count()).toBe(2);
      expect(await overflow(page)).toEqual({ page: 0, list: 0 });
      await page.close();
    },
  );
});
