/**
 * What the compiled CLI loads for the demo's report (issue 42.1): every module costs compiling at
 * every run, so the report path loads only what it uses. `--json` prints no table, so the table
 * renderer (cli-table3) stays unloaded; a command reads the CLI's variables, so the whole
 * environment's schema (src/node/env.ts: the server's and the live agent's) stays unloaded; a
 * local SQLite report loads no other backend, server, agent, import or wire schema.
 * Each module the process loads is recorded by a module hook; the build keeps esbuild's
 * `// path` comment above each bundled file, which names what a chunk holds. This is the CLI's
 * split ES-module build (build/node/cli.mjs, which `--help` and the other commands run): the
 * launcher runs the report itself from one CommonJS script and its code cache (cli.cjs,
 * test/node/code-cache.test.ts), whose modules are evaluated as lazily, the same imports
 * deciding, but which no module hook sees.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript, no declarations
import { ensureBuilt } from '../../scripts/build-node.mjs';
import { DEMO_WORKSPACE_ID, seedDemoDatabase } from '../../src/node/demo/builder';
import { PROJECT_ROOT } from '../../src/node/project';

const run = promisify(execFile);
let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-cli-loads-'));
  db = join(dir, 'demo.db');
  await seedDemoDatabase(db, 'cli-loads');
  await ensureBuilt('cli');
  // Registered before the CLI starts: appends each loaded file's URL to the file $LOADED names.
  const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.LOADED, url + '\\n');
  return next(url, context);
}`;
  writeFileSync(join(dir, 'hooks.mjs'), hooks);
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The bundled source files (esbuild's `// path` comments) in every module `debug context` loaded. */
async function loadedSources(...flags: string[]): Promise<string> {
  const loaded = join(dir, `loaded-${flags.join('') || 'table'}.txt`);
  writeFileSync(loaded, '');
  const argv = ['debug', 'context', DEMO_WORKSPACE_ID, '--db', db, ...flags];
  const cli = pathToFileURL(join(PROJECT_ROOT, 'build/node/cli.mjs')).href;
  await run(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(dir, 'register.mjs')).href,
      '--input-type=module',
      '-e',
      `const { run } = await import(${JSON.stringify(cli)}); process.exitCode = await run(${JSON.stringify(argv)});`,
    ],
    { env: { ...process.env, LOADED: loaded }, maxBuffer: 1 << 26 },
  );
  const urls = readFileSync(loaded, 'utf8').split('\n').filter(Boolean);
  return urls
    .filter((url) => url.includes('/build/node/'))
    .map((url) => readFileSync(fileURLToPath(url), 'utf8'))
    .join('\n');
}

describe("the demo's report from the compiled CLI", () => {
  it('loads the table renderer only to print a table, never the whole environment schema nor what a local SQLite report does not use', async () => {
    const table = await loadedSources();
    expect(table).toMatch(/^\/\/ node_modules\/cli-table3\//m);
    expect(table).toMatch(/^\/\/ src\/node\/core\//m);

    const json = await loadedSources('--json');
    expect(json).toMatch(/^\/\/ src\/node\/core\//m);
    expect(json).not.toMatch(/^\/\/ node_modules\/cli-table3\//m);
    expect(json).not.toMatch(/^\/\/ src\/node\/cli\/render-table\.ts/m);
    expect(json).toMatch(/^\/\/ src\/node\/cli-env\.ts/m);
    expect(json).not.toMatch(/^\/\/ src\/node\/env\.ts/m);
    // A local SQLite report: no other backend, no server, agent, import or wire schemas.
    for (const unused of [
      'src/node/storage/postgres/',
      'src/node/server/',
      'src/node/agent/',
      'src/node/import/',
      'src/shared/wire.ts',
    ]) {
      expect(json).not.toMatch(new RegExp(`^// ${unused.replaceAll('/', '\\/').replaceAll('.', '\\.')}`, 'm'));
    }
  }, 300_000);
});
