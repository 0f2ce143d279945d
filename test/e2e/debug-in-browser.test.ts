/**
 * The product as a user meets it: `npm start`'s entry point on a temporary database, a real
 * Chromium, sign-in by link, /debug in the chat, a reload. The browser sends nothing but GETs
 * and the database content is unchanged. Then the report on a desktop and a phone, light and
 * dark: it fits (no sideways scroll), comes into view with focus on its heading, never slides
 * the app off screen, keeps its timeline keyboard reachable, and axe-core finds no critical,
 * serious or moderate violation with the report, a Reveal and the reader open — under the real CSP.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_LABELS } from '../../src/shared/wire';
import { launchChromium, newPage } from '../support/browser';
import { axeViolations, framesPainted, overflow, watchErrors } from '../support/browser-checks';
import { databaseDigest } from '../support/fixtures';
import { sharedDemoServer } from '../support/server-process';

// The project's demo server: this file only reads it (and shows that it wrote nothing).
const server = sharedDemoServer();
const openUrl = server.url;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

function recordRequests(page: Page, origin: string) {
  const seen: { method: string; path: string }[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === origin) seen.push({ method: request.method(), path: url.pathname });
  });
  return seen;
}

const inViewport = async (page: Page, locator: ReturnType<Page['locator']>) => {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize()!;
  return box !== null && box.y >= 0 && box.y + box.height <= viewport.height && box.x >= 0;
};

describe('/debug in a real browser', () => {
  it('signs in, shows the report, sends only GETs, is gone after reload, and writes nothing', async () => {
    const origin = new URL(openUrl).origin;
    const before = await databaseDigest(server.dbPath);
    const page = await newPage(browser);
    const requests = recordRequests(page, origin);
    const errors = await watchErrors(page);

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
    await region.waitFor();
    // Every source with something in context is a row; the demo's only empty one (every tool payload has an
    // owner since issue 38) is named in the line of empty sources.
    for (const label of Object.values(SOURCE_LABELS).filter((l) => l !== 'Unknown tool payload')) {
      await expect
        .poll(() => region.getByRole('button', { name: label, exact: true }).count(), { message: label })
        .toBe(1);
    }
    await region.getByText('Nothing in context from Unknown tool payload.').waitFor();
    await region.getByRole('button', { name: 'Skills & Knowledge', exact: true }).click();
    await region.getByText('Loaded skill: tidb-clinic-diagnosis').waitFor();
    // Two-step disclosure: the text arrives only after Reveal.
    await region.getByRole('button', { name: 'Reveal content: Loaded skill: tidb-clinic-diagnosis' }).click();
    await region
      .getByRole('region', { name: 'Content of Loaded skill: tidb-clinic-diagnosis' })
      .getByText('# TiDB Clinic diagnosis')
      .waitFor();
    await region.getByRole('button', { name: 'Open reader' }).click();
    await page.getByRole('dialog', { name: 'Reader' }).getByText('Instructions: AGENTS.md').waitFor();
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
    await page.context().close();
    expect(await databaseDigest(server.dbPath)).toBe(before);
  });

  describe.each([
    { name: 'desktop', width: 1440, height: 900 },
    { name: 'phone', width: 390, height: 844 },
  ])('on a $name ($width × $height)', ({ width, height }) => {
    // One page for both colour schemes: the layout and focus are the scheme's to keep, axe looks
    // at each (contrast), switched without a reload.
    it('fits, takes focus, stays in view, and passes axe, light and dark', async () => {
      const page = await newPage(browser, { viewport: { width, height }, colorScheme: 'light' });
      /** axe in both schemes, the page back in light after. */
      const axeInBoth = async (what: string) => {
        const found: string[] = [];
        for (const scheme of ['dark', 'light'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          found.push(...(await axeViolations(page, `${what} (${scheme})`)));
        }
        return found;
      };
      const errors = await watchErrors(page);
      await page.goto(openUrl);
      await page.getByText(/Stopped\. Summary: cause found/).waitFor();
      const input = page.getByRole('combobox', { name: 'Message' });
      expect(await input.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await overflow(page)).toEqual({ page: 0, list: 0 });

      await input.fill('/debug');
      await input.press('Enter');
      const region = page.getByRole('region', { name: 'Context breakdown' });
      const heading = region.getByRole('heading', { name: 'Context breakdown' });
      await heading.waitFor();
      await expect.poll(() => heading.evaluate((el) => el === document.activeElement)).toBe(true);
      await expect.poll(() => inViewport(page, heading)).toBe(true);
      expect(await overflow(page)).toEqual({ page: 0, list: 0 });

      // The timeline: reachable with Tab from the heading, then driven by the arrow keys.
      const slider = region.getByRole('slider', { name: 'Model call' });
      const calls = Number(await slider.getAttribute('aria-valuemax'));
      expect(calls).toBeGreaterThan(10);
      let tabs = 0;
      while (!(await slider.evaluate((el) => el === document.activeElement)) && tabs++ < 40)
        await page.keyboard.press('Tab');
      expect(tabs).toBeLessThan(40);
      await page.keyboard.press('ArrowLeft');
      expect(await slider.getAttribute('aria-valuenow')).toBe(String(calls - 1));
      expect(await region.getByRole('heading', { name: 'Biggest jumps' }).count()).toBe(1);

      // A source and one item's text open: still fits, and axe is content.
      await region.getByRole('button', { name: 'Evidence', exact: true }).click();
      await region
        .getByRole('button', { name: /^Reveal content: Read evidence/ })
        .first()
        .click();
      await region
        .getByRole('region', { name: /^Content of / })
        .getByText(/\S/)
        .first()
        .waitFor();
      expect(await overflow(page)).toEqual({ page: 0, list: 0 });
      const violations = await axeInBoth('report with a Reveal open');

      await region.getByRole('button', { name: 'Open reader' }).click();
      const reader = page.getByRole('dialog', { name: 'Reader' });
      await reader.getByText('Instructions: AGENTS.md').waitFor();
      await reader.getByRole('button', { name: /^Evidence \d+ blocks$/ }).click();
      expect(await overflow(page)).toEqual({ page: 0, list: 0 });
      violations.push(...(await axeInBoth('reader open')));
      await page.keyboard.press('Escape');
      expect(await reader.count()).toBe(0);
      expect(
        await region.getByRole('button', { name: 'Open reader' }).evaluate((el) => el === document.activeElement),
      ).toBe(true);
      expect(violations).toEqual([]);

      // Scrolled to the very end, by the list and by the wheel: the app is still where it was.
      await page.locator('[aria-label="Messages"]').evaluate((el) => (el.scrollTop = el.scrollHeight));
      await page.mouse.move(width / 2, height / 2);
      await page.mouse.wheel(0, 50_000);
      await framesPainted(page);
      expect(await page.evaluate(() => [window.scrollX, window.scrollY])).toEqual([0, 0]);
      expect(await inViewport(page, page.getByRole('heading', { level: 1 }))).toBe(true);
      expect(await inViewport(page, input)).toBe(true);
      expect(await overflow(page)).toEqual({ page: 0, list: 0 });

      expect(errors).toEqual([]);
      await page.context().close();
      // What two tests did, each scheme's axe on one page: twice a test's time before a hang is called one.
    }, 240_000);
  });
});
