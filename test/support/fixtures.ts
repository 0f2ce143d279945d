/**
 * Test fixtures built in code: a temporary database and workspace folder, OpenCode-shaped
 * messages, and digests that prove a path wrote nothing.
 */
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sha256Hex } from '../../src/node/auth';
import { createAscendingIds, seededRandom } from '../../src/node/ids';
import {
  addMember,
  contentDigestRows,
  insertTokenHash,
  insertUsage,
  insertUser,
  insertWorkspace,
  openWritable,
  type Db,
} from '../../src/node/storage/store';

export interface Fixture {
  dir: string;
  dbPath: string;
  root: string;
  db: Db;
  cleanup: () => void;
}

export const TOKEN = 'test-token-member';
export const OTHER_TOKEN = 'test-token-outsider';
export const WS = 'ws_test';
export const SESSION = 'ses_test_main';

/** A database with one workspace (member: usr_member) and an outsider user, plus a root folder. */
export function createFixture(files: Record<string, string | Buffer> = {}): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-test-'));
  const dbPath = join(dir, 'test.db');
  const root = join(dir, 'ws');
  mkdirSync(root, { recursive: true });
  writeFiles(root, files);
  const db = openWritable(dbPath);
  insertUser(db, 'usr_member', 'Member');
  insertUser(db, 'usr_outsider', 'Outsider');
  insertTokenHash(db, sha256Hex(TOKEN), 'usr_member');
  insertTokenHash(db, sha256Hex(OTHER_TOKEN), 'usr_outsider');
  insertWorkspace(db, { id: WS, name: 'Test workspace', root_path: 'ws', created_at: 1 });
  addMember(db, WS, 'usr_member');
  return {
    dir,
    dbPath,
    root,
    db,
    cleanup: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

// --- OpenCode-shaped messages ------------------------------------------------------------------

type Part = Record<string, unknown>;
let clock = 1_800_000_000_000;
const ids = createAscendingIds(seededRandom(7));

export interface MessageSpec {
  role: 'user' | 'assistant';
  parts: Part[];
  info?: Record<string, unknown>;
  id?: string;
  session?: string;
  rawParts?: string;
  rawInfo?: string;
}

/** Inserts messages in order; returns their ids. */
export function addMessages(db: Db, specs: MessageSpec[], workspaceId = WS): string[] {
  return specs.map((spec) => {
    clock += 1000;
    const id = spec.id ?? ids('msg', clock);
    const info = { role: spec.role, time: { created: clock }, ...spec.info };
    const parts = spec.parts.map((p, i) => ({ id: `prt_${i}`, ...p }));
    db.prepare(
      'INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(
      id,
      workspaceId,
      spec.session ?? SESSION,
      clock,
      clock,
      spec.rawInfo ?? JSON.stringify(info),
      spec.rawParts ?? JSON.stringify(parts),
    );
    return id;
  });
}

export function addUsage(
  db: Db,
  contextUsed: number | null,
  options: { source?: string; size?: number | null; session?: string; at?: number } = {},
): void {
  clock += 1000;
  insertUsage(db, {
    workspaceId: WS,
    sessionId: options.session ?? SESSION,
    source: options.source ?? 'acp',
    contextUsed,
    contextSize: options.size === undefined ? 200_000 : options.size,
    costAmount: null,
    costCurrency: null,
    createdAt: options.at ?? clock,
  });
}

export const text = (t: string, extra: Part = {}): Part => ({ type: 'text', text: t, ...extra });

export function tool(
  name: string,
  input: Record<string, unknown>,
  output: string,
  extra: { status?: string; metadata?: Part; time?: Part; error?: string } = {},
): Part {
  const status = extra.status ?? 'completed';
  const state: Part = { status, input, time: { start: 1, end: 2, ...extra.time } };
  if (status === 'completed') Object.assign(state, { output, title: name, metadata: extra.metadata ?? {} });
  if (status === 'error') state.error = extra.error ?? output;
  return { type: 'tool', callID: `call_${name}`, tool: name, state };
}

export const readTool = (root: string, path: string, output: string, extra: Parameters<typeof tool>[3] = {}): Part =>
  tool('read', { filePath: join(root, path) }, output, extra);

// --- digests -----------------------------------------------------------------------------------

/** Every table's rows, independent of page layout: equal digests mean equal content. */
export function databaseDigest(dbPath: string): string {
  const db = new BetterSqlite3(dbPath, { readonly: true, fileMustExist: true });
  try {
    return createHash('sha256').update(contentDigestRows(db).join('\n')).digest('hex');
  } finally {
    db.close();
  }
}

/** Paths, types, sizes, mtimes and contents of a folder tree (links are recorded, not followed). */
export function treeDigest(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stats = lstatSync(path);
      hash.update(`${path}\0${stats.mode}\0${stats.size}\0${stats.mtimeMs}\0`);
      if (stats.isSymbolicLink()) hash.update(readlinkSync(path));
      else if (stats.isDirectory()) walk(path);
      else if (stats.isFile()) {
        try {
          hash.update(readFileSync(path));
        } catch {
          hash.update('unreadable');
        }
      }
    }
  };
  walk(root);
  return hash.digest('hex');
}

export { sha256Hex };
