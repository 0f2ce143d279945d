/**
 * The report of an imported session names the file it came from (issue 38, point 6): the import
 * keeps the file as it was named (session_origins.source_file, migration 0009), and the JSON
 * `origin`, the CLI header and the web's session list say it — on SQLite and PostgreSQL alike.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { ReportService } from '../../src/node/report/service';
import { openStore } from '../../src/node/storage/open';
import { captureIo, placeIn } from '../support/cli';
import { createDatabase } from '../support/postgres';

const PUBLIC = join(import.meta.dirname, '..', 'fixtures', 'public');
const FILE = 'claude-haiku-4-5_sandbox-agent-native.converted.json';
const WS = 'ws_origin';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-origin-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], cwd: string, stdin?: string) {
  const io = captureIo(cwd);
  if (stdin !== undefined) io.stdin = Readable.from([stdin]);
  const code = await run(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

async function reportAt(location: string) {
  const store = await openStore({ location, readOnly: true });
  try {
    return await new ReportService(store).report({ items: 'all', workspaceId: WS });
  } finally {
    await store.close();
  }
}

async function originsAt(location: string) {
  const store = await openStore({ location, readOnly: true });
  try {
    return await store.sessionOrigins(WS);
  } finally {
    await store.close();
  }
}

describe('investibook import names the file', () => {
  it('in the JSON origin and the CLI header, as named on the command line: the file its rows last came from', async () => {
    const at = placeIn(dir);
    // Named relative to where the command ran, with a space: kept as the user wrote it.
    copyFileSync(join(PUBLIC, FILE), join(at.base, 'my export.json'));
    const first = await cli(['import', 'my export.json', '--db', at.db, '--root', at.root, '--workspace', WS], at.base);
    expect(first.code).toBe(0);
    expect((await reportAt(at.db)).origin).toEqual({
      kind: 'opencode_export',
      files: ['my export.json'],
      title: expect.any(String) as string,
      directory: expect.any(String) as string,
      version: '1.1.49',
    });
    const table = await cli(['debug', 'context', '--db', at.db], at.root);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^From my export\.json \(opencode_export\), ran in .+: no agent, its model calls' own counts$/m,
    );

    // The same session from standard input: none of its rows changes, so the file named stays.
    const same = readFileSync(join(PUBLIC, FILE), 'utf8');
    expect((await cli(['import', '-', '--db', at.db], at.base, same)).code).toBe(0);
    expect(await originsAt(at.db)).toMatchObject([{ source_file: 'my export.json' }]);
    // A longer one (a message more) from standard input: its rows now come from there.
    const exported = JSON.parse(same) as { messages: { info: { id: string; time: { created: number } } }[] };
    const last = exported.messages.at(-1)!;
    exported.messages.push({
      ...last,
      info: { ...last.info, id: `${last.info.id}x`, time: { created: last.info.time.created + 1 } },
    });
    expect((await cli(['import', '-', '--db', at.db], at.base, JSON.stringify(exported))).code).toBe(0);
    expect(await originsAt(at.db)).toMatchObject([{ source_file: 'standard input' }]);
    expect((await reportAt(at.db)).origin?.files).toEqual(['standard input']);
  });

  it('on PostgreSQL too', async () => {
    const url = await createDatabase(inject('postgresUrl'), 'origin_file');
    const at = placeIn(dir);
    const path = join(PUBLIC, FILE);
    expect(
      (await cli(['import', path, '--database-url', url, '--root', at.root, '--workspace', WS], at.base)).code,
    ).toBe(0);
    expect(await originsAt(url)).toMatchObject([{ source_file: path }]);
    expect((await reportAt(url)).origin).toMatchObject({ kind: 'opencode_export', files: [path] });
  });
});
