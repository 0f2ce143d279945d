/**
 * Render cost of a large report in the real browser: the demo chat on a temporary database,
 * /debug answered with a report of 9 sources × 200 items and a timeline of 200 calls, then every
 * source expanded and every list shown to its 200th item ("Show more"), and the timeline walked
 * by keyboard. Long tasks come from the Long Tasks API; each click is also timed around itself.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../src/node/server/start';
import type { ContextReport } from '../src/shared/wire';
import { launchChromium } from '../test/support/browser';
import { startServerProcess } from '../test/support/server-process';

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
    // A source with nothing in context is set apart ("Nothing in context from …"), with no list:
    // the demo's unknown tool payload gets its 200 items' tokens, so that all nine are lists.
    if (source.scaledTokens === 0) {
      source.estimatedTokens = source.items.reduce((n, item) => n + item.estimatedTokens, 0);
      source.scaledTokens = source.items.reduce((n, item) => n + (item.scaledTokens ?? 0), 0);
      source.bytes = source.items.reduce((n, item) => n + item.bytes, 0);
    }
  }
  report.timeline = bigTimeline(base, 200);
  return report;
}

/** A timeline of `calls` points growing by source, with a compaction, pruning and skill loads. */
export function bigTimeline(base: ContextReport, calls: number): NonNullable<ContextReport['timeline']> {
  const ids = base.sources.map((s) => s.id);
  let level = 0;
  return Array.from({ length: calls }, (_, i) => {
    const events = i === calls / 2 ? ['compaction'] : i % 37 === 5 ? ['skill'] : i % 53 === 7 ? ['pruning'] : [];
    level = events.includes('compaction') ? level / 3 : level + 150 + ((i * 97) % 400);
    const bySource = Object.fromEntries(ids.map((id, k) => [id, Math.round((level * (k + 1)) / 45)]));
    const sum = Object.values(bySource).reduce((a, b) => a + b, 0);
    return {
      call: i + 1,
      messageId: `msg_bench_${i}`,
      at: new Date(Date.UTC(2026, 10, 28, 2, 0, i)).toISOString(),
      promptTokens: sum + 6000,
      runtimeOverhead: 6000,
      bySource,
      added: [{ label: `Read evidence: file-${i}.log`, source: ids[i % ids.length]!, tokens: 150 + ((i * 97) % 400) }],
      events,
    };
  });
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
    // No named inner functions here: tsx would wrap them in a helper the page does not have.
    const clicks = await page.evaluate(async () => {
      const times: number[] = [];
      const next = [...document.querySelectorAll<HTMLButtonElement>('.context-report .disclosure')];
      for (;;) {
        // Every source first, then every list to its 200th item, a step at a time.
        const button = next.shift() ?? document.querySelector<HTMLButtonElement>('.items-table .more-row button');
        if (!button) break;
        const t = performance.now();
        button.click();
        // React renders a click in a microtask queued before this continuation: the time includes it.
        await Promise.resolve();
        times.push(performance.now() - t);
        await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
      }
      // Walk the timeline by keyboard, end to start.
      const slider = document.querySelector<HTMLElement>('.timeline-plot')!;
      slider.focus();
      for (let i = 0; i < 200; i++) {
        const t = performance.now();
        slider.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowLeft', bubbles: true }));
        await Promise.resolve();
        times.push(performance.now() - t);
        // One key press per task, as a person (or key repeat) sends them.
        await new Promise((done) => setTimeout(done, 0));
      }
      await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
      return times;
    });
    // Scroll the chat from top to bottom, as a reader would.
    await page.evaluate(async () => {
      const list = document.querySelector<HTMLElement>('[aria-label="Messages"]')!;
      for (let top = 0; top <= list.scrollHeight; top += list.clientHeight) {
        list.scrollTop = top;
        await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
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
    const slider = page.getByRole('slider', { name: 'Model call' });
    if ((await slider.getAttribute('aria-valuemax')) !== '200' || (await slider.getAttribute('aria-valuenow')) !== '1')
      throw new Error(
        `expected the timeline to hold 200 calls and be walked to the first, saw ${await slider.getAttribute('aria-valuenow')} of ${await slider.getAttribute('aria-valuemax')}`,
      );
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

/**
 * The first /debug after `npm start` on a fresh demo database, the way a new user meets it: the
 * server started (its background warm-up included), the chat opened, `/debug` typed and sent;
 * the time from Enter until the report is on screen — the real route, engine and view — and the
 * same for a second /debug.
 */
export async function measureFirstDebug(): Promise<{ firstMs: number; secondMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-first-'));
  // `npm start` as a process of its own: nothing loaded before it (the tokenizer, the bundle).
  const server = await startServerProcess(join(dir, 'investibook.db'), 'bench-first', {
    ...(process.env.BENCH_NO_WARM === '1' ? { INVESTIBOOK_WARM: '0' } : {}),
  });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    // The Open line carries the sign-in token already (INVESTIBOOK_TOKEN).
    await page.goto(server.url);
    await page.getByText(/Stopped\. Summary/).waitFor();
    const input = page.getByRole('combobox', { name: 'Message' });
    const reports = page.getByRole('region', { name: 'Context breakdown' });
    const once = async () => {
      // Reports already on screen are marked: the one to wait for is the first unmarked one.
      await reports.evaluateAll((found) => found.forEach((r) => r.setAttribute('data-seen', '')));
      await input.fill('/debug');
      const started = Date.now();
      await input.press('Enter');
      await reports.and(page.locator(':not([data-seen])')).first().waitFor({ timeout: 60_000 });
      return Date.now() - started;
    };
    const firstMs = await once();
    const secondMs = await once();
    return { firstMs, secondMs };
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
