/**
 * What the report's script loads only when used (scripts/build-node.mjs, issue 42.1):
 * child_process, which commander requires at its top (`lazyBuiltins`), stays unloaded through a
 * report and still works, whole, for code that uses it — required as CommonJS (commander) or
 * imported by name (the ES modules bundled in); and ai-tokenizer (`defaultExportAsProperty`),
 * which a report whose counts are all stored never uses, and one that counts does, the same.
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
import { run as runCli } from '../../src/node/cli/main';
import { DEMO_WORKSPACE_ID, seedDemoDatabase } from '../../src/node/demo/builder';
import { PROJECT_ROOT } from '../../src/node/project';
import { captureIo } from '../support/cli';

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

/** The built CLI's report (`debug context ARGS --json`) and what the process loaded: built-ins and packages' files. */
async function builtReport(args: string[]): Promise<{ report: unknown; modules: string[]; files: string[] }> {
  await ensureBuilt('cli');
  const loaded = join(dir, 'loaded.json');
  const preload = join(dir, 'record.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify([process.moduleLoadList, Object.keys(require.cache)])));`,
  );
  const cli = join(PROJECT_ROOT, 'bin/investibook.js');
  const { stdout } = await exec(process.execPath, ['--require', preload, cli, 'debug', 'context', ...args, '--json'], {
    maxBuffer: 1 << 26,
  });
  const [modules, files] = JSON.parse(readFileSync(loaded, 'utf8')) as [string[], string[]];
  expect(modules).toContain('NativeModule vm'); // the report ran from the script
  // Neither field is the report's figures: when it was made, and (an export is read through a
  // temporary database of its own) a snapshot id that differs at every run.
  const {
    generatedAt: _,
    snapshotId: __,
    ...report
  } = JSON.parse(stdout) as { generatedAt: string; snapshotId: string };
  return { report, modules, files };
}

describe("the report's script", () => {
  it("loads neither child_process nor ai-tokenizer for the demo's report (its counts are stored)", async () => {
    const db = join(dir, 'demo.db');
    await seedDemoDatabase(db, 'lazy-builtins');
    // Twice: the first report writes the code cache, the second runs from it.
    for (let run = 0; run < 2; run++) {
      const { modules, files } = await builtReport([DEMO_WORKSPACE_ID, '--db', db]);
      expect(modules).not.toContain('NativeModule child_process');
      expect(files.filter((file) => file.includes('/ai-tokenizer/'))).toEqual([]);
    }
  }, 300_000);

  it('loads ai-tokenizer for a report that counts, and counts as the sources do', async () => {
    const file = join(PROJECT_ROOT, 'test/fixtures/public/anthropic-claude-opus-4-6_codectx_react-component.json');
    const { report, files } = await builtReport(['--export', file]);
    expect(files.some((path) => path.includes('/ai-tokenizer/'))).toBe(true);
    const io = captureIo(dir);
    expect(await runCli(['debug', 'context', '--export', file, '--json'], io)).toBe(0);
    const {
      generatedAt: _,
      snapshotId: __,
      ...fromSources
    } = JSON.parse(io.stdout()) as {
      generatedAt: string;
      snapshotId: string;
    };
    expect(report).toEqual(fromSources);
    expect((report as { estimate: { totalTokens: number } }).estimate.totalTokens).toBeGreaterThan(0);
  }, 300_000);
});
