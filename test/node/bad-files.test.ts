/**
 * Issue 36, point 6: bad files, clean failures. Every import and `--export` failure the round
 * found — JSON nested 100,000 deep, a truncated or non-UTF-8 file, a missing file, a lone
 * surrogate headed for PostgreSQL — is exit 2 and one line naming the file and the cause, the
 * database as it was (and not created when it was not there). `--export` leaves nothing on disk;
 * a killed run's temporary folders are swept by the next; on a read-only mount the report still
 * answers and the import says the database cannot be written.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { openStore } from '../../src/node/storage/open';
import { intoDatabase } from '../../src/node/import/new-database';
import { sweepStaleTemp } from '../../src/node/temp-folders';
import { captureIo, placeIn } from '../support/cli';
import { databaseDigest } from '../support/fixtures';
import { createDatabase } from '../support/postgres';
import { PROJECT } from '../support/server-process';

const EXPORT = join(
  import.meta.dirname,
  '..',
  'fixtures',
  'public',
  'openai-gpt-5.3-codex_dark-factory_crisp-garden.json',
);
const TEXT = readFileSync(EXPORT, 'utf8');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-badfiles-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh folder with a workspace folder `ws` in it. */
const place = () => placeIn(dir);

async function cli(args: string[]) {
  const io = captureIo(dir);
  const code = await run(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** The kept export with a part nested 100,000 deep in its first message. */
const deep = () => {
  const at = TEXT.indexOf('"parts": [') + '"parts": ['.length;
  return `${TEXT.slice(0, at)}{"type":"text","text":"x","deep":${'['.repeat(100_000)}${']'.repeat(100_000)}},${TEXT.slice(at)}`;
};
const nonUtf8 = () => {
  const bytes = Buffer.from(TEXT);
  const at = bytes.indexOf('"text"') + 10;
  return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff, 0xfe]), bytes.subarray(at)]);
};

const bad: [string, () => string | Buffer | null, RegExp][] = [
  [
    'JSON nested 100,000 deep',
    deep,
    /bad\.json is not an OpenCode session export: message 1 nests deeper than 1000 levels$/,
  ],
  [
    'a truncated file',
    () => TEXT.slice(0, TEXT.length / 2),
    /bad\.json ends in the middle of an export \(truncated\?\)$/,
  ],
  [
    'a file that is not UTF-8',
    nonUtf8,
    /bad\.json is not UTF-8 text: a byte that UTF-8 does not allow within its first/,
  ],
  ['a missing file', () => null, /bad\.json: no such file$/],
];

describe('an import of a bad file', () => {
  for (const [name, content, why] of bad) {
    it(`${name}: exit 2, one line naming the file and the cause, the database unchanged or never made`, async () => {
      const at = place();
      const path = join(at.base, 'bad.json');
      const body = content();
      if (body !== null) writeFileSync(path, body);
      const none = await cli(['import', path, '--db', at.db, '--root', at.root]);
      expect(none.code).toBe(2);
      expect(none.stdout).toBe('');
      expect(none.stderr.trim().split('\n')).toHaveLength(1);
      expect(none.stderr.trim()).toMatch(why);
      expect(existsSync(at.db)).toBe(false);
      expect((await cli(['import', EXPORT, '--db', at.db, '--root', at.root])).code).toBe(0);
      const before = await databaseDigest(at.db);
      const again = await cli(['import', EXPORT, path, '--db', at.db, '--root', at.root]);
      expect(again.code).toBe(2);
      expect(again.stderr.trim()).toMatch(why);
      expect(await databaseDigest(at.db)).toBe(before);
      const report = await cli(['debug', 'context', '--export', path]);
      expect(report.code).toBe(2);
      expect(report.stderr.trim().split('\n')).toHaveLength(1);
      expect(report.stderr.trim()).toMatch(why);
    });
  }

  it('a lone surrogate (\\ud800) headed for PostgreSQL: refused in words before anything is written; SQLite keeps it', async () => {
    const url = await createDatabase(inject('postgresUrl'), 'lone');
    const at = place();
    const path = join(at.base, 'lone.json');
    writeFileSync(path, TEXT.replace('"text": "', '"text": "\\ud800'));
    const result = await cli(['import', path, '--database-url', url, '--root', at.root]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /lone\.json: export 1, message \d+ has a text with a lone UTF-16 surrogate .*PostgreSQL cannot store as JSON: nothing was imported/,
    );
    // Never opened: an open would have made investibook's tables.
    const store = await openStore({ location: url });
    try {
      expect(await store.listWorkspaces()).toEqual([]);
    } finally {
      await store.close();
    }
    expect((await cli(['import', path, '--db', at.db, '--root', at.root])).code).toBe(0);
  });
});

describe('temporary files', () => {
  it('--export makes no database on disk: nothing in the temporary folder, during or after', async () => {
    const at = place();
    // A temporary folder of this test's own (os.tmpdir() reads TMPDIR), so others' runs do not count.
    const own = mkdtempSync(join(dir, 'tmpdir-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = own;
    try {
      expect(tmpdir()).toBe(own);
      const result = await cli(['debug', 'context', '--export', EXPORT, '--root', at.root, '--json']);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ schemaVersion: 1 });
      // Without --root, the export's folder is not here: an empty one is made, and removed after.
      expect((await cli(['debug', 'context', '--export', EXPORT, '--json'])).code).toBe(0);
      expect(readdirSync(own)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('a killed run’s folders over an hour old are swept by the next; fresh ones and others’ names stay', () => {
    const base = mkdtempSync(join(dir, 'tmp-'));
    const now = Date.now();
    const make = (name: string, ageMs: number) => {
      mkdirSync(join(base, name));
      writeFileSync(join(base, name, 'export.db'), 'x');
      const at = (now - ageMs) / 1000;
      utimesSync(join(base, name), at, at);
      return join(base, name);
    };
    const stale = [make('investibook-export-old', 61 * 60_000), make('investibook-import-old', 2 * 3600_000)];
    const fresh = make('investibook-export-new', 5 * 60_000);
    const other = make('investibook-test-old', 3 * 3600_000);
    expect(sweepStaleTemp(now, base).sort()).toEqual(stale.sort());
    for (const path of stale) expect(existsSync(path)).toBe(false);
    for (const path of [fresh, other]) expect(existsSync(path)).toBe(true);
  });
});

describe('a database an import creates appears only whole', () => {
  it('a new database is written aside and renamed into place; a failed write leaves none', async () => {
    const { base, db } = place();
    let seen = '';
    await expect(
      intoDatabase(db, true, async (at) => {
        seen = at;
        writeFileSync(at, 'half a database');
        throw new Error('killed halfway');
      }),
    ).rejects.toThrow('killed halfway');
    expect(seen).not.toBe(db);
    expect(readdirSync(base).sort()).toEqual(['ws']);
  });

  it('what an import killed with -9 left is removed by the next import, which writes the database whole', async () => {
    const { base, db, root } = place();
    // The partial database of a process that is gone (a node that has exited), and one of a live process (ours).
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(`${db}.partial-${gone}`, '');
    writeFileSync(`${db}.partial-${gone}-wal`, '');
    writeFileSync(`${db}.partial-${process.pid}x`, '');
    const { code } = await cli(['import', EXPORT, '--db', db, '--root', root]);
    expect(code).toBe(0);
    expect(readdirSync(base).sort()).toEqual(['ws', 'x.db', `x.db.partial-${process.pid}x`].sort());
    const store = await openStore({ location: db, readOnly: true });
    try {
      expect((await store.listWorkspaces()).length).toBe(1);
    } finally {
      await store.close();
    }
  });
});

describe('a read-only mount (bubblewrap binds the folder read-only)', () => {
  const cliAt = (folder: string, args: string[]) =>
    spawnSync(
      'bwrap',
      [
        '--bind',
        '/',
        '/',
        '--ro-bind',
        folder,
        folder,
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--',
        process.execPath,
        join(PROJECT, 'bin', 'investibook.js'),
        ...args,
      ],
      { encoding: 'utf8', cwd: PROJECT, timeout: 120_000 },
    );

  it('the report still answers; the import says the database cannot be written', async () => {
    const at = place();
    expect((await cli(['import', EXPORT, '--db', at.db, '--root', at.root])).code).toBe(0);
    const direct = await cli(['debug', 'context', 'ws', '--db', at.db, '--json']);
    const report = cliAt(at.base, ['debug', 'context', 'ws', '--db', at.db, '--json']);
    expect(report.stderr).toBe('');
    expect(report.status).toBe(0);
    const figures = (json: string) => {
      const { generatedAt: _g, snapshotId: _s, ...rest } = JSON.parse(json) as Record<string, unknown>;
      return rest;
    };
    expect(figures(report.stdout)).toEqual(figures(direct.stdout));
    const imported = cliAt(at.base, ['import', EXPORT, '--db', at.db]);
    expect(imported.status).toBe(1);
    expect(imported.stderr.trim().split('\n')).toHaveLength(1);
    expect(imported.stderr).toMatch(/x\.db cannot be written \(EROFS\): its disk is read-only/);
    // A database that is not there yet: the same words, and nothing made.
    const fresh = cliAt(at.base, ['import', EXPORT, '--db', join(at.base, 'new.db'), '--root', at.root]);
    expect(fresh.stderr.trim()).toBe(
      `investibook: the database ${join(at.base, 'new.db')} cannot be written: ${at.base} is on a read-only disk (EROFS); nothing was written`,
    );
    expect(existsSync(join(at.base, 'new.db'))).toBe(false);
  });
});
