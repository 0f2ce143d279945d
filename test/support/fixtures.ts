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
import type { NewMessage, NewSessionRuntime, NewUsage } from '../../src/node/storage/store';
import type { ContextReport } from '../../src/shared/wire';

export interface Fixture {
  dir: string;
  dbPath: string;
  root: string;
  /** The writable store. */
  store: SqliteStore;
  /** Raw SQL on the same connection, for rows no well-behaved writer would make. */
  raw: SqliteStore['db'];
  /** The HTTP app on this fixture, as the server builds it (a read-only store for reports). */
  app: () => Promise<ReturnType<typeof createApp>>;
  cleanup: () => Promise<void>;
}

export const TOKEN = 'test-token-member';
export const OTHER_TOKEN = 'test-token-outsider';
export const WS = 'ws_test';
export const SESSION = 'ses_test_main';

/** A database with one workspace (member: usr_member) and an outsider user, plus a root folder. */
export async function createFixture(files: Record<string, string | Buffer> = {}): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-test-'));
  const dbPath = join(dir, 'test.db');
  const root = join(dir, 'ws');
  mkdirSync(root, { recursive: true });
  writeFiles(root, files);
  const store = await openSqlite(dbPath);
  await store.transaction(async (tx) => {
    await tx.insertUser('usr_member', 'Member');
    await tx.insertUser('usr_outsider', 'Outsider');
    await tx.insertTokenHash(sha256Hex(TOKEN), 'usr_member');
    await tx.insertTokenHash(sha256Hex(OTHER_TOKEN), 'usr_outsider');
    await tx.insertWorkspace({ id: WS, name: 'Test workspace', root_path: 'ws', created_at: 1 });
    await tx.addMember(WS, 'usr_member');
  });
  const opened: SqliteStore[] = [];
  return {
    dir,
    dbPath,
    root,
    store,
    raw: store.db,
    app: async () => {
      const reportStore = await openSqlite(dbPath, { readOnly: true });
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
  const store = await openSqlite(fx.dbPath, { readOnly: true });
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

/** Adds a usage row (synchronously, on the raw connection). */
export function addUsage(
  fx: Pick<Fixture, 'raw'>,
  contextUsed: number | null,
  options: { source?: string; size?: number | null; session?: string; at?: number } = {},
): void {
  clock += 1000;
  insertUsageRow(fx.raw, {
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

/** A usage row on a raw connection, as the store writes it. */
export function insertUsageRow(raw: Fixture['raw'], u: NewUsage): void {
  raw
    .prepare(
      `INSERT INTO interaction_token_usage
         (workspace_id, session_id, source, context_used, context_size, cost_amount, cost_currency, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(u.workspaceId, u.sessionId, u.source, u.contextUsed, u.contextSize, u.costAmount, u.costCurrency, u.createdAt);
}

/** A session_runtime row on a raw connection, as the store writes it. */
export function insertSessionRuntimeRow(raw: Fixture['raw'], r: NewSessionRuntime): void {
  raw
    .prepare(
      `INSERT INTO session_runtime (workspace_id, session_id, runtime_key, parent_session_id, recorded_at, definitions)
       VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .run(r.workspaceId, r.sessionId, r.runtimeKey, r.parentSessionId, r.recordedAt, JSON.stringify(r.definitions));
}

/** A message row on a raw connection, as the store writes it. */
export function insertMessageRow(raw: Fixture['raw'], m: NewMessage): void {
  raw
    .prepare(
      'INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    .run(
      m.id,
      m.workspaceId,
      m.sessionId,
      m.timeCreated,
      m.timeUpdated,
      JSON.stringify(m.info),
      JSON.stringify(m.parts),
    );
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
  const store = await openSqlite(dbPath, { readOnly: true });
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
