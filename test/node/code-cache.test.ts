/**
 * The report's code cache (src/node/cli/code-cache.ts, issue 42.1): used when it is valid, and
 * otherwise ignored with the same result — missing, corrupt, made from another script (even one
 * of the same length, which V8's own check lets through), not private to its owner, or
 * unwritable. First on a small script, where what ran is visible; then through the compiled CLI
 * on the seeded demo, a copy of the build laid out as an installed package.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript, no declarations
import { ensureBuilt } from '../../scripts/build-node.mjs';
import { cachePath, runCached } from '../../src/node/cli/code-cache';
import { DEMO_WORKSPACE_ID, seedDemoDatabase } from '../../src/node/demo/builder';
import { PROJECT_ROOT } from '../../src/node/project';

const exec = promisify(execFile);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-code-cache-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A script whose answer names the version that ran; `pad` keeps two versions the same length. */
const script = (version: string) =>
  `const seen = [];\nfor (let i = 0; i < 50; i++) seen.push(i * 2);\nmodule.exports = { answer: () => '${version}:' + seen.length + ':' + typeof require + ':' + __filename.endsWith('.cjs') };\n`;

/** Flips one byte in the middle of a file: V8's payload of a cache, past its header. */
function corrupt(path: string): void {
  const bytes = readFileSync(path);
  bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
  writeFileSync(path, bytes, { mode: 0o600 });
}

describe('a CommonJS script run from its code cache', () => {
  const run = (file: string, cache?: string) => {
    const loaded = runCached<{ answer: () => string }>(file, cache);
    return { loaded, answer: loaded.exports.answer() };
  };

  it('compiles from source and writes an owner-only cache; the next run uses it', () => {
    const file = join(dir, 'fresh.cjs');
    writeFileSync(file, script('one'));
    const first = run(file);
    expect(first).toMatchObject({ answer: 'one:50:function:true', loaded: { fromCache: false } });
    expect(first.loaded.save()).toBe(true);
    expect(statSync(cachePath(file)).mode & 0o777).toBe(0o600);

    const second = run(file);
    expect(second).toMatchObject({ answer: 'one:50:function:true', loaded: { fromCache: true } });
    expect(second.loaded.save()).toBe(false); // nothing to write: it came from the cache
  });

  it('ignores a corrupt, truncated or foreign-made cache, runs the same, and replaces it', () => {
    const file = join(dir, 'bad.cjs');
    writeFileSync(file, script('one'));
    run(file).loaded.save();
    const cache = cachePath(file);
    const valid = readFileSync(cache);

    corrupt(cache);
    const corrupted = run(file);
    expect(corrupted).toMatchObject({ answer: 'one:50:function:true', loaded: { fromCache: false } });
    expect(corrupted.loaded.save()).toBe(true);
    expect(run(file).loaded.fromCache).toBe(true);

    writeFileSync(cache, valid.subarray(0, valid.length - 100), { mode: 0o600 });
    expect(run(file)).toMatchObject({ answer: 'one:50:function:true', loaded: { fromCache: false } });

    writeFileSync(cache, 'not a cache at all', { mode: 0o600 });
    expect(run(file)).toMatchObject({ answer: 'one:50:function:true', loaded: { fromCache: false } });

    // Readable or writable by others: bytecode is code, so it is not run.
    writeFileSync(cache, valid, { mode: 0o600 });
    expect(run(file).loaded.fromCache).toBe(true);
    chmodSync(cache, 0o644);
    expect(run(file)).toMatchObject({ answer: 'one:50:function:true', loaded: { fromCache: false } });
  });

  it("never runs another script's cache, even one of the same length", () => {
    const file = join(dir, 'stale.cjs');
    writeFileSync(file, script('one'));
    run(file).loaded.save();
    writeFileSync(file, script('two'));
    expect(script('two').length).toBe(script('one').length);
    expect(run(file)).toMatchObject({ answer: 'two:50:function:true', loaded: { fromCache: false } });
  });

  it('runs the same where no cache can be written', () => {
    const file = join(dir, 'unwritable.cjs');
    writeFileSync(file, script('one'));
    // Under a file, not a folder: unwritable whoever runs the test (root ignores permission bits).
    const cache = join(file, 'cache');
    const first = run(file, cache);
    expect(first).toMatchObject({ answer: 'one:50:function:true', loaded: { fromCache: false } });
    expect(first.loaded.save()).toBe(false);
    expect(run(file, cache)).toMatchObject({ answer: 'one:50:function:true', loaded: { fromCache: false } });
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe("the demo's report from the compiled CLI, as installed", () => {
  let install: string;
  let db: string;
  let cache: () => string | undefined;

  beforeAll(async () => {
    db = join(dir, 'demo.db');
    await seedDemoDatabase(db, 'code-cache');
    const built = join((await ensureBuilt('cli')) as string, '..');
    install = join(dir, 'install');
    mkdirSync(join(install, 'bin'), { recursive: true });
    cpSync(join(PROJECT_ROOT, 'bin/investibook.js'), join(install, 'bin/investibook.js'));
    cpSync(join(PROJECT_ROOT, 'package.json'), join(install, 'package.json'));
    cpSync(built, join(install, 'build/node'), { recursive: true, filter: (path) => !/\.(map|cache|tmp)$/.test(path) });
    symlinkSync(join(PROJECT_ROOT, 'build/tokenizer'), join(install, 'build/tokenizer'));
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(install, 'node_modules'));
    cache = () => {
      const name = readdirSync(join(install, 'build/node')).find(
        (n) => n.startsWith('cli.cjs.') && n.endsWith('.cache'),
      );
      return name && join(install, 'build/node', name);
    };
  }, 300_000);

  /** The report as JSON, without the one field that differs between runs. */
  async function report(): Promise<unknown> {
    const args = [join(install, 'bin/investibook.js'), 'debug', 'context', DEMO_WORKSPACE_ID, '--db', db, '--json'];
    const { stdout, stderr } = await exec(process.execPath, args, { maxBuffer: 1 << 26 });
    expect(stderr).toBe('');
    const { generatedAt, ...rest } = JSON.parse(stdout) as { generatedAt: string };
    expect(generatedAt).toBeTruthy();
    return rest;
  }

  it('writes the cache after the first report, uses it after, and ignores a corrupt one with the same report', async () => {
    expect(cache()).toBeUndefined();
    const first = await report();
    const path = cache()!;
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // A cache is replaced by renaming a new file over it: a new inode is a cache written again.
    const written = statSync(path).ino;

    // Used: the same report, and the cache not written again.
    expect(await report()).toEqual(first);
    expect(statSync(path).ino).toBe(written);

    // Corrupt: ignored, the same report, and a valid cache written in its place, used next.
    corrupt(path);
    const corrupted = statSync(path).ino;
    expect(await report()).toEqual(first);
    const rewritten = statSync(path).ino;
    expect(rewritten).not.toBe(corrupted);
    expect(await report()).toEqual(first);
    expect(statSync(path).ino).toBe(rewritten);

    // Unwritable (a folder where the file would be): the same report, nothing written.
    rmSync(path);
    mkdirSync(path);
    expect(await report()).toEqual(first);
    expect(statSync(path).isDirectory()).toBe(true);
    expect(readdirSync(join(install, 'build/node')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  }, 300_000);
});
