/**
 * The CLI's start (issue 42.1), each target against its floor in the same run: `investibook
 * --help` against Node's own start (`node -e 0`, target ≤ 1.5×), the seeded demo's report against
 * its floor process (bench/floor-process.mjs, target ≤ 2×); and what each step of issue 42 took
 * off, measured beside them: the source walk the launcher no longer does, zod's locales the named
 * `z` import kept in the bundle, the first Intl number formatter, the table renderer `--json` no
 * longer loads, the whole environment schema the CLI no longer builds, the model catalog as an
 * object literal and parsed whole for a model no provider lists, @noble's SHA-256 in JavaScript for the report's keys (each a bundle of its own, built as the build builds), the report from the
 * split ES-module build instead of the CommonJS script and its V8 code cache, and V8's own
 * interrupt budget (each the CLI with a preload that undoes that one step). Every command runs in turn with
 * the others (round robin), so a load that comes and goes weighs on all alike; medians.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
// @ts-expect-error plain JavaScript, no declarations
import { ensureBuilt, largeJsonAsParse, largeJsonLazy } from '../scripts/build-node.mjs';
import { DEMO_WORKSPACE_ID } from '../src/node/demo/demo-ids';
import { roundRobin, type Timing } from './processes';

const PROJECT = join(import.meta.dirname, '..');
const RUNS = 11;

const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const times = (x: number, base: number) => `${(x / base).toFixed(2)}×`;
/** `wall ms (cpu ms CPU)` */
const both = (t: Timing) => `${ms(t.wall)} ms (${ms(t.cpu)} ms CPU)`;
const less = (a: Timing, b: Timing) => `${ms(a.wall - b.wall)} ms wall, ${ms(a.cpu - b.cpu)} ms CPU`;

/** A module bundled alone as the build bundles it (esbuild, ES module for Node): its load time is what it adds to a run. */
async function bundle(dir: string, name: string, entry: { file: string } | { code: string }, plugins: Plugin[] = []) {
  const file = 'file' in entry ? join(PROJECT, entry.file) : join(dir, `${name}.mjs`);
  if ('code' in entry) writeFileSync(file, entry.code);
  const outfile = join(dir, `${name}.out.mjs`);
  await build({
    entryPoints: [file],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    absWorkingDir: PROJECT,
    nodePaths: [join(PROJECT, 'node_modules')],
    mainFields: ['module', 'main'],
    external: ['better-sqlite3', 'ai-tokenizer'],
    plugins,
    logLevel: 'silent',
  });
  return outfile;
}

/**
 * What the demo's report hashes (its memo keys, snapshot id and content keys: 19 texts, 122 KB
 * in all, counted on this branch), with one key hash: @noble's in JavaScript or node:crypto's.
 */
const hashing = (file: string, name: string) => ({
  code: `import { ${name} } from '${join(PROJECT, file)}';
const text = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: 'msg_' + i, text: 'Read evidence/slow-query.log — 慢查询 ' + i })));
let last = '';
for (let i = 0; i < 19; i++) last = ${name}(text.slice(0, 6422) + i);
console.log(last);
`,
});

/** The bundles each step is measured with: before and after it, or what it no longer loads. */
async function stepBundles(dir: string) {
  const use = 'z.object({ a: z.string() }).parse({ a: "x" });';
  const catalog = {
    // The demo's model, which no provider lists.
    code: `import { catalogModel } from '${join(PROJECT, 'src/node/core/model-catalog.ts')}';\nconsole.log(catalogModel('scripted/scripted'));\n`,
  };
  return {
    zodNamed: await bundle(dir, 'zod-named', { code: `import { z } from 'zod';\n${use}\n` }),
    zodNamespace: await bundle(dir, 'zod-namespace', { code: `import * as z from 'zod';\n${use}\n` }),
    table: await bundle(dir, 'table', { file: 'src/node/cli/render-table.ts' }),
    envWhole: await bundle(dir, 'env-whole', { file: 'src/node/env.ts' }),
    envCli: await bundle(dir, 'env-cli', { file: 'src/node/cli-env.ts' }),
    catalogLiteral: await bundle(dir, 'catalog-literal', catalog),
    catalogParse: await bundle(dir, 'catalog-parse', catalog, [largeJsonAsParse as Plugin]),
    catalogLazy: await bundle(dir, 'catalog-lazy', catalog, [largeJsonLazy as Plugin]),
    hashPure: await bundle(dir, 'hash-pure', hashing('src/node/core/hash.ts', 'pureKeyHash')),
    hashNative: await bundle(dir, 'hash-native', hashing('src/node/report/native-hash.ts', 'nativeKeyHash')),
  };
}

/**
 * The demo seeded as `npm start` seeds a user's: by the compiled programs (build/node/seed-demo.mjs,
 * built first when a source changed), so its stored analyses carry the build's version and the
 * built CLI's report reads them. Seeded from the sources (tsx), they carry `…/sources` instead and
 * the report would analyse all 48 messages again, which no user's report does.
 */
async function seedAsBuilt(db: string): Promise<string> {
  const seeder = (await ensureBuilt('seed-demo', PROJECT)) as string;
  const seeded = spawnSync(process.execPath, [seeder, db, 'bench-start'], { encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`seeding the demo failed: ${seeded.stderr}`);
  return (JSON.parse(seeded.stdout) as { root: string }).root;
}

export async function benchStart(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-bench-start-'));
  try {
    const db = join(dir, 'demo.db');
    const root = await seedAsBuilt(db);
    const cli = join(PROJECT, 'bin/investibook.js');
    const steps = await stepBundles(dir);
    const preload = (file: string) => ['--import', pathToFileURL(join(PROJECT, 'bench', file)).href];
    const report = [cli, 'debug', 'context', DEMO_WORKSPACE_ID, '--db', db, '--json'];
    // The first report of each V8 configuration writes its code cache (src/node/cli/code-cache.ts): made before timing.
    for (const variant of [[], preload('v8-defaults.mjs'), preload('default-interrupt-budget.mjs')]) {
      spawnSync(process.execPath, [...variant, ...report]);
    }
    const walkFirst = `import('${join(PROJECT, 'scripts/build-node.mjs')}').then((b) => b.ensureBuilt('cli')).then((p) => import(p)).then((m) => m.run(['--help']))`;
    const t = roundRobin(
      dir,
      {
        node: ['-e', '0'],
        help: [cli, '--help'],
        helpAfterWalk: ['--input-type=module', '-e', walkFirst],
        floor: [join(PROJECT, 'bench/floor-process.mjs'), db, DEMO_WORKSPACE_ID, root],
        demo: [cli, 'debug', 'context', DEMO_WORKSPACE_ID, '--db', db, '--json'],
        demoV8Defaults: [
          '--import',
          pathToFileURL(join(PROJECT, 'bench/v8-defaults.mjs')).href,
          cli,
          'debug',
          'context',
          DEMO_WORKSPACE_ID,
          '--db',
          db,
          '--json',
        ],
        demoModules: [...preload('module-build.mjs'), ...report],
        demoDefaultBudget: [...preload('default-interrupt-budget.mjs'), ...report],
        intl: ['-e', "new Intl.NumberFormat('en-US').format(1234)"],
        zodNamed: [steps.zodNamed],
        zodNamespace: [steps.zodNamespace],
        table: [steps.table],
        envWhole: [steps.envWhole],
        envCli: [steps.envCli],
        catalogLiteral: [steps.catalogLiteral],
        catalogParse: [steps.catalogParse],
        catalogLazy: [steps.catalogLazy],
        hashPure: [steps.hashPure],
        hashNative: [steps.hashNative],
      },
      RUNS,
    );
    const met = (ok: boolean) => (ok ? '**met**' : '**not met**');
    const row = (target: string, what: Timing, floor: Timing, floorName: string, bound: number) =>
      `| ${target} | ${both(what)} | ${floorName} ${both(floor)} | ${times(what.wall, floor.wall)} (CPU ${times(what.cpu, floor.cpu)}) | wall ${met(what.wall <= bound * floor.wall)}, CPU ${met(what.cpu <= bound * floor.cpu)} |`;
    return [
      '| target | measured | its floor, same run | ratio | status |',
      '|---|---:|---:|---:|---|',
      row("`investibook --help` ≤ 1.5× Node's own start", t.help!, t.node!, '`node -e 0`', 1.5),
      row(
        "the seeded demo's report (`debug context demo --json`) ≤ 2× the floor process",
        t.demo!,
        t.floor!,
        'floor process',
        2,
      ),
      '',
      'What each step took off, measured in the same run:',
      '',
      `- the source walk at start (the launcher's freshness check, now a HEAD comparison): \`--help\` after the walk ${both(t.helpAfterWalk!)} against ${both(t.help!)} without — ${less(t.helpAfterWalk!, t.help!)}`,
      `- zod imported as a namespace: a bundle of \`import { z } from 'zod'\` loads in ${both(t.zodNamed!)}, of \`import * as z\` in ${both(t.zodNamespace!)} — ${less(t.zodNamed!, t.zodNamespace!)} (every locale and unused schema the named import kept)`,
      `- the first \`Intl.NumberFormat\` (fmt writes whole numbers itself): ${less(t.intl!, t.node!)} over Node's start`,
      `- the table renderer, which \`--json\` no longer loads: a bundle of render-table.ts alone loads in ${both(t.table!)} — ${less(t.table!, t.node!)} over Node's start`,
      `- the CLI's environment schema alone (cli-env.ts, six variables) instead of the whole one (env.ts): ${both(t.envCli!)} against ${both(t.envWhole!)} — ${less(t.envWhole!, t.envCli!)}`,
      `- the model catalog as \`JSON.parse\` of one string instead of an object literal: a bundle of model-catalog.ts loads in ${both(t.catalogParse!)} against ${both(t.catalogLiteral!)} — ${less(t.catalogLiteral!, t.catalogParse!)}`,
      `- the model catalog parsed a member at a time, when read, and a model no provider lists answered from the list of listed ids (the demo's): a bundle of model-catalog.ts asked for the demo's model loads in ${both(t.catalogLazy!)} against ${both(t.catalogParse!)} parsed whole — ${less(t.catalogParse!, t.catalogLazy!)}`,
      `- the young generation kept small (the launcher's \`--semi-space-growth-factor=1\`, for issue 42.2's peak RSS): the demo's report with V8's default young generation ${both(t.demoV8Defaults!)} against ${both(t.demo!)} — ${less(t.demoV8Defaults!, t.demo!)}`,
      `- the report from V8's code cache (build/node/cli.cjs compiled through vm.Script with the cachedData its first run left) instead of the split ES modules, compiled at every start: ${both(t.demo!)} against ${both(t.demoModules!)} — ${less(t.demoModules!, t.demo!)}`,
      `- V8's interrupt budget 16 times its default (less TurboFan for a short command): the demo's report with the default ${both(t.demoDefaultBudget!)} against ${both(t.demo!)} — ${less(t.demoDefaultBudget!, t.demo!)}`,
      `- the key hash on node:crypto instead of @noble's SHA-256 in JavaScript (what the demo's report hashes: 19 texts, 122 KB): ${both(t.hashNative!)} against ${both(t.hashPure!)} — ${less(t.hashPure!, t.hashNative!)}`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
