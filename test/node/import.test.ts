/**
 * `investibook import` and `debug context --export` (contract §8), through the CLI's main as a
 * user runs them: every kept public export gives the same report after an import, from the same
 * rows written directly in §1's columns, and straight from the file; a second import writes
 * nothing (byte-identical database); a longer export adds only what is new; subagents are linked;
 * bad input is refused in one line with the database unchanged; SQLite and PostgreSQL alike.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { messageRows, type SessionExport } from '../../src/node/agent/opencode/session-export';
import { run } from '../../src/node/cli/main';
import { summaryText } from '../../src/node/mcp/summary';
import { ReportService } from '../../src/node/report/service';
import { openStore } from '../../src/node/storage/open';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { captureIo, placeIn } from '../support/cli';
import { databaseDigest, insertMessageRow } from '../support/fixtures';
import { createDatabase } from '../support/postgres';
import { publicExportFiles } from '../support/public-exports';

const PUBLIC = join(import.meta.dirname, '..', 'fixtures', 'public');
/** Every export kept in the folder: one added there is imported here without a test naming it. */
const FILES = publicExportFiles();
const WS = 'ws_import';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-import-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh folder with a workspace folder `ws` in it. */
const place = () => placeIn(dir);

async function cli(args: string[], cwd = dir, stdin?: string) {
  const io = captureIo(cwd);
  if (stdin !== undefined) io.stdin = Readable.from([stdin]);
  const code = await run(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

async function reportAt(location: string, request: { workspaceId: string; sessionId?: string }) {
  const store = await openStore({ location, readOnly: true });
  try {
    return await new ReportService(store).report({ items: 'all', ...request });
  } finally {
    await store.close();
  }
}

/** What must agree between two reports of the same rows: everything but when and where it was made. */
/** A report's figures: everything but when, where from and under which names it was made. */
function figures(report: ContextReport) {
  const { generatedAt: _g, snapshotId: _s, workspaceId: _w, origin: _o, ...rest } = report;
  return rest;
}

const fileDigest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

const exportOf = (file: string) => JSON.parse(readFileSync(join(PUBLIC, file), 'utf8')) as SessionExport;

function writeExport(path: string, value: unknown): string {
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

describe('investibook import: the public exports', () => {
  for (const file of FILES) {
    it(`${file}: the same report after an import, from the same rows written directly, and with --export`, async () => {
      const imported = place();
      const path = join(PUBLIC, file);
      const first = await cli(['import', path, '--db', imported.db, '--root', imported.root, '--workspace', WS]);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      const exported = exportOf(file);
      expect(first.stdout).toContain(`Imported session ${exported.info.id} into workspace ${WS}`);
      const report = await reportAt(imported.db, { workspaceId: WS });
      expect(contextReportSchema.safeParse(report).success).toBe(true);
      // No ACP row: the total is the last measured call's prompt as the provider counted it.
      expect(report.actual!.source).toBe('provider');
      expect(report.actual!.contextUsed).toBe(report.calibration!.reference!.promptTokens);
      const lastPoint = report.timeline!.at(-1)!;
      expect(lastPoint.promptTokens).toBe(report.actual!.contextUsed);

      // The same rows written directly in §1's columns, as another writer would: the same report.
      const direct = place();
      const store = await openSqlite(direct.db);
      await store.transaction(async (tx) => {
        await tx.insertWorkspace({ id: WS, name: 'ws', root_path: direct.root, created_at: 1 });
      });
      for (const row of messageRows(exported))
        insertMessageRow(store.db, { ...row, workspaceId: WS, sessionId: exported.info.id });
      await store.close();
      const directReport = await reportAt(direct.db, { workspaceId: WS });
      expect(figures(directReport)).toEqual(figures(report));
      // Only the import knows where the session came from.
      expect(report.origin).toMatchObject({ kind: 'opencode_export' });
      expect(directReport.origin).toBeUndefined();

      // Again: nothing changes, to the byte.
      const before = await databaseDigest(imported.db);
      const bytes = fileDigest(imported.db);
      const again = await cli(['import', path, '--db', imported.db]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`Already imported session ${exported.info.id} into workspace ${WS}`);
      expect(await databaseDigest(imported.db)).toBe(before);
      expect(fileDigest(imported.db)).toBe(bytes);

      // Straight from the file, with no database: the same figures.
      const json = await cli([
        'debug',
        'context',
        '--export',
        path,
        '--root',
        imported.root,
        '--json',
        '--items',
        'all',
      ]);
      expect(json.code).toBe(0);
      const fromFile = contextReportSchema.parse(JSON.parse(json.stdout));
      expect(figures(fromFile)).toEqual(figures(report));
      expect(fromFile.origin).toMatchObject({ kind: 'opencode_export', files: [path] });
    });
  }
});

describe('investibook import: growing, linking, workspaces', () => {
  const file = 'openai-gpt-5.3-codex_dark-factory_crisp-garden.json';

  it('a longer export of the same session adds only what is new; an older one takes nothing back', async () => {
    const full = exportOf(file);
    const cut = Math.floor(full.messages.length / 2);
    // The shorter export: the first half, its last message caught mid-turn (fewer parts, earlier times).
    const last = full.messages[cut - 1]!;
    const partial = {
      ...full,
      messages: [
        ...full.messages.slice(0, cut - 1),
        {
          info: { ...last.info, time: { created: (last.info.time as { created: number }).created } },
          parts: last.parts.slice(0, 1),
        },
      ],
    };
    const at = place();
    const half = writeExport(join(at.base, 'half.json'), partial);
    const whole = join(PUBLIC, file);
    expect((await cli(['import', half, '--db', at.db, '--root', at.root])).code).toBe(0);
    const small = await reportAt(at.db, { workspaceId: 'ws' });
    const grown = await cli(['import', whole, '--db', at.db]);
    expect(grown.stdout).toContain(`${full.messages.length - cut} new, 1 updated, ${cut - 1} unchanged messages`);
    const big = await reportAt(at.db, { workspaceId: 'ws' });
    expect(big.calibration!.calls).toBeGreaterThan(small.calibration!.calls);
    expect(big.actual!.contextUsed).toBeGreaterThan(small.actual!.contextUsed);

    // The rows are the whole export's, as a fresh import of it makes them.
    const fresh = place();
    expect((await cli(['import', whole, '--db', fresh.db, '--root', fresh.root])).code).toBe(0);
    expect(await messagesDigest(at.db)).toBe(await messagesDigest(fresh.db));

    // The shorter export again, after the longer one: nothing goes back.
    const before = await databaseDigest(at.db);
    const older = await cli(['import', half, '--db', at.db]);
    expect(older.stdout).toContain("1 kept (the database's are newer)");
    expect(await databaseDigest(at.db)).toBe(before);
  });

  it('--no-count imports the rows and stores no counts; the report is the same, and `db count` stores them later', async () => {
    const whole = join(PUBLIC, file);
    const counted = place();
    expect((await cli(['import', whole, '--db', counted.db, '--root', counted.root, '--workspace', WS])).code).toBe(0);
    const later = place();
    const deferred = await cli([
      'import',
      whole,
      '--db',
      later.db,
      '--root',
      later.root,
      '--workspace',
      WS,
      '--no-count',
    ]);
    expect(deferred.code).toBe(0);
    expect(deferred.stdout).toContain('Token counts not stored (--no-count)');
    const stored = (path: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM token_counts').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    expect(stored(counted.db)).toBeGreaterThan(0);
    expect(stored(later.db)).toBe(0);
    expect(await messagesDigest(later.db)).toBe(await messagesDigest(counted.db));
    expect(figures(await reportAt(later.db, { workspaceId: WS }))).toEqual(
      figures(await reportAt(counted.db, { workspaceId: WS })),
    );
    expect((await cli(['db', 'count', '--db', later.db])).code).toBe(0);
    expect(stored(later.db)).toBe(stored(counted.db));
  });

  it("links a subagent's session to its parent, in one file or two, either order, and the parent's task item shows it", async () => {
    const { parent, child } = subagentPair();
    for (const order of ['one file', 'child first', 'parent first'] as const) {
      const at = place();
      const both = join(at.base, 'both.json');
      if (order === 'one file') {
        writeExport(both, `${JSON.stringify(parent)}\n${JSON.stringify(child)}\n`);
        expect((await cli(['import', both, '--db', at.db, '--root', at.root])).code).toBe(0);
      } else {
        const files = [writeExport(join(at.base, 'p.json'), parent), writeExport(join(at.base, 'c.json'), child)];
        if (order === 'child first') files.reverse();
        for (const f of files) expect((await cli(['import', f, '--db', at.db, '--root', at.root])).code).toBe(0);
      }
      const own = await reportAt(at.db, { workspaceId: 'ws', sessionId: child.info.id });
      expect(own.parentSessionId).toBe(parent.info.id);
      const top = await reportAt(at.db, { workspaceId: 'ws', sessionId: parent.info.id });
      const item = top.sources.flatMap((s) => s.items).find((i) => i.subagent)!;
      expect(item.subagent).toMatchObject({ sessionId: child.info.id, total: own.actual!.contextUsed });
    }
  });

  it('creates the workspace from the export’s own folder when it is here, with the demo user as its member', async () => {
    const at = place();
    const exported = { ...exportOf(file), info: { ...exportOf(file).info, directory: at.root } };
    const path = writeExport(join(at.base, 'here.json'), exported);
    // A database with the demo user, as npm start leaves it.
    const store = await openSqlite(at.db);
    await store.insertUser('usr_demo', 'Demo operator');
    await store.close();
    const result = await cli(['import', path, '--db', at.db]);
    expect(result.stdout).toContain('Created workspace ws (member: usr_demo)');
    const check = await openSqlite(at.db, { readOnly: true });
    expect(await check.workspaceForMember('ws', 'usr_demo')).toMatchObject({ root_path: at.root });
    expect((await check.sessionOrigins('ws'))[0]).toMatchObject({
      kind: 'opencode_export',
      session_id: exported.info.id,
      directory: at.root,
      agent_version: '1.2.5',
    });
    await check.close();
    // A second session of that folder goes to the same workspace.
    const other = writeExport(join(at.base, 'other.json'), {
      ...exported,
      info: { ...exported.info, id: 'ses_other' },
      messages: [],
    });
    expect((await cli(['import', other, '--db', at.db])).stdout).toContain('into workspace ws');
  });

  it('the CLI table and the MCP summary say the total is the provider’s count of the last call', async () => {
    const at = place();
    expect((await cli(['import', join(PUBLIC, file), '--db', at.db, '--root', at.root])).code).toBe(0);
    const table = await cli(['debug', 'context', '--db', at.db], at.root);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      // The window is the catalog's: the rows carry none (OpenCode's own model list, issue 38).
      /^Context: 36,845 \/ 400,000 tokens \(9\.2% of the window\) · the last model call's prompt, as the provider counted it at 2026-/m,
    );
    expect(table.stdout).toMatch(
      // 38: the calls the provider counted are numbered (one of the 39 replies counted nothing).
      /The total is the prompt of model call 38, the last the provider counted \(.*\): the agent reported no total of its own for this session/,
    );
    expect(table.stdout).toContain('is not in its prompt: no model call has counted it.');
    const report = await reportAt(at.db, { workspaceId: 'ws' });
    expect(summaryText(report)).toMatch(
      /^Context: 36,845 \/ 400,000 tokens \(9\.2% of the window\), the last model call's prompt as the provider counted it \(.*\): no agent total was recorded for this session\.$/m,
    );
  });

  it('shows its progress on a terminal only, and clears the line after', async () => {
    const path = join(PUBLIC, 'ollama-minimax-m2.7-cloud_k1lib-bootstrap.json');
    for (const tty of [true, false]) {
      const at = place();
      const io = captureIo(dir);
      io.errIsTTY = tty;
      expect(await run(['import', path, '--db', at.db, '--root', at.root], io)).toBe(0);
      if (!tty) expect(io.stderr()).toBe('');
      else {
        // eslint-disable-next-line no-control-regex -- the terminal escape that clears the line is the point
        expect(io.stderr()).toMatch(/^\r\u001b\[2KChecking .*ollama.*: [\d.]+ MB of 4\.1 MB/);
        expect(io.stderr()).toMatch(/Writing .*: [\d.]+ MB of 4\.1 MB/);
        expect(io.stderr().endsWith('\r\u001b[2K')).toBe(true);
      }
    }
  });

  it('keeps an unknown part type as it is and the report says it is unknown', async () => {
    const at = place();
    const exported = exportOf(file);
    const hologram = { id: 'prt_hologram', type: 'hologram', depth: 3 };
    exported.messages[1]!.parts.push(hologram);
    const path = writeExport(join(at.base, 'new-version.json'), exported);
    expect((await cli(['import', path, '--db', at.db, '--root', at.root])).code).toBe(0);
    const store = await openSqlite(at.db, { readOnly: true });
    const [row] = await store.messages([exported.messages[1]!.info.id]);
    expect(JSON.parse(String(row!.parts)).at(-1)).toEqual(hologram);
    await store.close();
    const report = await reportAt(at.db, { workspaceId: 'ws' });
    expect(report.warnings.join('\n')).toMatch(/unknown part type "hologram"/);
  });
});

describe('investibook import: what it accepts and what it refuses', () => {
  const file = 'claude-haiku-4-5_sandbox-agent-native.converted.json';
  const text = readFileSync(join(PUBLIC, file), 'utf8');

  it('takes gzip, the "Exporting session" line, a BOM and standard input as the same export', async () => {
    const plain = place();
    expect(
      (await cli(['import', join(PUBLIC, file), '--db', plain.db, '--root', plain.root, '--workspace', WS])).code,
    ).toBe(0);
    const id = exportOf(file).info.id;
    const variants: [string, () => Promise<Awaited<ReturnType<typeof cli>>>][] = [
      ['gzip', async () => cli(['import', gz(text), ...rest()])],
      ['leading line', async () => cli(['import', file2(`Exporting session: ${id}\n${text}`), ...rest()])],
      ['BOM', async () => cli(['import', file2(`\uFEFF${text}`), ...rest()])],
      ['standard input', async () => cli(['import', '-', ...rest()], dir, text)],
    ];
    let at = place();
    const rest = () => ['--db', at.db, '--root', at.root, '--workspace', WS];
    const gz = (t: string) => {
      const path = join(at.base, 'x.json.gz');
      writeFileSync(path, gzipSync(t));
      return path;
    };
    const file2 = (t: string) => writeExport(join(at.base, 'x.json'), t);
    for (const [name, importIt] of variants) {
      at = place();
      const result = await importIt();
      expect(result.stderr, name).toBe('');
      expect(result.code, name).toBe(0);
      expect(await messagesDigest(at.db), name).toBe(await messagesDigest(plain.db));
    }
  });

  const bad: [string, string | Buffer, RegExp][] = [
    ['not JSON', 'this is not json\n', /is not JSON/],
    ['JSON that is not an export', '[{"id": 1}]', /is not an OpenCode session export: it holds a list/],
    ['an object without messages', '{"info": {"id": "ses_x"}}', /has no messages list/],
    [
      'a message without an id',
      '{"info": {"id": "ses_x"}, "messages": [{"info": {}, "parts": []}]}',
      /message 1 has no info\.id/,
    ],
    [
      'a truncated export',
      text.slice(0, Math.floor(text.length / 2)),
      /ends in the middle of an export \(truncated\?\)/,
    ],
    ['a truncated gzip', gzipSync(text).subarray(0, 400), /gzip that ends too early/],
    ['an empty file', '', /is empty/],
    ['JSON followed by something else', `${text}\nnot json`, /is not valid JSON after/],
  ];
  for (const [name, content, message] of bad) {
    it(`refuses ${name} in one line, the database unchanged (and not created when it was not there)`, async () => {
      const at = place();
      // A database with a session in it already.
      expect((await cli(['import', join(PUBLIC, file), '--db', at.db, '--root', at.root])).code).toBe(0);
      const before = await databaseDigest(at.db);
      const path = join(at.base, 'bad.json');
      writeFileSync(path, content);
      const good = join(PUBLIC, 'big-pickle_fastmcp-map-app.json');
      // A good file beside the bad one: all or nothing.
      const result = await cli(['import', good, path, '--db', at.db, '--root', at.root]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(await databaseDigest(at.db)).toBe(before);
      const none = join(at.base, 'none.db');
      expect((await cli(['import', path, '--db', none, '--root', at.root])).code).toBe(2);
      expect(existsSync(none)).toBe(false);
    });
  }

  it('refuses an export whose folder is not here without --root, and a session of another workspace, in words', async () => {
    const at = place();
    const path = join(PUBLIC, 'openai-gpt-5.3-codex_dark-factory_crisp-garden.json');
    const elsewhere = await cli(['import', path, '--db', at.db]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(
      /ran in \/Users\/alex\/repos\/vfp\/dark-factory, which is not a folder on this machine: give --root DIR/,
    );
    expect(existsSync(at.db)).toBe(false);
    expect((await cli(['import', path, '--db', at.db, '--root', at.root])).code).toBe(0);
    const before = await databaseDigest(at.db);
    const moved = await cli(['import', path, '--db', at.db, '--root', at.root, '--workspace', 'another']);
    expect(moved.code).toBe(2);
    expect(moved.stderr).toMatch(/is already in workspace ws: import it there/);
    expect(await databaseDigest(at.db)).toBe(before);
    expect((await cli(['import', '--db', at.db])).code).toBe(2);
    expect((await cli(['import', join(at.base, 'missing.json'), '--db', at.db])).stderr).toMatch(
      /missing\.json: no such file/,
    );
  });
});

describe('investibook import: PostgreSQL', () => {
  it('imports, reports the same figures as SQLite, and writes nothing the second time', async () => {
    const url = await createDatabase(inject('postgresUrl'), 'import');
    const path = join(PUBLIC, 'deepseek-v4-flash-free_tuiptv.json');
    const at = place();
    expect((await cli(['import', path, '--database-url', url, '--root', at.root, '--workspace', WS])).code).toBe(0);
    expect((await cli(['import', path, '--db', at.db, '--root', at.root, '--workspace', WS])).code).toBe(0);
    const pg = await reportAt(url, { workspaceId: WS });
    const lite = await reportAt(at.db, { workspaceId: WS });
    // The provider's counts are the same to the token. JSONB gives objects back in its own key
    // order (docs/deploy.md), so a tool input's estimate may move by a token or two.
    expect(pg.actual).toEqual(lite.actual);
    expect(pg.timeline!.map((p) => p.promptTokens)).toEqual(lite.timeline!.map((p) => p.promptTokens));
    expect(pg.sources.map((s) => [s.id, s.itemCount])).toEqual(lite.sources.map((s) => [s.id, s.itemCount]));
    pg.sources.forEach((s, i) =>
      expect(Math.abs(s.scaledTokens! - lite.sources[i]!.scaledTokens!)).toBeLessThanOrEqual(
        Math.max(4, lite.sources[i]!.scaledTokens! * 0.01),
      ),
    );
    const digest = async () => {
      const store = await openStore({ location: url, readOnly: true });
      try {
        return (await store.contentRows()).join('\n');
      } finally {
        await store.close();
      }
    };
    const before = await digest();
    const again = await cli(['import', path, '--database-url', url]);
    expect(again.stdout).toContain('Already imported');
    expect(await digest()).toBe(before);
  });
});

/** The messages_v2 rows alone (an origin's import times differ between databases). */
async function messagesDigest(db: string): Promise<string> {
  const store = await openSqlite(db, { readOnly: true });
  try {
    const rows = await store.contentRows();
    const start = rows.indexOf('# messages_v2');
    const end = rows.findIndex((line, i) => i > start && line.startsWith('# '));
    return createHash('sha256').update(rows.slice(start, end).join('\n')).digest('hex');
  } finally {
    await store.close();
  }
}

/** A session whose task call made a subagent's session, and that session (its info.parentID set). */
function subagentPair(): { parent: SessionExport; child: SessionExport } {
  const base = exportOf('claude-haiku-4-5_sandbox-agent-native.converted.json');
  const childId = 'ses_child_of_haiku';
  const parent = structuredClone(base);
  const reply = parent.messages.find((m) => m.info.role === 'assistant')!;
  reply.parts.unshift({
    id: 'prt_task',
    type: 'tool',
    tool: 'task',
    callID: 'call_task',
    state: {
      status: 'completed',
      input: { description: 'look around', prompt: 'look around', subagent_type: 'general' },
      output: 'done',
      title: 'look around',
      metadata: { sessionId: childId },
      time: { start: 1, end: 2 },
    },
  });
  const child = structuredClone(base);
  child.info = { ...child.info, id: childId, parentID: parent.info.id };
  for (const m of child.messages) {
    m.info = { ...m.info, id: `${m.info.id}c`, sessionID: childId };
    m.parts = m.parts.map((p) => ({
      ...p,
      id: `${String(p.id)}c`,
      sessionID: childId,
      messageID: `${String(p.messageID)}c`,
    }));
  }
  return { parent, child };
}
