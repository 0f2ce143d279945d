/**
 * `npm run demo:agent` as a user meets it: the real process (the server, the scripted model, the
 * pinned OpenCode), a real Chromium, sign-in by link; a message typed in the chat streams back
 * as a real agent turn, /debug explains it, and after a reload the turn is in the history.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { startServerProcess, type ServerProcess } from '../support/server-process';

let dir: string;
let server: ServerProcess;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-live-'));
  server = await startServerProcess(join(dir, 'investibook.db'), 'live-token', {}, 'demo-agent.js');
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the live agent in the browser', () => {
  it('streams a real turn into the chat, and /debug explains it', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await page.goto(server.url);
    const input = page.getByRole('combobox', { name: 'Message' });
    await input.fill('What do we know so far?');
    await input.press('Enter');

    // The reply arrives as the agent writes it, with the tool it used.
    const live = page.getByRole('article', { name: 'Agent (live reply)' });
    await live.getByText('evidence_summary_for_agent.txt').first().waitFor({ timeout: 60_000 });
    await page.getByText('Where to look:', { exact: false }).first().waitFor({ timeout: 60_000 });
    // Then the saved turn takes its place in the history.
    await expect.poll(() => live.count(), { timeout: 30_000 }).toBe(0);
    await page.getByText('Where to look:', { exact: false }).first().waitFor();

    // /debug is answered locally: the evidence the agent read is there, by source.
    await input.fill('/debug');
    await input.press('Enter');
    await input.press('Enter').catch(() => {});
    const region = page.getByRole('region', { name: 'Context breakdown' });
    await region.waitFor({ timeout: 30_000 });
    await region.getByRole('button', { name: 'Evidence', exact: true }).click();
    await region.getByText('Read evidence summary: evidence_summary_for_agent.txt').first().waitFor();

    // After a reload the turn is history; the report is gone (it was never persisted).
    await page.reload();
    await page.getByText('Where to look:', { exact: false }).first().waitFor({ timeout: 30_000 });
    expect(await page.getByRole('region', { name: 'Context breakdown' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
