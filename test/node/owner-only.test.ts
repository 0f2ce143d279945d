/**
 * Issue 36, point 5: what investibook keeps is every message, so it is its owner's alone — the
 * database with its -wal and -shm, the demo token file, the data folder, the agents' state —
 * created 0600/0700 whatever the umask; an old database others can read is said once at start.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, workspaceKey } from '../../src/node/agent/confinement';
import { run } from '../../src/node/cli/main';
import { start } from '../../src/node/server/start';
import { agentSettings } from '../support/agent-settings';
import { captureIo } from '../support/cli';

const modeOf = (path: string) => statSync(path).mode & 0o777;
const EXPORT = join(
  import.meta.dirname,
  '..',
  'fixtures',
  'public',
  'openai-gpt-5.3-codex_dark-factory_crisp-garden.json',
);

let dir: string;
let umask: number;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-owner-'));
  // The most open umask there is: owner-only must not depend on the user's.
  umask = process.umask(0);
});
afterAll(() => {
  process.umask(umask);
  rmSync(dir, { recursive: true, force: true });
});

describe('files only their owner reads', () => {
  it('npm start makes the data folder 0700, the database, its -wal and -shm and the token file 0600', async () => {
    const data = join(dir, 'fresh', 'data');
    const database = join(data, 'investibook.db');
    const lines: string[] = [];
    const server = await start({ database, port: 0, build: false, warm: false, log: (l) => lines.push(l) });
    try {
      expect(modeOf(join(dir, 'fresh'))).toBe(0o700);
      expect(modeOf(data)).toBe(0o700);
      for (const file of [database, `${database}-wal`, `${database}-shm`, `${database}.demo-token`]) {
        expect(existsSync(file), file).toBe(true);
        expect(modeOf(file).toString(8), file).toBe('600');
      }
      expect(lines.some((l) => l.startsWith('Warning'))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('an existing database other users can read gets one warning at start', async () => {
    const database = join(dir, 'fresh', 'data', 'investibook.db');
    chmodSync(database, 0o644);
    const lines: string[] = [];
    const server = await start({ database, port: 0, build: false, warm: false, log: (l) => lines.push(l) });
    await server.close();
    const warnings = lines.filter((l) => l.startsWith('Warning'));
    expect(warnings).toEqual([
      `Warning: the database ${database} can be read by other users (mode 0644): every message in it is theirs to read; \`chmod 600 ${database}\` closes it`,
    ]);
  });

  it('an import makes its database 0600 in a 0700 folder', async () => {
    const database = join(dir, 'imported', 'x.db');
    const root = mkdtempSync(join(dir, 'ws-'));
    const io = captureIo(dir);
    expect(await run(['import', EXPORT, '--db', database, '--root', root], io)).toBe(0);
    expect(modeOf(join(dir, 'imported'))).toBe(0o700);
    expect(modeOf(database)).toBe(0o600);
  });

  it("the agents' state folders are 0700, those made before included", async () => {
    const stateDir = join(dir, 'agent');
    const root = mkdtempSync(join(dir, 'ws-'));
    const settings = agentSettings({
      command: process.execPath,
      args: [],
      env: process.env,
      exporter: { command: process.execPath, args: [] },
      stateDir,
      sandbox: 'off',
    });
    await launch(settings, { id: 'w1', root, others: [] }, { command: process.execPath, args: [] });
    const home = join(stateDir, 'workspaces', workspaceKey('w1'));
    for (const folder of [stateDir, join(stateDir, 'workspaces'), home, join(home, 'data'), join(home, 'home')])
      expect(modeOf(folder).toString(8), folder).toBe('700');
    chmodSync(stateDir, 0o755);
    await launch(settings, { id: 'w1', root, others: [] }, { command: process.execPath, args: [] });
    expect(modeOf(stateDir)).toBe(0o700);
  });
});
