/**
 * Built-ins the report's script loads only when used (scripts/build-node.mjs, `lazyBuiltins`,
 * issue 42.1): child_process, which commander requires at its top, stays unloaded through a
 * report and still works, whole, for code that uses it — required as CommonJS (commander) or
 * imported by name (the ES modules bundled in).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript, no declarations
import { ensureBuilt, lazyBuiltins } from '../../scripts/build-node.mjs';
import { DEMO_WORKSPACE_ID, seedDemoDatabase } from '../../src/node/demo/builder';
import { PROJECT_ROOT } from '../../src/node/project';

const exec = promisify(execFile);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-lazy-builtins-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LOADED = "process.moduleLoadList.includes('NativeModule child_process')";

/** `code` bundled as the report's script is (CommonJS, the plugin), run; what it printed. */
async function bundled(name: string, code: string): Promise<unknown> {
  const entry = join(dir, `${name}.mjs`);
  writeFileSync(entry, code);
  const outfile = join(dir, `${name}.cjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    plugins: [lazyBuiltins as Plugin],
    logLevel: 'silent',
  });
  const { stdout } = await exec(process.execPath, [outfile]);
  return JSON.parse(stdout);
}

/** Spawns a Node that prints "ran", through `spawn` (the module's binding named `via`). */
const use = (via: string) => `
const before = ${LOADED};
const out = ${via}(process.execPath, ['-e', 'process.stdout.write("ran")'], { encoding: 'utf8' }).stdout;
console.log(JSON.stringify({ before, out, after: ${LOADED} }));`;

describe('child_process in the report script', () => {
  it('is loaded when first used, and works: imported by name', async () => {
    expect(await bundled('named', `import { spawnSync } from 'node:child_process';\n${use('spawnSync')}`)).toEqual({
      before: false,
      out: 'ran',
      after: true,
    });
  });

  it('is loaded when first used, and works: required whole, as commander does', async () => {
    const code = `const childProcess = require('child_process');\n${use('childProcess.spawnSync')}`;
    expect(await bundled('required', code)).toEqual({ before: false, out: 'ran', after: true });
  });
});

/** The built-ins the built CLI's report (`debug context ARGS --json`) loaded. */
async function loadedByReport(args: string[]): Promise<string[]> {
  await ensureBuilt('cli');
  const loaded = join(dir, 'loaded.json');
  const preload = join(dir, 'record.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(process.moduleLoadList)));`,
  );
  const cli = join(PROJECT_ROOT, 'bin/investibook.js');
  await exec(process.execPath, ['--require', preload, cli, 'debug', 'context', ...args, '--json'], {
    maxBuffer: 1 << 26,
  });
  const modules = JSON.parse(readFileSync(loaded, 'utf8')) as string[];
  expect(modules).toContain('NativeModule vm'); // the report ran from the script
  return modules;
}

describe("the report's script", () => {
  it("does not load child_process for the demo's report", async () => {
    const db = join(dir, 'demo.db');
    await seedDemoDatabase(db, 'lazy-builtins');
    // Twice: the first report writes the code cache, the second runs from it.
    for (let run = 0; run < 2; run++) {
      const modules = await loadedByReport([DEMO_WORKSPACE_ID, '--db', db]);
      expect(modules).not.toContain('NativeModule child_process');
    }
  }, 300_000);
});
