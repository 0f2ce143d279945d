/**
 * Issue 33's figures: the CLI's cold report on a workspace the product wrote (`investibook
 * import`, which stores the token counts) beside the same session written straight into
 * contract §1's columns (another writer: no counts), each against the floor process on the same
 * database, on SQLite and PostgreSQL. Every figure a median of fresh processes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyStore } from '../src/node/storage/copy';
import { openStore } from '../src/node/storage/open';
import type { PostgresServer } from '../test/support/postgres';
import { BENCH_WS, generateBenchWorkspace } from './generate';
import { importBench } from './product-written';

const PROJECT = join(import.meta.dirname, '..');
const RUNS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ratio = (x: number, base: number) => `${(x / base).toFixed(1)}×`;

/** The median wall time of a command run as a fresh process. */
function timed(args: string[], runs = RUNS): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (result.status !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
    times.push(performance.now() - started);
  }
  return median(times);
}

const where = (location: string) =>
  location.startsWith('postgres') ? ['--database-url', location] : ['--db', location];
const cliReport = (location: string, workspaceId: string) =>
  timed([join(PROJECT, 'bin/investibook.js'), 'debug', 'context', workspaceId, ...where(location), '--json']);
const floorProcess = (location: string, workspaceId: string, root: string) =>
  timed([
    join(PROJECT, location.startsWith('postgres') ? 'bench/floor-process-pg.mjs' : 'bench/floor-process.mjs'),
    location,
    workspaceId,
    root,
  ]);

interface WriterRow {
  size: number;
  backend: string;
  writer: string;
  floor: number;
  cli: number;
}

async function toPostgres(postgres: PostgresServer, from: string): Promise<string> {
  const url = await postgres.createDatabase('bench');
  const source = await openStore({ location: from, readOnly: true });
  const target = await openStore({ location: url });
  await copyStore(source, target);
  await Promise.all([source.close(), target.close()]);
  return url;
}

/** The two writers at each size, SQLite and (when it runs) PostgreSQL. */
export async function benchWriters(sizes: readonly number[], postgres: PostgresServer | false): Promise<string[]> {
  const rows: WriterRow[] = [];
  const imports: string[] = [];
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-bench-counts-'));
    try {
      const generated = await generateBenchWorkspace(dir, size);
      const product = await importBench(generated, dir);
      imports.push(
        `- ~${size.toLocaleString('en-US')}: \`investibook import\` of the session (${generated.messages.toLocaleString('en-US')} messages), its counts stored: ${ms(product.importMs)} ms`,
      );
      const databases: [string, string, string][] = [
        ['SQLite', 'another writer (§1 columns)', generated.dbPath],
        ['SQLite', 'the product (import)', product.location],
      ];
      if (postgres) {
        databases.push(['PostgreSQL', 'another writer (§1 columns)', await toPostgres(postgres, generated.dbPath)]);
        databases.push(['PostgreSQL', 'the product (import)', await toPostgres(postgres, product.location)]);
      }
      for (const [backend, writer, location] of databases) {
        floorProcess(location, BENCH_WS, generated.root); // caches warm for both alike
        rows.push({
          size,
          backend,
          writer,
          floor: floorProcess(location, BENCH_WS, generated.root),
          cli: cliReport(location, BENCH_WS),
        });
        process.stderr.write(`measured ${size} ${backend} ${writer}\n`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return [
    '| live context | database | written by | floor process | CLI process (bpe) | target ≤ 2× |',
    '|---|---|---|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ~${r.size.toLocaleString('en-US')} | ${r.backend} | ${r.writer} | ${ms(r.floor)} ms | ${ms(r.cli)} ms (${ratio(r.cli, r.floor)}) | ${r.cli <= 2 * r.floor ? 'met' : 'not met'} |`,
    ),
    '',
    ...imports,
  ];
}
