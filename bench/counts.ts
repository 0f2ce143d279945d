/**
 * Issue 33's figures: the CLI's cold report on a workspace the product wrote (`investibook
 * import`, which stores the token counts) beside the same session written straight into
 * contract §1's columns (another writer: no counts), each against the floor process on the same
 * database, on SQLite and PostgreSQL (issue 42.2: within 2×, peak RSS ≤ 250 MB). Every figure a
 * median of fresh processes, the CLI and its floor in turn (bench/processes.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyStore } from '../src/node/storage/copy';
import { openStore } from '../src/node/storage/open';
import type { PostgresServer } from '../test/support/postgres';
import { BENCH_WS, generateBenchWorkspace } from './generate';
import { importBench } from './product-written';
import { roundRobin, type Timing } from './processes';

const PROJECT = join(import.meta.dirname, '..');
const RUNS = 5;

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const ratio = (x: number, base: number) => `${(x / base).toFixed(1)}×`;
/** Peak RSS of the cold CLI (issue 42.2). */
const RSS_BOUND_MB = 250;

const where = (location: string) =>
  location.startsWith('postgres') ? ['--database-url', location] : ['--db', location];
const cliReport = (location: string, workspaceId: string) => [
  join(PROJECT, 'bin/investibook.js'),
  'debug',
  'context',
  workspaceId,
  ...where(location),
  '--json',
];
const floorProcess = (location: string, workspaceId: string, root: string) => [
  join(PROJECT, location.startsWith('postgres') ? 'bench/floor-process-pg.mjs' : 'bench/floor-process.mjs'),
  location,
  workspaceId,
  root,
];

/** The CLI as it was before the memory step: V8's default young generations (bench/v8-defaults.mjs). */
const withV8Defaults = (args: string[]) => [
  '--import',
  pathToFileURL(join(PROJECT, 'bench/v8-defaults.mjs')).href,
  ...args,
];

interface WriterRow {
  size: number;
  backend: string;
  writer: string;
  floor: Timing;
  cli: Timing;
  /** Another writer's SQLite rows only: the CLI with V8's default young generations. */
  v8Defaults?: Timing;
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
        // A first round warms the caches for both alike; then the two in turn.
        roundRobin(dir, { floor: floorProcess(location, BENCH_WS, generated.root) }, 1);
        const stepped = backend === 'SQLite' && writer.startsWith('another');
        const t = roundRobin(
          dir,
          {
            floor: floorProcess(location, BENCH_WS, generated.root),
            cli: cliReport(location, BENCH_WS),
            ...(stepped ? { v8Defaults: withV8Defaults(cliReport(location, BENCH_WS)) } : {}),
          },
          RUNS,
        );
        rows.push({
          size,
          backend,
          writer,
          floor: t.floor!,
          cli: t.cli!,
          ...(stepped ? { v8Defaults: t.v8Defaults! } : {}),
        });
        process.stderr.write(`measured ${size} ${backend} ${writer}\n`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return [
    `| live context | database | written by | floor process (wall / CPU) | CLI process, bpe (wall / CPU) | ratio (wall / CPU) | ≤ 2× | CLI peak RSS (≤ ${RSS_BOUND_MB} MB) |`,
    '|---|---|---|---:|---:|---:|---|---:|',
    ...rows.map(
      (r) =>
        `| ~${r.size.toLocaleString('en-US')} | ${r.backend} | ${r.writer} | ${ms(r.floor.wall)} / ${ms(r.floor.cpu)} ms | ${ms(r.cli.wall)} / ${ms(r.cli.cpu)} ms | ${ratio(r.cli.wall, r.floor.wall)} / ${ratio(r.cli.cpu, r.floor.cpu)} | ${r.cli.cpu <= 2 * r.floor.cpu ? 'met' : 'not met'} (CPU) | ${r.cli.rss.toFixed(0)} MB ${r.cli.rss <= RSS_BOUND_MB ? 'met' : 'not met'} |`,
    ),
    '',
    ...rows.flatMap((r) =>
      r.v8Defaults
        ? [
            `- ~${r.size.toLocaleString('en-US')}, another writer's SQLite: the young generations kept small (the launcher's growth factor 1, the tokenizer threads' 2 MB) took the CLI's peak RSS from ${r.v8Defaults.rss.toFixed(0)} MB with V8's defaults to ${r.cli.rss.toFixed(0)} MB, CPU ${ms(r.v8Defaults.cpu)} → ${ms(r.cli.cpu)} ms, wall ${ms(r.v8Defaults.wall)} → ${ms(r.cli.wall)} ms (same run)`,
          ]
        : [],
    ),
    ...imports,
  ];
}
