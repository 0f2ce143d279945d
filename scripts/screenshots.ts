/**
 * Regenerates the README screenshots: starts the product on a fresh temporary demo database,
 * opens the demo chat in Chromium and runs /debug — on a desktop, 1440 × 900 (light and dark: the report;
 * light: the timeline, a revealed item, the reader) and on a phone (light and dark); then a live
 * agent turn in progress, continuing the seeded session (as npm run demo:agent does) — it hands
 * a check to a subagent — and the session switcher with the subagent's session under its parent.
 * Run: npx tsx scripts/screenshots.ts (the seeded conversation has Chinese text: install a CJK font
 * first, Debian fonts-noto-cjk, or it shows as boxes)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  ensureOpencode,
  opencodeEnv,
  pinnedAgentSettings,
  SCRIPTED_SMALL_MODEL,
  writeScriptedConfig,
} from '../src/node/agent/opencode/install';
import { importDemoSessions } from '../src/node/demo/agent-import';
import { DEMO_WORKSPACE_ID } from '../src/node/demo/builder';
import { liveDemoScript } from '../src/node/demo/live-script';
import { startScriptedModel } from '../src/node/scripted-model/server';
import { start } from '../src/node/server/start';
import { launchChromium } from '../test/support/browser';

const dir = mkdtempSync(join(tmpdir(), 'investibook-shots-'));
const server = await start({
  database: join(dir, 'investibook.db'),
  port: 0,
  token: 'screenshot-token',
  log: () => {},
});
const browser = await launchChromium();

async function openReport(
  b: Browser,
  viewport: { width: number; height: number },
  scheme: 'light' | 'dark',
  scale = 1,
): Promise<Page> {
  const page = await b.newPage({ viewport, colorScheme: scheme, deviceScaleFactor: scale });
  await page.goto(`${server.url}?token=screenshot-token`);
  await page.getByText(/Stopped\. Summary/).waitFor();
  await page.getByRole('combobox', { name: 'Message' }).fill('/debug');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Context breakdown' }).waitFor();
  // The screenshots show the report, not a focus ring on its heading.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.waitForTimeout(300);
  return page;
}

/** Scrolls the chat so `target` sits just under the report's sticky summary. */
async function scrollTo(page: Page, target: ReturnType<Page['locator']>, offset = 120) {
  await target.evaluate((el, off) => {
    const list = el.closest('[aria-label="Messages"]')!;
    list.scrollTop += el.getBoundingClientRect().top - list.getBoundingClientRect().top - off;
  }, offset);
  await page.waitForTimeout(150);
}

try {
  for (const scheme of ['light', 'dark'] as const) {
    const page = await openReport(browser, { width: 1440, height: 900 }, scheme);
    await page.screenshot({ path: `docs/images/debug-report-${scheme}.png` });
    if (scheme === 'light') {
      const region = page.getByRole('region', { name: 'Context breakdown' });
      const timeline = region.getByRole('heading', { name: 'How the context grew' });
      await scrollTo(page, timeline);
      const slider = region.getByRole('slider', { name: 'Model call' });
      await slider.focus();
      for (let i = 0; i < 25; i++) await page.keyboard.press('ArrowLeft');
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.screenshot({ path: 'docs/images/timeline.png' });
      // Two clicks from "Evidence is N %" to the text: expand, then Reveal.
      await region.getByRole('button', { name: 'Evidence', exact: true }).click();
      await region
        .getByRole('button', { name: /^Reveal content: Read evidence/ })
        .first()
        .click();
      const panel = region.getByRole('region', { name: /^Content of / });
      await panel.getByText(/\S/).first().waitFor();
      await scrollTo(page, region.getByRole('button', { name: 'Evidence', exact: true }), 140);
      await page.screenshot({ path: 'docs/images/reveal-content.png' });
      await page.keyboard.press('Escape');
      await region.getByRole('button', { name: 'Open reader' }).click();
      const reader = page.getByRole('dialog', { name: 'Reader' });
      await reader.getByText('Instructions: AGENTS.md').waitFor();
      await reader.getByRole('button', { name: /^Evidence \d+/ }).click();
      await page.waitForTimeout(200);
      await page.screenshot({ path: 'docs/images/reader.png' });
    }
    await page.close();
    const phone = await openReport(browser, { width: 390, height: 844 }, scheme, 2);
    await phone.screenshot({ path: `docs/images/phone-${scheme}.png` });
    await phone.close();
  }
  await liveAgentShot(browser);
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}

/**
 * A live agent turn mid-way (npm run demo:agent's set-up: the pinned OpenCode on the scripted
 * model): its tools done, its reply held back a moment so the shot shows the turn in progress.
 */
async function liveAgentShot(b: Browser): Promise<void> {
  const liveDir = mkdtempSync(join(tmpdir(), 'investibook-shots-live-'));
  const bin = await ensureOpencode((line) => console.log(line));
  const root = join(liveDir, 'workspaces', DEMO_WORKSPACE_ID);
  const script = liveDemoScript(root);
  // The delegation turn: its task call done, its reply held back a moment.
  const delegate = script.turns.find((t) => t.when === 'subagent')!;
  delegate.steps[delegate.steps.length - 1]!.delayMs = 6000;
  const model = await startScriptedModel({ script, smallModels: [SCRIPTED_SMALL_MODEL] });
  const env = opencodeEnv(join(liveDir, 'agent-home'));
  writeScriptedConfig(env, { baseURL: model.url });
  const settings = pinnedAgentSettings(bin, env, join(liveDir, 'agent'));
  // As npm run demo:agent: the seeded sessions in the agent's storage, so the turn continues one.
  await importDemoSessions(settings, bin, root);
  const live = await start({
    database: join(liveDir, 'investibook.db'),
    port: 0,
    token: 'screenshot-token',
    log: () => {},
    agent: settings,
  });
  try {
    const page = await b.newPage({ viewport: { width: 1200, height: 1000 }, colorScheme: 'light' });
    await page.goto(`${live.url}?token=screenshot-token`);
    const input = page.getByRole('combobox', { name: 'Message' });
    await input.fill('Ask a subagent to double-check the fix');
    await input.press('Enter');
    const reply = page.getByRole('article', { name: 'Agent (live reply)' });
    await reply.locator('.tool-call.tool-done').filter({ hasText: 'task' }).first().waitFor({ timeout: 90_000 });
    await page.waitForTimeout(1500);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.screenshot({ path: 'docs/images/live-agent.png' });
    await reply.waitFor({ state: 'detached', timeout: 60_000 });
    // The subagent's session is read back from OpenCode in the background after the turn.
    for (let tries = 0; tries < 120; tries++) {
      const response = await fetch(new URL(`/api/workspace/${DEMO_WORKSPACE_ID}`, live.url), {
        headers: { Authorization: 'Bearer screenshot-token' },
      });
      const body = (await response.json()) as { sessions: { parentSessionId?: string }[] };
      if (body.sessions.some((s) => s.parentSessionId)) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await page.getByRole('button', { name: /^Conversation: / }).click();
    await page.getByRole('list', { name: /^Subagents of / }).waitFor({ timeout: 30_000 });
    await page.getByRole('list', { name: 'Conversations in this workspace' }).waitFor();
    await page.waitForTimeout(200);
    await page.screenshot({ path: 'docs/images/sessions.png', clip: { x: 0, y: 0, width: 1200, height: 420 } });
    await page.close();
  } finally {
    await live.close();
    await model.close();
    // An agent's last writes may still land while its folder goes.
    rmSync(liveDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}
