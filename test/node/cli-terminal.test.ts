/**
 * The CLI in a terminal (issues 36.4, 39.4, 39.5): nothing from a session reaches the terminal as
 * a control, tables fit the width, and every bad path is one line with its exit code. The hostile
 * inputs go through the real CLI process, from an export and from a database.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { visible } from '../../src/node/program/terminal-text';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import type { ContextReport } from '../../src/shared/wire';
import { captureIo } from '../support/cli';

const exec = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/investibook.js');
const PUBLIC = join(import.meta.dirname, '..', 'fixtures', 'public');

/** A screen clear, a window title, a hyperlink, a bell, a C1 CSI, DEL, a right-to-left override. */
const HOSTILE =
  '\u001b[2J\u001b]0;owned\u0007\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\\u009b31m\u007f\u202e漢字';
/** Anything a terminal acts on: C0 but tab and newline, DEL, C1, bidirectional controls. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Keys that hold ids and kinds the export needs as they are; every other string is poisoned. */
const STRUCTURAL = new Set(['id', 'sessionID', 'messageID', 'parentID', 'callID', 'type', 'role', 'status', 'mime']);
function poison(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return STRUCTURAL.has(key) ? value : `${value}${HOSTILE}`;
  if (Array.isArray(value)) return value.map((v) => poison(v, key));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poison(v, k)]));
  return value;
}

let dir: string;
let hostile: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-terminal-'));
  const source = JSON.parse(
    readFileSync(join(PUBLIC, 'claude-haiku-4-5_sandbox-agent-native.converted.json'), 'utf8'),
  ) as unknown;
  hostile = join(dir, 'hostile.json');
  writeFileSync(hostile, JSON.stringify(poison(source)));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cliProcess(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = await exec(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    maxBuffer: 64 << 20,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return { code: result.code, stdout: result.stdout, stderr: result.stderr };
}

/** What a terminal would be handed: controls shown as text, and the hostile text shown (escaped). */
function expectInert(output: string, what: string) {
  expect(output, what).not.toMatch(RAW_CONTROL);
  expect(output, what).toContain(visible(HOSTILE).slice(0, 20));
}

describe('nothing from a session reaches the terminal as a control', () => {
  it('shows controls as escapes in the table, --timeline, an --item page and stderr, from an export', async () => {
    const table = await cliProcess(['debug', 'context', '--export', hostile]);
    expect(table.code).toBe(0);
    expectInert(table.stdout, 'table');
    expectInert(table.stderr, 'the note on the export’s folder'); // info.directory is poisoned too
    expect(table.stdout).toContain('\\x1b]0;owned\\x07');
    expect(table.stdout).toContain('\\x9b31m');
    expect(table.stdout).toContain('\\u202e');
    const timeline = await cliProcess(['debug', 'context', '--export', hostile, '--timeline', '--wide']);
    expect(timeline.code).toBe(0);
    expectInert(timeline.stdout, 'timeline');

    // --json: the same values (every control still there once parsed), in bytes a terminal shows.
    const json = await cliProcess(['debug', 'context', '--export', hostile, '--json', '--items', 'all']);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    const report = JSON.parse(json.stdout) as ContextReport;
    const items = report.sources.flatMap((s) => s.items);
    const poisoned = items.find((i) => i.label.includes('\u001b]0;owned\u0007'));
    expect(poisoned, 'an item whose label holds the hostile text as it was').toBeDefined();
    const page = await cliProcess(['debug', 'context', '--export', hostile, '--item', poisoned!.id]);
    expect(page.code).toBe(0);
    expectInert(page.stdout, '--item page');
  });

  it('shows controls as escapes from a database: the import’s lines, the table and the timeline', async () => {
    const db = join(dir, 'hostile.db');
    const root = join(dir, 'ws');
    mkdirSync(root);
    const imported = await cliProcess(['import', hostile, '--db', db, '--workspace', 'hostile', '--root', root]);
    expect(imported.code).toBe(0);
    expect(imported.stdout + imported.stderr).not.toMatch(RAW_CONTROL);
    for (const extra of [[], ['--timeline', '--wide'], ['--items', 'all']]) {
      const shown = await cliProcess(['debug', 'context', 'hostile', '--db', db, ...extra]);
      expect(shown.code, extra.join(' ')).toBe(0);
      expectInert(shown.stdout, extra.join(' ') || 'table');
      expect(shown.stderr).not.toMatch(RAW_CONTROL);
    }
  });

  it('a bad export’s error names it without acting on what it holds', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ info: { id: 42, title: HOSTILE }, messages: [] }));
    const named = join(dir, `named${'\u001b]0;x\u0007'}.json`);
    writeFileSync(named, 'not json');
    for (const file of [bad, named]) {
      const result = await cliProcess(['debug', 'context', '--export', file]);
      expect(result.code).toBe(2);
      expect(result.stderr).not.toMatch(RAW_CONTROL);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('tables that fit the terminal', () => {
  const tableLines = (text: string) => text.split('\n').filter((l) => /^[┌│└]/.test(l));
  const widest = (text: string) => Math.max(...tableLines(text).map((l) => stringWidth(l)));
  async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
    const io = captureIo(dir, env);
    const code = await run(args, io);
    return { code, stdout: io.stdout(), stderr: io.stderr() };
  }

  it('fits 100 and 60 columns ($COLUMNS, else 100), cutting labels with an ellipsis; --wide prints them whole', async () => {
    // A session with long CJK labels, imported once (its counts stored, so each report is quick).
    const db = join(dir, 'cjk.db');
    const root = join(dir, 'cjk-ws');
    mkdirSync(root);
    const file = join(PUBLIC, 'glm-5.2+gpt-5.6-sol_cap.json');
    expect((await cli(['import', file, '--db', db, '--workspace', 'cjk', '--root', root])).code).toBe(0);
    for (const args of [
      ['debug', 'context', 'cjk', '--db', db],
      ['debug', 'context', 'cjk', '--db', db, '--timeline'],
    ]) {
      const byDefault = await cli(args);
      const at100 = await cli(args, { COLUMNS: '100' });
      const at60 = await cli(args, { COLUMNS: '60' });
      const wide = await cli([...args, '--wide'], { COLUMNS: '60' });
      expect(byDefault.stdout).toBe(at100.stdout);
      expect(widest(at100.stdout)).toBeLessThanOrEqual(100);
      expect(widest(at60.stdout)).toBeLessThanOrEqual(60);
      expect(tableLines(at60.stdout).some((l) => l.includes('…'))).toBe(true);
      expect(widest(wide.stdout)).toBeGreaterThan(100);
    }
    // A CJK label counts two columns a character: the cut one still fits.
    const at60 = await cli(['debug', 'context', 'cjk', '--db', db, '--items', 'all'], { COLUMNS: '60' });
    expect(tableLines(at60.stdout).some((l) => /[\u4e00-\u9fff]/.test(l))).toBe(true);
    expect(widest(at60.stdout)).toBeLessThanOrEqual(60);
  }, 120_000);

  it('leaves --json as it is, whatever the width', async () => {
    const args = ['debug', 'context', '--export', hostile, '--json'];
    // Each --export run imports the file anew: all but the report's time and snapshot is the same, byte for byte.
    const json = async (env: NodeJS.ProcessEnv, more: string[] = []) =>
      (await cli([...args, ...more], env)).stdout.replace(/"(generatedAt|snapshotId)": "[^"]*"/g, '');
    const narrow = await json({ COLUMNS: '60' });
    expect(narrow).toMatch(/^\{\n {2}"schemaVersion": 1/);
    expect(await json({})).toBe(narrow);
    expect(await json({}, ['--wide'])).toBe(narrow);
  });
});

describe('errors in one line, with the documented exit code', () => {
  let demoDb: string;
  beforeAll(async () => {
    demoDb = join(dir, 'demo', 'investibook.db');
    await seedDemoDatabase(demoDb, 'terminal-token');
    writeFileSync(join(dir, 'not-a-db.db'), 'this is text, not SQLite '.repeat(20));
    mkdirSync(join(dir, 'a-folder'), { recursive: true });
  });

  const CASES: [string, string[], number, RegExp][] = [
    ['db init: a file that is not a database', ['db', 'init', '--db', 'not-a-db.db'], 1, /not a database/],
    ['db init: no --db', ['db', 'init'], 2, /--db/],
    ['db copy: a missing source', ['db', 'copy', '--from', 'missing.db', '--to', 'copy.db'], 1, /not found/],
    ['db copy: no --to', ['db', 'copy', '--from', 'missing.db'], 2, /--to/],
    ['db count: a missing database', ['db', 'count', '--db', 'missing.db'], 1, /database not found/],
    ['db count: not a database', ['db', 'count', '--db', 'not-a-db.db'], 1, /not a database/],
    ['debug context: not a database', ['debug', 'context', 'demo', '--db', 'not-a-db.db'], 1, /not a database/],
    ['debug context: a wrong --items', ['debug', 'context', '--items', 'lots'], 2, /items must be/],
    ['debug context: a wrong --estimator', ['debug', 'context', '--estimator', 'x'], 2, /estimator/],
    [
      'debug context: --export of a missing file',
      ['debug', 'context', '--export', 'MISSING'],
      2,
      /^MISSING: no such file$/,
    ],
    ['debug context: --export of a folder', ['debug', 'context', '--export', 'a-folder'], 2, /a-folder is a folder/],
    ['import: a missing file', ['import', 'MISSING', '--db', 'new.db'], 2, /MISSING: no such file/],
    ['import: not an export', ['import', 'not-a-db.db', '--db', 'new.db'], 2, /not JSON/],
    ['mcp: --token without --api', ['mcp', '--token', 't'], 2, /--token only makes sense with --api/],
    ['mcp: --api without its value', ['mcp', '--api'], 2, /argument missing/],
    ['an unknown command', ['nope'], 2, /unknown command/],
  ];
  it.each(CASES)('%s', async (_what, args, code, message) => {
    const io = captureIo(dir, {});
    expect(await run(args, io)).toBe(code);
    const lines = io.stderr().split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.replace(/^investibook: /, '')).toMatch(message);
    expect(existsSync(join(dir, 'missing.db'))).toBe(false);
    expect(existsSync(join(dir, 'new.db'))).toBe(false);
  });

  it('stops quietly when its reader goes (`| head`): no line on stderr, exit 0', async () => {
    // The report (~100 KB) is more than a pipe holds: head takes ten bytes and goes, and the
    // rest of the write fails with EPIPE. pipefail: the pipeline's status is the CLI's.
    const line = `set -o pipefail; "$0" "$1" debug context demo --db "$2" --json --items all | head -c 10 >/dev/null`;
    const result = await exec('bash', ['-c', line, process.execPath, BIN, demoDb], { cwd: dir }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('debug context --export MISSING as a real process: one line, exit 2, no stack trace', async () => {
    const result = await cliProcess(['debug', 'context', '--export', 'MISSING']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('investibook: MISSING: no such file\n');
  });
});
