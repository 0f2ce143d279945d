/**
 * Installable anywhere (issue 39.6): `npm pack` makes a package whose CLI and server run from
 * any folder after `npm i -g`, with nothing built at run time. The pack is made in a copy of the
 * checkout (its `prepack` builds the web app and the Node programs there, not under the other
 * tests' feet), installed into a temporary prefix with npm's own `--offline` from the cache the
 * checkout's install filled, and run from a folder outside both.
 *
 * Loopback only: better-sqlite3's install script would download its prebuilt driver from
 * GitHub; prebuild-install's own `local-prebuilds` setting (an rc file above the prefix) hands
 * it the checkout's compiled driver instead, packed the way its releases are.
 */
import { execFile, spawn } from 'node:child_process';
import {
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
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextReportSchema } from '../../src/shared/wire';
import { PROJECT, serverOf } from '../support/server-process';

const exec = promisify(execFile);
const EXPORT = join(PROJECT, 'test/fixtures/public/big-pickle_fastmcp-map-app.json');
const SESSION = (JSON.parse(readFileSync(EXPORT, 'utf8')) as { info: { id: string } }).info.id;
/** What `npm pack` needs of the checkout: the sources, the manifest and lockfile, what the package ships. */
const CHECKOUT = ['package.json', 'package-lock.json', 'README.md', 'LICENSE', 'index.html', 'vite.config.ts'];
const CHECKOUT_DIRS = ['src', 'bin', 'scripts', 'demo'];

let dir: string;
let installed: string;
let bin: string;
let elsewhere: string;
let before: string[];

/** npm without the settings of the npm that may have started this test run (its prefix, its scripts). */
const npmEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));

function copyCheckout(to: string): void {
  for (const path of [...CHECKOUT, ...CHECKOUT_DIRS]) cpSync(join(PROJECT, path), join(to, path), { recursive: true });
  symlinkSync(join(PROJECT, 'node_modules'), join(to, 'node_modules'));
}

/** The checkout's better-sqlite3 driver as a prebuilt release archive, and the rc file that points prebuild-install at it. */
async function localPrebuild(): Promise<void> {
  const driver = join(PROJECT, 'node_modules/better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(driver, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  mkdirSync(join(dir, 'prebuilds'));
  await exec('tar', ['czf', join(dir, 'prebuilds', name), '-C', driver, 'build/Release/better_sqlite3.node']);
  writeFileSync(join(dir, '.prebuild-installrc'), `local-prebuilds=${join(dir, 'prebuilds')}\n`);
}

/** Every file of the installed package but its dependencies, relative to it. */
function files(root: string, folder = root): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' && folder === root ? [] : files(root, path);
    return [relative(root, path)];
  });
}

const investibook = (args: string[]) =>
  exec(bin, args, { cwd: elsewhere, env: npmEnv(), maxBuffer: 1 << 26 }).then(
    (r) => ({ code: 0, ...r }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-install-'));
  const checkout = join(dir, 'checkout');
  copyCheckout(checkout);
  await exec('npm', ['pack', '--pack-destination', dir], { cwd: checkout, env: npmEnv(), maxBuffer: 1 << 26 });
  const tarball = readdirSync(dir).find((name) => /^investibook-.*\.tgz$/.test(name))!;
  await localPrebuild();
  const prefix = join(dir, 'prefix');
  await exec(
    'npm',
    ['i', '-g', '--prefix', prefix, '--offline', '--allow-scripts=better-sqlite3', join(dir, tarball)],
    {
      cwd: dir,
      env: npmEnv(),
      maxBuffer: 1 << 26,
    },
  );
  installed = join(prefix, 'lib/node_modules/investibook');
  bin = join(prefix, 'bin/investibook');
  elsewhere = join(dir, 'elsewhere');
  mkdirSync(join(elsewhere, 'ws'), { recursive: true });
  before = files(installed).sort();
}, 600_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a packed install', () => {
  it('ships the compiled programs and the web app, not the sources or the build tools', () => {
    expect(before).toEqual(expect.arrayContaining(['build/node/cli.mjs', 'build/node/server.mjs', 'dist/index.html']));
    expect(before.filter((f) => /^(src|scripts|test)\/|\.map$|\.ts$|stamp\.json$/.test(f))).toEqual([]);
    // The packages the shipped programs load (the build's externals, the package's `dependencies`) are installed beside them.
    const require = createRequire(join(installed, 'package.json'));
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const name of Object.keys(manifest.dependencies)) expect(() => require.resolve(name), name).not.toThrow();
  });

  it('reports straight from an export file, from another folder', async () => {
    // The export names `/` as its folder, which is never read (issue 36): its workspace's folder is given.
    const result = await investibook(['debug', 'context', '--export', EXPORT, '--root', 'ws', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(contextReportSchema.parse(JSON.parse(result.stdout)).sessionId).toBe(SESSION);
  });

  it('imports an export into a new database there, and reports from it', async () => {
    const imported = await investibook(['import', EXPORT, '--db', 'x.db', '--workspace', 'mine', '--root', 'ws']);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`Imported session ${SESSION} into workspace mine`);
    const report = await investibook(['debug', 'context', 'mine', '--db', 'x.db', '--json']);
    expect(report.code).toBe(0);
    expect(contextReportSchema.parse(JSON.parse(report.stdout)).sessionId).toBe(SESSION);
  });

  it('serves the web app and the API (investibook serve), seeding the demo in the folder it runs in', async () => {
    const child = spawn(bin, ['serve'], {
      cwd: elsewhere,
      env: { ...npmEnv(), PORT: '0', INVESTIBOOK_TOKEN: 'install-token', INVESTIBOOK_WARM: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = await serverOf(child);
    try {
      const page = await fetch(server.origin);
      expect(await page.text()).toContain('<div id="root">');
      const api = await fetch(`${server.origin}/api/workspace/demo/debug/context`, {
        headers: { Authorization: 'Bearer install-token' },
      });
      expect(api.status).toBe(200);
      expect(contextReportSchema.parse(await api.json()).workspaceId).toBe('demo');
    } finally {
      await server.stop();
    }
    expect(readdirSync(join(elsewhere, 'data'))).toContain('investibook.db');
  });

  it('built nothing at run time: the installed files are as installed', () => {
    // But the report's V8 code cache, which the first report leaves beside the script it compiled
    // (src/node/cli/code-cache.ts): owner-only.
    const cached = files(installed).filter((f) => /^build\/node\/cli\.cjs\..*\.cache$/.test(f));
    expect(cached).toHaveLength(1);
    expect(statSync(join(installed, cached[0]!)).mode & 0o777).toBe(0o600);
    expect(
      files(installed)
        .filter((f) => !cached.includes(f))
        .sort(),
    ).toEqual(before);
  });
});
