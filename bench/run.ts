/**
 * `npm run bench`: the context report at three sizes, measured against a floor in the same run
 * on the same data, for both estimators; the import of a ~200 MB export against reading it whole
 * (bench/import.ts); then the web bundle and the report's render cost in Chromium. Prints Markdown tables (docs/benchmarks.md keeps the latest).
 */
import { serve } from '@hono/node-server';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ReportCache } from '../src/node/report/report-cache';
import { ReportService } from '../src/node/report/service';
import { createApp } from '../src/node/server/app';
import { copyStore } from '../src/node/storage/copy';
import { openStore } from '../src/node/storage/open';
import { openSqlite } from '../src/node/storage/sqlite/sqlite-store';
import { postgresBin, startPostgres, type PostgresServer } from '../test/support/postgres';
import type { EstimatorId } from '../src/shared/wire';
import { benchWriters } from './counts';
import { benchStart } from './start';
import { measureFaults } from './faults';
import { memoKept } from './memo';
import { floor } from './floor';
import { benchImport } from './import';
import { BENCH_TOKEN, BENCH_WS, generateBenchWorkspace } from './generate';
import { measureFirstDebug, measureRender } from './render';

const PROJECT = join(import.meta.dirname, '..');
const SIZES = process.argv.includes('--quick') ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
const ESTIMATORS: EstimatorId[] = ['bpe', 'chars4'];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ratio = (x: number, base: number) => `${(x / base).toFixed(1)}×`;

interface Row {
  size: number;
  estimator: EstimatorId;
  messages: number;
  liveTokens: number;
  floor: number;
  cold: number;
  warm: number;
  cli: number;
  floorProcess: number;
  apiP50: number;
  apiP95: number;
  rssMb: number;
  memoMb: number;
}

function cold(dbPath: string, estimator: EstimatorId) {
  const runs = [0, 1, 2].map(() => {
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(PROJECT, 'bench/cold.ts'), dbPath, BENCH_WS, estimator],
      { cwd: PROJECT, encoding: 'utf8' },
    );
    return JSON.parse(out) as { ms: number; maxRssMb: number; totalTokens: number };
  });
  return {
    ms: median(runs.map((r) => r.ms)),
    rssMb: Math.max(...runs.map((r) => r.maxRssMb)),
    tokens: runs[0]!.totalTokens,
  };
}

async function warm(location: string, estimator: EstimatorId): Promise<number> {
  const store = await openStore({ location, readOnly: true });
  const service = new ReportService(store, { cache: new ReportCache() });
  await service.report({ workspaceId: BENCH_WS, estimator });
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const started = performance.now();
    await service.report({ workspaceId: BENCH_WS, estimator });
    times.push(performance.now() - started);
  }
  await store.close();
  return median(times);
}

/** The floor as a process of its own (bench/floor-process.mjs), timed as the CLI is. */
function floorProcess(dbPath: string, root: string): number {
  const times = [0, 1, 2, 3, 4].map(() => {
    const started = performance.now();
    const result = spawnSync(process.execPath, [join(PROJECT, 'bench/floor-process.mjs'), dbPath, BENCH_WS, root], {
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(result.stderr);
    return performance.now() - started;
  });
  return median(times);
}

function cli(dbPath: string, estimator: EstimatorId): number {
  const times = [0, 1, 2].map(() => {
    const started = performance.now();
    const result = spawnSync(
      process.execPath,
      [
        join(PROJECT, 'bin/investibook.js'),
        'debug',
        'context',
        BENCH_WS,
        '--db',
        dbPath,
        '--json',
        '--estimator',
        estimator,
      ],
      { encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(result.stderr);
    return performance.now() - started;
  });
  return median(times);
}

async function api(dbPath: string, estimator: EstimatorId): Promise<{ p50: number; p95: number }> {
  const store = await openSqlite(dbPath);
  const reportStore = await openSqlite(dbPath, { readOnly: true });
  const app = createApp({ store, reportStore });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((ok) => server.once('listening', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/workspace/${BENCH_WS}/debug/context?estimator=${estimator}`;
  const times: number[] = [];
  try {
    for (let i = 0; i < 51; i++) {
      const started = performance.now();
      const response = await fetch(url, { headers: { Authorization: `Bearer ${BENCH_TOKEN}` } });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`API answered ${response.status}`);
      if (i > 0) times.push(performance.now() - started); // the first is the cold one, shown apart
    }
  } finally {
    await new Promise((done) => server.close(done));
    await reportStore.close();
    await store.close();
  }
  return { p50: pct(times, 50), p95: pct(times, 95) };
}

function bundle(): { initialGzipKb: number; reportChunkGzipKb: number } {
  if (!existsSync(join(PROJECT, 'dist/index.html')))
    execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: PROJECT, stdio: 'inherit' });
  const html = readFileSync(join(PROJECT, 'dist/index.html'), 'utf8');
  const initial = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const size = (path: string) => gzipSync(readFileSync(join(PROJECT, 'dist', path))).length / 1024;
  const chunks = execFileSync('ls', [join(PROJECT, 'dist/assets')], { encoding: 'utf8' }).split('\n');
  const report = chunks.find((c) => c.startsWith('debug-view'));
  return {
    initialGzipKb: initial.reduce((n, p) => n + size(p), 0),
    reportChunkGzipKb: report ? size(`/assets/${report}`) : 0,
  };
}

interface PgRow {
  size: number;
  estimator: EstimatorId;
  sqliteCold: number;
  pgCold: number;
  sqliteWarm: number;
  pgWarm: number;
}

/** A PostgreSQL server of the bench's own, when the binaries are installed (scripts/ensure-packages.sh). */
async function maybePostgres(): Promise<PostgresServer | false> {
  try {
    postgresBin();
  } catch {
    return false;
  }
  return startPostgres();
}

/** The machine is shared: what else ran weighs on every wall time (the ratios in one run are what to read). */
const loadAverage = () =>
  `${loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')} on ${cpus().length} cores`;

/** Issue 33: who wrote the rows, and the CLI's start (`npm run bench -- --counts` runs this part alone). */
async function countsSection(postgres: PostgresServer | false): Promise<void> {
  console.log('\n## The CLI on a workspace the product wrote, and on one another writer wrote\n');
  console.log(`load average at the start: ${loadAverage()}\n`);
  for (const line of await benchWriters(
    SIZES.filter((s) => s >= 100_000),
    postgres,
  ))
    console.log(line);
  await startSection();
}

/** Issue 42.1: the CLI's start against its floors (`npm run bench -- --start` runs this part alone). */
async function startSection(): Promise<void> {
  console.log('\n## The CLI starting (each target against its floor, same run)\n');
  console.log(`load average at the start: ${loadAverage()}`);
  console.log('');
  for (const line of await benchStart()) console.log(line);
}

async function main() {
  if (process.argv.includes('--import')) return importSection();
  if (process.argv.includes('--start')) return startSection();
  if (process.argv.includes('--counts')) {
    const postgres = await maybePostgres();
    try {
      return await countsSection(postgres);
    } finally {
      if (postgres) postgres.stop();
    }
  }
  const rows: Row[] = [];
  const pgRows: PgRow[] = [];
  let postgres: PostgresServer | false | undefined;
  console.log(`# investibook benchmark — ${new Date().toISOString()}`);
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}\n`,
  );
  for (const size of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-bench-'));
    try {
      const generated = await generateBenchWorkspace(dir, size);
      await floor(generated.dbPath, BENCH_WS, generated.root); // page cache warm for everyone alike
      const floors: number[] = [];
      for (let i = 0; i < 5; i++) floors.push(await floor(generated.dbPath, BENCH_WS, generated.root));
      const floorMs = median(floors);
      const floorProcessMs = floorProcess(generated.dbPath, generated.root);
      for (const estimator of ESTIMATORS) {
        const c = cold(generated.dbPath, estimator);
        const a = await api(generated.dbPath, estimator);
        rows.push({
          size,
          estimator,
          messages: generated.messages,
          liveTokens: c.tokens,
          floor: floorMs,
          cold: c.ms,
          warm: await warm(generated.dbPath, estimator),
          cli: cli(generated.dbPath, estimator),
          floorProcess: floorProcessMs,
          apiP50: a.p50,
          apiP95: a.p95,
          rssMb: c.rssMb,
          memoMb: (await memoKept(generated.dbPath, BENCH_WS, estimator)).bytes / 2 ** 20,
        });
        process.stderr.write(`measured ${size} ${estimator}\n`);
      }
      postgres ??= size >= 100_000 ? await maybePostgres() : undefined;
      if (size >= 100_000 && postgres) {
        const url = await postgres.createDatabase('bench');
        const from = await openSqlite(generated.dbPath, { readOnly: true });
        const to = await openStore({ location: url });
        await copyStore(from, to);
        await Promise.all([from.close(), to.close()]);
        for (const estimator of ESTIMATORS) {
          const sqlite = rows.find((r) => r.size === size && r.estimator === estimator)!;
          pgRows.push({
            size,
            estimator,
            sqliteCold: sqlite.cold,
            pgCold: cold(url, estimator).ms,
            sqliteWarm: sqlite.warm,
            pgWarm: await warm(url, estimator),
          });
          process.stderr.write(`measured ${size} ${estimator} on PostgreSQL\n`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  console.log(
    '| live context | estimator | messages | estimated tokens | floor | cold report | warm report (p50) | floor process | CLI process | API p50 / p95 | peak RSS | memo kept |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ~${r.size.toLocaleString('en-US')} | ${r.estimator} | ${r.messages.toLocaleString('en-US')} | ${r.liveTokens.toLocaleString('en-US')} | ${ms(r.floor)} ms | ${ms(r.cold)} ms (${ratio(r.cold, r.floor)}) | ${ms(r.warm)} ms (${ratio(r.warm, r.floor)}) | ${ms(r.floorProcess)} ms | ${ms(r.cli)} ms (${ratio(r.cli, r.floorProcess)} the floor process) | ${ms(r.apiP50)} / ${ms(r.apiP95)} ms (${ratio(r.apiP50, r.floor)}) | ${r.rssMb.toFixed(0)} MB | ${r.memoMb.toFixed(1)} MB |`,
    );
  }

  console.log('\n## Growth (cold report; 2× data costs …)\n');
  for (const estimator of ESTIMATORS) {
    const series = rows.filter((r) => r.estimator === estimator);
    for (let i = 1; i < series.length; i++) {
      const a = series[i - 1]!;
      const b = series[i]!;
      const exponent = Math.log(b.cold / a.cold) / Math.log(b.liveTokens / a.liveTokens);
      console.log(
        `- ${estimator}, ${a.size.toLocaleString('en-US')} → ${b.size.toLocaleString('en-US')}: ${(2 ** exponent).toFixed(2)}× per doubling (floor: ${(2 ** (Math.log(b.floor / a.floor) / Math.log(b.liveTokens / a.liveTokens))).toFixed(2)}×)`,
      );
    }
  }

  console.log('\n## PostgreSQL (the same data copied over; a local server)\n');
  if (postgres) {
    console.log('| live context | estimator | cold: SQLite → PostgreSQL | warm p50: SQLite → PostgreSQL |');
    console.log('|---|---|---:|---:|');
    for (const r of pgRows) {
      console.log(
        `| ~${r.size.toLocaleString('en-US')} | ${r.estimator} | ${ms(r.sqliteCold)} → ${ms(r.pgCold)} ms (${ratio(r.pgCold, r.sqliteCold)}) | ${ms(r.sqliteWarm)} → ${ms(r.pgWarm)} ms (${ratio(r.pgWarm, r.sqliteWarm)}) |`,
      );
    }
  } else console.log('- skipped: PostgreSQL is not installed (bash scripts/ensure-packages.sh installs it)');

  await countsSection(postgres ?? false);
  if (postgres) postgres.stop();

  const faults = await measureFaults(PROJECT);
  console.log('\n## Faults\n');
  console.log(
    `- a write while another process holds the write lock: 503 database_busy in ${ms(faults.busyMs)} ms (the store's busy wait, then the answer)`,
  );
  console.log(
    `- the CLI on an impossible path: one line and exit 1 in ${ms(faults.cliFailureMs)} ms (Node's own start-up: ${ms(faults.nodeMs)} ms)`,
  );

  importSection();

  const web = bundle();
  console.log('\n## Web\n');
  console.log(
    `- initial JavaScript: ${web.initialGzipKb.toFixed(1)} KB gzip; report renderer chunk: ${web.reportChunkGzipKb.toFixed(1)} KB gzip (loaded on the first /debug)`,
  );
  if (!existsSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')) {
    console.log(
      '- render cost in Chromium: skipped, Chromium is not installed (bash scripts/ensure-packages.sh installs it)',
    );
    return;
  }
  const first = await measureFirstDebug();
  console.log(
    `- the first /debug after \`npm start\` on the demo, in Chromium: the report shown ${ms(first.firstMs)} ms after Enter (the real route and engine; target ≤ 300 ms); the next one ${ms(first.secondMs)} ms`,
  );
  const render = await measureRender(PROJECT);
  console.log(
    `- a report of 9 sources × 200 items in Chromium: shown ${ms(render.reportShownMs)} ms after Enter (fetch, lazy chunk, render); longest main-thread task while it appears: ${ms(render.longestWhileShowingMs)} ms (Long Tasks API reports only tasks over 50 ms: 0 means none); then every source expanded and scrolled to its 200th item: ${render.longTasks} tasks over 50 ms, longest measured ${ms(render.longestTaskMs)} ms`,
  );
}

/** The streaming import of a ~200 MB export (bench/import.ts); `npm run bench -- --import` runs it alone. */
function importSection(): void {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-bench-import-'));
  try {
    console.log('\n## Import (investibook import, a fresh process each)\n');
    for (const line of benchImport(dir)) console.log(line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
