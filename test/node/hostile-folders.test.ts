/**
 * Issue 36, points 1–3: a workspace's folder is never given away by a file. The attack inputs of
 * the round (`/`, `/etc`, `../../../../etc`, a user's home, symlinks to them, the database's own
 * folder and its parents) against each door: the folder rule itself, `investibook import` (an
 * export's info.directory, --root), the sandbox at an agent's start, and the agent routes of a
 * workspace whose folder came from a file.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from '../../src/node/agent/confinement';
import { sha256Hex } from '../../src/node/auth';
import { AgentBridge } from '../../src/node/agent/bridge';
import { sandboxed, SandboxError } from '../../src/node/agent/sandbox';
import { run } from '../../src/node/cli/main';
import { folderRefusal } from '../../src/node/folder-rules';
import { createApp } from '../../src/node/server/app';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { agentSettings, fakeAgentSettings } from '../support/agent-settings';
import { captureIo } from '../support/cli';

const PUBLIC = join(import.meta.dirname, '..', 'fixtures', 'public');
const EXPORT = join(PUBLIC, 'openai-gpt-5.3-codex_dark-factory_crisp-garden.json');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-folders-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function place() {
  const base = join(dir, `t${n++}`);
  mkdirSync(join(base, 'data', 'ws'), { recursive: true });
  return { base, db: join(base, 'data', 'x.db'), root: join(base, 'data', 'ws') };
}

async function cli(args: string[], cwd = dir) {
  const io = captureIo(cwd);
  const code = await run(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** The kept export with its info.directory replaced. */
function exportAt(base: string, directory: unknown): string {
  const exported = JSON.parse(readFileSync(EXPORT, 'utf8')) as { info: Record<string, unknown> };
  const path = join(base, `at-${n++}.json`);
  writeFileSync(path, JSON.stringify({ ...exported, info: { ...exported.info, directory } }));
  return path;
}

describe('the folder rule', () => {
  it('refuses the root, system folders, shared folders, homes and whatever holds investibook’s data — symlinks resolved', () => {
    const at = place();
    const toEtc = join(at.base, 'to-etc');
    const toData = join(at.base, 'to-data');
    symlinkSync('/etc', toEtc);
    symlinkSync(dirname(at.db), toData);
    const secrets = [dirname(at.db), at.db];
    const refused: [string, RegExp][] = [
      ['/', /file system's root/],
      ['/etc', /system folder \/etc/],
      ['/etc/ssl', /inside the system folder \/etc/],
      ['/usr/lib', /inside the system folder \/usr/],
      ['/bin', /system folder \/usr/],
      ['/proc', /system folder \/proc/],
      ['/home', /shared by far more than one project/],
      ['/tmp', /shared by far more than one project/],
      [homedir(), /home folder|shared/],
      [toEtc, /system folder \/etc \(\/etc\)/],
      [at.base, new RegExp(`holds ${dirname(at.db)}`)],
      [dirname(at.db), new RegExp(`is ${dirname(at.db)}`)],
      [toData, /holds|is/],
      [dir, /holds/],
    ];
    for (const [folder, why] of refused) expect(folderRefusal(folder, secrets), folder).toMatch(why);
    // A project's folder — inside the data folder too (the demo keeps its workspaces there) — is fine.
    expect(folderRefusal(at.root, secrets)).toBeNull();
    expect(folderRefusal(join(at.base), [])).toBeNull();
  });
});

describe('investibook import: the export’s folder is a suggestion', () => {
  const hostile: [string, (at: ReturnType<typeof place>) => unknown, RegExp][] = [
    [
      '/',
      () => '/',
      /ran in \/, which is the file system's root: an import never makes it a workspace; give --root DIR/,
    ],
    ['/etc', () => '/etc', /ran in \/etc, which is the system folder \/etc/],
    ['../../../../etc', () => '../../../../etc', /names the relative folder \.\.\/\.\.\/\.\.\/\.\.\/etc .*refused/],
    ["a user's home", () => homedir(), /ran in .*, which is (a user's home folder|\/root, a folder shared)/],
    ['a symlink to /etc', (at) => linkTo(at.base, '/etc'), /link-\d+, which is the system folder \/etc:/],
    ["the database's folder", (at) => dirname(at.db), /which is .*x\.db|which is .*data, which stays out/],
    ["a parent of the database's folder", (at) => at.base, /which holds .*data, which stays out of an agent's reach/],
    ['a symlink to a parent of the database', (at) => linkTo(dir, at.base), /which holds .*, which stays out/],
  ];
  for (const [name, directory, why] of hostile) {
    it(`refuses ${name} in one line, exit 2, and creates nothing`, async () => {
      const at = place();
      const file = exportAt(at.base, directory(at));
      const result = await cli(['import', file, '--db', at.db]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(why);
      expect(existsSync(at.db)).toBe(false);
      // Naming a workspace to create changes nothing: its folder would still come from the file.
      expect((await cli(['import', file, '--db', at.db, '--workspace', 'named'])).code).toBe(2);
      expect(existsSync(at.db)).toBe(false);
    });
  }

  it('the kept export that ran at / (big-pickle) is refused without --root, and imported with one', async () => {
    const at = place();
    const file = join(PUBLIC, 'big-pickle_fastmcp-map-app.json');
    const result = await cli(['import', file, '--db', at.db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ran in \/, which is the file system's root/);
    expect(existsSync(at.db)).toBe(false);
    expect((await cli(['import', file, '--db', at.db, '--root', at.root])).code).toBe(0);
  });

  const roots: [string, (at: ReturnType<typeof place>) => string, RegExp][] = [
    ['/', () => '/', /^investibook: \/ is the file system's root/],
    ['/etc', () => '/etc', /\/etc is the system folder \/etc/],
    ['../../../../etc', () => '../../../../../../../../etc', /is the system folder \/etc/],
    ['a symlink to /etc', (at) => linkTo(at.base, '/etc'), /is the system folder \/etc/],
    ["a parent of the database's folder", (at) => at.base, /holds .*data/],
  ];
  for (const [name, root, why] of roots) {
    it(`refuses --root ${name} (and --from-opencode at it) the same way`, async () => {
      const at = place();
      const result = await cli(['import', EXPORT, '--db', at.db, '--root', root(at)], at.base);
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(why);
      expect(existsSync(at.db)).toBe(false);
      const from = await cli(['import', '--from-opencode', root(at), '--db', at.db], at.base);
      expect(from.code).toBe(2);
      expect(from.stderr).toMatch(why);
    });
  }

  it('prints the folder it took; no agent starts there until --workspace with --root gives it', async () => {
    const at = place();
    const file = exportAt(at.base, at.root);
    const store = await openSqlite(at.db);
    await store.insertUser('usr_demo', 'Demo');
    await store.insertTokenHash(sha256Hex(TOKEN), 'usr_demo');
    await store.close();
    const imported = await cli(['import', file, '--db', at.db]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(
      `Workspace folder: ${at.root} (the export's info.directory; no live agent starts there until you give it`,
    );

    const app = await appWithAgent(at.db);
    try {
      const status = await app.get('/api/workspace/ws/agent');
      expect(await status.json()).toMatchObject({
        configured: true,
        unavailable: expect.stringMatching(/^No live agent runs in workspace ws: its folder .* came from an imported/),
      });
      const before = await app.rows();
      const prompt = await app.post('/api/workspace/ws/agent/prompt', { text: 'read /etc/shadow' });
      expect(prompt.status).toBe(409);
      expect(await prompt.json()).toMatchObject({
        error: { code: 'agent_unavailable', message: expect.stringContaining(`--workspace ws --root ${at.root}`) },
      });
      expect(await app.rows()).toEqual(before);
    } finally {
      await app.close();
    }

    const given = await cli(['import', file, '--db', at.db, '--workspace', 'ws', '--root', at.root]);
    expect(given.code).toBe(0);
    expect(given.stdout).toContain(`Workspace folder: ${at.root} (given with --root: a live agent may start there)`);
    const after = await appWithAgent(at.db);
    try {
      expect(await (await after.get('/api/workspace/ws/agent')).json()).not.toHaveProperty('unavailable');
    } finally {
      await after.close();
    }
  });
});

describe('the sandbox refuses by path logic', () => {
  const spec = (cwd: string, more: Partial<Parameters<typeof sandboxed>[0]> = {}) => ({
    command: process.execPath,
    args: [],
    cwd,
    writable: [cwd],
    readOnly: [],
    path: process.env.PATH,
    hidden: [] as string[],
    ...more,
  });
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error;
    }
    return null;
  };

  it('a working folder at /, at a parent of the database, or at a symlink to one: sandbox_unavailable, in words', () => {
    const at = place();
    writeFileSync(at.db, '');
    const link = linkTo(dir, at.base);
    for (const cwd of ['/', at.base, dirname(at.db), link]) {
      const error = refusal(() => sandboxed(spec(cwd, { hidden: [at.db] })));
      expect(error, cwd).toBeInstanceOf(SandboxError);
      expect(error).toMatchObject({ code: 'sandbox_unavailable', reason: 'folder' });
      expect((error as Error).message).toMatch(/^the workspace folder .* (is the file system's root|holds .*x\.db)/);
    }
    expect(refusal(() => sandboxed(spec(at.root, { hidden: [at.db] })))).toBeNull();
  });

  it('a bind of / shows everything: the check that tested a `//` prefix now refuses it', () => {
    const at = place();
    writeFileSync(at.db, '');
    const error = refusal(() => sandboxed(spec(at.root, { readOnly: ['/'], hidden: [at.db] })));
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as Error).message).toMatch(/would show .*x\.db \(inside \/\)/);
  });

  it('refuses the folder whatever the sandbox setting (off included), before anything is made for the agent', async () => {
    const at = place();
    const settings = agentSettings({
      command: process.execPath,
      args: [],
      env: process.env,
      exporter: { command: process.execPath, args: [] },
      stateDir: join(at.base, 'agent'),
      sandbox: 'off',
      hidden: [at.db],
    });
    for (const root of ['/', '/etc', at.base]) {
      await expect(
        launch(settings, { id: 'w', root, others: [] }, { command: process.execPath, args: [] }),
      ).rejects.toMatchObject({ code: 'sandbox_unavailable', reason: 'folder' });
    }
    expect(existsSync(join(at.base, 'agent'))).toBe(false);
  });
});

function linkTo(base: string, target: string): string {
  const link = join(base, `link-${n++}`);
  symlinkSync(target, link);
  return link;
}

/** The app on a database, with a configured agent (the fake ACP agent), signed in as usr_demo. */
async function appWithAgent(db: string) {
  const store = await openSqlite(db);
  const reportStore = await openSqlite(db, { readOnly: true });
  const bridge = new AgentBridge(
    fakeAgentSettings({ stateDir: join(dirname(db), 'agent'), database: db, env: process.env }),
    store,
  );
  const app = createApp({ store, reportStore, agent: bridge });
  const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };
  return {
    get: (path: string) => app.request(path, { headers }),
    post: (path: string, body: unknown) => app.request(path, { method: 'POST', headers, body: JSON.stringify(body) }),
    rows: () => store.contentRows(),
    close: async () => {
      await bridge.close();
      await reportStore.close();
      await store.close();
    },
  };
}

const TOKEN = 'folders-token';
