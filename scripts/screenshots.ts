/**
 * Regenerates the README screenshots: starts the product on a fresh temporary demo database,
 * opens the demo chat in Chromium, runs /debug and expands Evidence. Run: npx tsx scripts/screenshots.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../src/node/server/start';
import { launchChromium } from '../test/support/browser';

const dir = mkdtempSync(join(tmpdir(), 'investibook-shots-'));
const server = await start({ database: join(dir, 'investibook.db'), port: 0, token: 'screenshot-token', log: () => {} });
const browser = await launchChromium();
try {
  for (const scheme of ['light', 'dark'] as const) {
    const page = await browser.newPage({
      viewport: { width: 1100, height: 1250 },
      colorScheme: scheme,
      deviceScaleFactor: 1,
    });
    await page.goto(`${server.url}?token=screenshot-token`);
    await page.getByRole('combobox', { name: 'Message' }).fill('/debug');
    await page.keyboard.press('Enter');
    await page
      .getByRole('button', { name: /Evidence/ })
      .first()
      .click();
    await page.getByText('Loaded skill:', { exact: false }).first().waitFor({ state: 'attached' });
    await page.getByRole('region', { name: 'Context breakdown' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: `docs/images/debug-report-${scheme}.png` });
    if (scheme === 'light') {
      // Two clicks from "Evidence is N %" to the text: expand (done above), then Reveal.
      await page
        .getByRole('button', { name: /^Reveal content: Read evidence/ })
        .first()
        .click();
      const panel = page.getByRole('region', { name: /^Content of / });
      await panel.waitFor();
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: 'docs/images/reveal-content.png' });
      await page.getByRole('button', { name: /Close the content/ }).click();
      await page.getByRole('button', { name: 'Open reader' }).click();
      await page.getByRole('button', { name: 'Evidence', exact: true }).last().click();
      const reader = page.getByRole('region', { name: 'Context in request order' });
      await reader.waitFor();
      await reader.scrollIntoViewIfNeeded();
      await page.screenshot({ path: 'docs/images/reader.png' });
    }
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
