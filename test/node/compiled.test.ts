/**
 * The CLI and the server run compiled JavaScript (no TypeScript transpiled at run time). The
 * checkout's servers (bin/start.js, dev.js, demo-agent.js) rebuild first when a source changed;
 * the CLI never walks the sources at start: it checks only that the checkout's HEAD is the one
 * it was built at (scripts/build-stamp.mjs).
 */
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript, no declarations
import { codeDigest, ensureBuilt, RUNTIME_EXTERNAL } from '../../scripts/build-node.mjs';
// @ts-expect-error plain JavaScript, no declarations
import { freshEntry, readStamp } from '../../scripts/build-stamp.mjs';
import { PROJECT_ROOT } from '../../src/node/project';

/** Each build takes seconds, and half a minute on a machine loaded by other work: only a hang meets this. */
const BUILDS = 300_000;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'investibook-compiled-'));
  for (const path of [
    'src/node',
    'src/shared',
    'scripts/demo-agent.ts',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
  ]) {
    cpSync(join(PROJECT_ROOT, path), join(root, path), { recursive: true });
  }
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'));
  mkdirSync(join(root, 'build'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The compiled server (one bundle: the write path that stores analyses is in it). */
const builtServer = () => readFileSync(join(root, 'build/node/server.mjs'), 'utf8');

describe('the compiled programs', () => {
  it(
    'are built when missing, reused while the sources stand still, and rebuilt when one changes',
    async () => {
      const cli = (await ensureBuilt('cli', root)) as string;
      expect(cli).toBe(join(root, 'build/node/cli.mjs'));
      expect(readFileSync(cli, 'utf8')).not.toMatch(/from ["'][^"']+\.ts["']/);
      const builtAt = statSync(cli).mtimeMs;
      // The stored analyses' version carries the sources' digest (report/stored-analyses.ts).
      const digest = codeDigest(root) as string;
      expect(builtServer()).toContain(`"${digest}"`);

      await ensureBuilt('cli', root);
      expect(statSync(cli).mtimeMs).toBe(builtAt);

      const source = join(root, 'src/node/cli/main.ts');
      writeFileSync(source, readFileSync(source, 'utf8').replace('model call by model call', 'call by call, changed'));
      utimesSync(source, new Date(), new Date(Date.now() + 5000));
      await ensureBuilt('cli', root);
      expect(readFileSync(cli, 'utf8')).toContain('call by call, changed');
      // Any change to the code is a new digest: no analysis the old build stored is read by this one.
      const changed = codeDigest(root) as string;
      expect(changed).not.toBe(digest);
      expect(builtServer()).toContain(`"${changed}"`);
      expect(builtServer()).not.toContain(`"${digest}"`);
    },
    BUILDS,
  );
});

describe("the CLI's start in a checkout", () => {
  const commit = (id: string) => writeFileSync(join(root, '.git/refs/heads/main'), `${id}\n`);
  const source = () => join(root, 'src/node/cli/main.ts');
  const edit = (marker: string) => {
    writeFileSync(source(), `${readFileSync(source(), 'utf8')}\nexport const EDITED = '${marker}';\n`);
    utimesSync(source(), new Date(), new Date(Date.now() + 10_000));
  };

  it(
    'runs the build while HEAD is the one it was built at, without looking at the sources; checks them when HEAD moves',
    async () => {
      mkdirSync(join(root, '.git/refs/heads'), { recursive: true });
      writeFileSync(join(root, '.git/HEAD'), 'ref: refs/heads/main\n');
      commit('a'.repeat(40));
      const cli = (await ensureBuilt('cli', root)) as string;
      expect((readStamp(root) as { head: string }).head).toBe('a'.repeat(40));

      edit('edited, not committed');
      expect(await freshEntry('cli', root)).toBe(cli);
      expect(readFileSync(cli, 'utf8')).not.toContain('edited, not committed');

      commit('b'.repeat(40)); // a pull, a checkout, a merge
      expect(await freshEntry('cli', root)).toBe(cli);
      expect(readFileSync(cli, 'utf8')).toContain('edited, not committed');
      expect((readStamp(root) as { head: string }).head).toBe('b'.repeat(40));
    },
    BUILDS,
  );
});

describe('what runs', () => {
  it("the package's dependencies are exactly what the built programs load as packages: the rest is bundled", () => {
    const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...(RUNTIME_EXTERNAL as string[])].sort());
  });

  it('never imports tsx or esbuild: they are devDependencies, for building and tests only', async () => {
    const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const tool of ['tsx', 'esbuild']) {
      expect(manifest.dependencies).not.toHaveProperty(tool);
      expect(manifest.devDependencies).toHaveProperty(tool);
    }
    // A static import or an import() of either, in a launcher or a compiled program.
    const imports = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](?:tsx|esbuild)(?:\/[^"']*)?["']/;
    for (const entry of ['cli', 'server', 'dev', 'token-worker', 'demo-agent', 'mcp']) {
      const built = readFileSync((await ensureBuilt(entry)) as string, 'utf8');
      expect(built, entry).not.toMatch(imports);
    }
    for (const launcher of ['investibook.js', 'start.js', 'dev.js', 'demo-agent.js']) {
      expect(readFileSync(join(PROJECT_ROOT, 'bin', launcher), 'utf8'), launcher).not.toMatch(imports);
    }
    // The build script itself loads esbuild only when it compiles.
    const build = readFileSync(join(PROJECT_ROOT, 'scripts/build-node.mjs'), 'utf8');
    expect(build).not.toMatch(/^import .*["']esbuild["']/m);
  });
});
