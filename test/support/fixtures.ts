/**
 * Test fixtures built in code: a temporary store and workspace folder, messages made with the
 * OpenCode format module's builders, and digests that prove a path wrote nothing.
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
import { part } from '../../src/shared/opencode/build';
import { sha256Hex } from '../../src/node/auth';
import { createAscendingIds, seededRandom } from '../../src/node/ids';
import { ReportService, type ReportRequest } from '../../src/node/report/service';
import { createApp } from '../../src/node/server/app';
import { openSqlite, type SqliteStore } from '../../src/node/storage/sqlite/sqlite-store';
import type { ContextReport } from '../../src/shared/wire';

export interface Fixture {
  dir: string;
  dbPath: string;
  root: string;
  /** The writable store (setup happens through its synchronous writes). */
  store: SqliteStore;
  /** Raw SQL on the same connection, for rows no well-behaved writer would make. */
  raw: SqliteStore['db'];
  /** The HTTP app on this fixture, as the server builds it (a read-only store for reports). */
  app: () => ReturnType<typeof createApp>;
  cleanup: () => Promise<void>;
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
  const store = openSqlite(dbPath);
  store.now.insertUser('usr_member', 'Member');
  store.now.insertUser('usr_outsider', 'Outsider');
  store.now.insertTokenHash(sha256Hex(TOKEN), 'usr_member');
  store.now.insertTokenHash(sha256Hex(OTHER_TOKEN), 'usr_outsider');
  store.now.insertWorkspace({ id: WS, name: 'Test workspace', root_path: 'ws', created_at: 1 });
  store.now.addMember(WS, 'usr_member');
  const opened: SqliteStore[] = [];
  return {
    dir,
    dbPath,
    root,
    store,
    raw: store.db,
    app: () => {
      const reportStore = openSqlite(dbPath, { readOnly: true });
      opened.push(reportStore);
      return createApp({ store, reportStore });
    },
    cleanup: async () => {
      for (const extra of opened) await extra.close();
      await store.close();
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

/** A report read the way the API and the CLI read it: a read-only store over the same file. */
export async function reportOf(
  fx: Pick<Fixture, 'dbPath'>,
  request: Partial<ReportRequest> = {},
): Promise<ContextReport> {
  const store = openSqlite(fx.dbPath, { readOnly: true });
  try {
    return await new ReportService(store).report({ workspaceId: WS, ...request });
  } finally {
    await store.close();
  }
}

// --- messages, in OpenCode's shapes ----------------------------------------------------------

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
export function addMessages(fx: Pick<Fixture, 'raw'>, specs: MessageSpec[], workspaceId = WS): string[] {
  return specs.map((spec) => {
    clock += 1000;
    const id = spec.id ?? ids('msg', clock);
    const info = { role: spec.role, time: { created: clock }, ...spec.info };
    const parts = spec.parts.map((p, i) => ({ id: `prt_${i}`, ...p }));
    fx.raw
      .prepare(
        'INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
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
  fx: Pick<Fixture, 'store'>,
  contextUsed: number | null,
  options: { source?: string; size?: number | null; session?: string; at?: number } = {},
): void {
  clock += 1000;
  fx.store.now.insertUsage({
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

export const text = (t: string, extra: { synthetic?: boolean; ignored?: boolean } = {}): Part => part.text(t, extra);

export function tool(
  name: string,
  input: Record<string, unknown>,
  output: string,
  extra: {
    status?: 'completed' | 'error' | 'running' | 'pending';
    metadata?: Part;
    time?: { compacted?: number };
    error?: string;
  } = {},
): Part {
  return part.tool({ tool: name, input, output, ...extra });
}

export const readTool = (root: string, path: string, output: string, extra: Parameters<typeof tool>[3] = {}): Part =>
  tool('read', { filePath: join(root, path) }, output, extra);

// --- digests -----------------------------------------------------------------------------------

/** Every table's rows, independent of page layout: equal digests mean equal content. */
export async function databaseDigest(dbPath: string): Promise<string> {
  const store = openSqlite(dbPath, { readOnly: true });
  try {
    return createHash('sha256')
      .update((await store.contentRows()).join('\n'))
      .digest('hex');
  } finally {
    await store.close();
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
