/**
 * Render cost of a large report in the real browser: the demo chat on a temporary database,
 * /debug answered with a report of 9 sources × 200 items, then every source expanded. Long tasks
 * come from the Long Tasks API; each expansion is also timed around its (synchronous) click.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../src/node/server/start';
import type { ContextReport } from '../src/shared/wire';
import { launchChromium } from '../test/support/browser';

export function bigReport(base: ContextReport, perSource = 200): ContextReport {
  const report = structuredClone(base);
  for (const source of report.sources) {
    const template = source.items[0] ?? {
      id: 'it_x',
      label: 'Read evidence: file.log',
      sourceRef: 'messages_v2/msg_x/parts/0',
      estimatedTokens: 100,
      scaledTokens: 200,
      percentOfUsed: 0.1,
      bytes: 400,
      order: 0,
    };
    source.items = Array.from({ length: perSource }, (_, i) => ({
      ...template,
      id: `${template.id}_${i}`,
      label: `${template.label} #${i + 1}`,
      sourceRef: `${template.sourceRef}#${i}`,
    }));
    source.itemCount = perSource;
  }
  return report;
}

export async function measureRender(project: string) {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-render-'));
  const server = await start({
    database: join(dir, 'investibook.db'),
    port: 0,
    token: 'bench-render',
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const report = bigReport(
    JSON.parse(readFileSync(join(project, 'test/fixtures/report-demo.json'), 'utf8')) as ContextReport,
  );
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.route('**/debug/context**', (route) => route.fulfill({ json: report }));
    await page.goto(`${server.url}?token=bench-render`);
    await page.getByText(/Stopped\. Summary/).waitFor();
    await page.evaluate(() => {
      const w = window as unknown as { longTasks: { start: number; duration: number }[] };
      w.longTasks = [];
      new PerformanceObserver((list) =>
        list.getEntries().forEach((e) => w.longTasks.push({ start: e.startTime, duration: e.duration })),
      ).observe({ type: 'longtask', buffered: false });
    });
    const input = page.getByRole('combobox', { name: 'Message' });
    await input.fill('/debug');
    const started = Date.now();
    await input.press('Enter');
    await page.getByRole('region', { name: 'Context breakdown' }).waitFor();
    const reportShownMs = Date.now() - started;
    const expandStart = await page.evaluate(() => performance.now());
    const clicks = await page.evaluate(async () => {
      const times: number[] = [];
      const buttons = [...document.querySelectorAll<HTMLButtonElement>('.context-report .disclosure')];
      for (const button of buttons) {
        const t = performance.now();
        button.click();
        times.push(performance.now() - t);
        await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
      }
      return times;
    });
    // Scroll every list from top to bottom, as a reader would.
    await page.evaluate(async () => {
      for (const box of document.querySelectorAll<HTMLElement>('.items-scroll')) {
        for (let top = 0; top <= box.scrollHeight; top += box.clientHeight) {
          box.scrollTop = top;
          await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
        }
      }
    });
    await page.waitForTimeout(200);
    const all = await page.evaluate(
      () => (window as unknown as { longTasks: { start: number; duration: number }[] }).longTasks,
    );
    const showing = all.filter((t) => t.start < expandStart).map((t) => t.duration);
    const longTasks = all.filter((t) => t.start >= expandStart).map((t) => t.duration);
    const counts = await page
      .locator('.items-table')
      .evaluateAll((tables) => tables.map((t) => Number(t.getAttribute('aria-rowcount'))));
    if (counts.length !== 9 || counts.some((n) => n < 201))
      throw new Error(`expected 9 lists of 200 items, saw ${counts.join(', ')}`);
    const lastRows = await page.locator('.items-table tbody tr th', { hasText: '#200' }).count();
    if (lastRows !== 9) throw new Error(`expected every list to reach its 200th item, saw ${lastRows}`);
    return {
      reportShownMs,
      expandAllMs: clicks.reduce((a, b) => a + b, 0),
      longestTaskMs: Math.max(0, ...longTasks, ...clicks),
      longestWhileShowingMs: Math.max(0, ...showing),
      longTasks: longTasks.length,
      tasks: longTasks.map((t) => Math.round(t)),
      showingTasks: showing.map((t) => Math.round(t)),
    };
  } finally {
    await browser.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
