/**
 * The product as a user meets it: `npm start`'s entry point on a temporary database, a real
 * Chromium, sign-in by link, /debug in the chat, a reload. The browser sends nothing but GETs
 * and the database content is unchanged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_LABELS } from '../../src/shared/wire';
import { launchChromium } from '../support/browser';
import { databaseDigest } from '../support/fixtures';
import { startServerProcess, type ServerProcess } from '../support/server-process';

let dir: string;
let server: ServerProcess;
let openUrl: string;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-e2e-'));
  server = await startServerProcess(join(dir, 'investibook.db'), 'e2e-token');
  openUrl = server.url;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function recordRequests(page: Page, origin: string) {
  const seen: { method: string; path: string }[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === origin) seen.push({ method: request.method(), path: url.pathname });
  });
  return seen;
}

describe('/debug in a real browser', () => {
  it('signs in, shows the report, sends only GETs, is gone after reload, and writes nothing', async () => {
    const origin = new URL(openUrl).origin;
    const dbPath = join(dir, 'investibook.db');
    const before = databaseDigest(dbPath);
    const page = await browser.newPage();
    const requests = recordRequests(page, origin);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));

    const html = await (await fetch(`${origin}/w/demo`)).text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline scripts: the CSP forbids them
    await page.goto(openUrl);
    expect(page.url()).toBe(`${origin}/w/demo`);
    await page.getByText(/Stopped\. Summary: cause found/).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'investibook_token')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    const input = page.getByRole('combobox', { name: 'Message' });
    await input.fill('/deb');
    await expect.poll(() => page.getByRole('option', { name: /\/debug/ }).count()).toBe(1);
    await input.press('Enter');
    await expect.poll(() => input.inputValue()).toBe('/debug ');
    await input.press('Enter');

    const region = page.getByRole('region', { name: 'Context breakdown' });
    await region.waitFor({ timeout: 30_000 });
    for (const label of Object.values(SOURCE_LABELS)) {
      await expect
        .poll(() => region.getByRole('button', { name: label, exact: true }).count(), { message: label })
        .toBe(1);
    }
    await region.getByRole('button', { name: 'Skills & Knowledge', exact: true }).click();
    await region.getByText('Loaded skill: tidb-clinic-diagnosis').waitFor();
    // Two-step disclosure: the text arrives only after Reveal.
    await region.getByRole('button', { name: 'Reveal content: Loaded skill: tidb-clinic-diagnosis' }).click();
    await region
      .getByRole('region', { name: 'Content of Loaded skill: tidb-clinic-diagnosis' })
      .getByText('# TiDB Clinic diagnosis')
      .waitFor();
    await region.getByRole('button', { name: 'Open reader' }).click();
    await region
      .getByRole('region', { name: 'Context in request order' })
      .getByText('Instructions: AGENTS.md')
      .waitFor();
    expect(await region.textContent()).not.toMatch(/messages_v2\//);
    expect(await page.getByText('Only visible to you · disappears on refresh').count()).toBeGreaterThan(0);

    await page.reload();
    await page.getByText(/Stopped\. Summary: cause found/).waitFor();
    expect(await page.getByRole('region', { name: 'Context breakdown' }).count()).toBe(0);
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);

    expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(requests.filter((r) => r.path.endsWith('/debug/context'))).toHaveLength(1);
    expect(
      requests.filter((r) => r.path.includes('/debug/context/items/')),
      JSON.stringify(requests),
    ).toHaveLength(1);
    expect(requests.filter((r) => r.path.endsWith('/debug/context/reader'))).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.close();
    expect(databaseDigest(dbPath)).toBe(before);
  });
});
