/**
 * The storage interface on an embedded SQLite file (better-sqlite3). Snapshots, transactions and
 * writes of one connection run in turn (a small queue): a snapshot or a transaction is a
 * BEGIN…COMMIT that no other caller may slip into; plain reads run at once. Writes wait for a lock by short synchronous tries with pauses
 * between them, so a locked database never blocks the event loop for long, and answer
 * `database_busy` after about a second.
 */
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { MIGRATIONS, TABLES, type Table, type TableName } from '../schema';
import {
  StoreOpenError,
  StoreUnavailable,
  type MessageRow,
  type MessageStamp,
  type NewMessage,
  type NewUsage,
  type ReadSnapshot,
  type SessionRow,
  type Store,
  type UsageRow,
  type WorkspaceRow,
} from '../store';
import { columnText } from '../column-text';
import { migrationSql } from './ddl';

export interface SqliteOptions {
  readOnly?: boolean;
  /** Give up on a locked database after this long (default 1 s). */
  busyBudgetMs?: number;
}

const BUSY_TRY_MS = 25;

export async function openSqlite(path: string, options: SqliteOptions = {}): Promise<SqliteStore> {
  const file = resolve(path);
  if (options.readOnly && !existsSync(file)) {
    throw new StoreOpenError(`database not found: ${file}`, 'database_not_found');
  }
  let db: Database;
  try {
    if (!options.readOnly) {
      const parent = dirname(file);
      if (!existsSync(parent)) throw new StoreOpenError(`folder not found: ${parent}`, 'database_not_found');
      if (existsSync(file) && !statSync(file).isFile()) {
        throw new StoreOpenError(`not a database file: ${file}`, 'database_unreadable');
      }
    } else if (!statSync(file).isFile()) {
      // A FIFO or a device would block or never end.
      throw new StoreOpenError(`not a database file: ${file}`, 'database_unreadable');
    }
    db = new BetterSqlite3(file, options.readOnly ? { readonly: true, fileMustExist: true } : {});
    db.pragma(`busy_timeout = ${BUSY_TRY_MS}`);
    if (!options.readOnly) {
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      migrate(db);
    } else db.pragma('schema_version'); // fails here, with the path, if the file is not a database
  } catch (error) {
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError(
      `cannot open database ${file}: ${error instanceof Error ? error.message : String(error)}`,
      'database_unreadable',
      { cause: error },
    );
  }
  return new SqliteStore(db, file, options);
}

/** Brings the database to the current schema. Idempotent; refuses a database from the future. */
function migrate(db: Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new StoreOpenError(
      `database schema version ${current} is newer than this program's (${MIGRATIONS.length})`,
      'database_unreadable',
    );
  }
  db.transaction(() => {
    for (let version = current; version < MIGRATIONS.length; version++) {
      db.exec(migrationSql(MIGRATIONS[version]!));
      db.pragma(`user_version = ${version + 1}`);
    }
  }).immediate();
}

/** A BLOB in a JSON column (another writer's) as the text it holds, so every backend can take it. */
function textColumns(row: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Uint8Array) row[key] = columnText(value).text;
  }
  return row;
}

/** A column's value when it is a number, else NULL (rows from other writers may hold text). */
const NUMERIC = (column: string) => `CASE WHEN typeof(${column}) IN ('integer', 'real') THEN ${column} END`;

const isBusy = (error: unknown): boolean =>
  typeof (error as { code?: unknown })?.code === 'string' &&
  /^SQLITE_(BUSY|LOCKED)/.test((error as { code: string }).code);

export class SqliteStore implements Store {
  readonly backend = 'sqlite' as const;
  private readonly statements = new Map<string, Statement>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly inode: number;

  constructor(
    readonly db: Database,
    readonly location: string,
    private readonly options: SqliteOptions,
  ) {
    this.inode = statSync(location).ino;
  }

  private sql(text: string): Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  /** Runs `work` when every earlier operation of this connection is done. */
  private exclusive<T>(work: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(() => work());
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** A write, retried while the database is locked, never for more than the busy budget. */
  private async write<T>(work: () => T): Promise<T> {
    this.checkFile();
    const deadline = Date.now() + (this.options.busyBudgetMs ?? 1000);
    for (let attempt = 0; ; attempt++) {
      try {
        return work();
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (Date.now() >= deadline) {
          throw new StoreUnavailable(
            'The database is busy (locked by another writer): try again shortly',
            'database_busy',
            {
              cause: error,
            },
          );
        }
        await new Promise((done) => setTimeout(done, Math.min(100, 10 * 2 ** attempt)));
      }
    }
  }

  /** A database file deleted or replaced under a running server would swallow writes. */
  private checkFile(): void {
    let ino: number | null = null;
    try {
      ino = statSync(this.location).ino;
    } catch {
      // gone
    }
    if (ino !== this.inode) {
      throw new StoreUnavailable(`The database file ${this.location} was removed or replaced`, 'database_unavailable');
    }
  }

  resolveRoot(rootPath: string): string {
    return isAbsolute(rootPath) ? rootPath : resolve(dirname(this.location), rootPath);
  }

  // --- reads -------------------------------------------------------------------------------

  async userIdForTokenHash(tokenSha256: string): Promise<string | null> {
    const row = this.sql('SELECT user_id FROM api_tokens WHERE token_sha256 = ?').get(tokenSha256) as
      { user_id: string } | undefined;
    return row?.user_id ?? null;
  }

  async workspaceForMember(workspaceId: string, userId: string): Promise<WorkspaceRow | null> {
    const row = this.sql(
      `SELECT w.id, w.name, w.root_path, w.created_at FROM workspaces w
         JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = ?
         WHERE w.id = ?`,
    ).get(userId, workspaceId) as WorkspaceRow | undefined;
    return row ?? null;
  }

  async workspacesForMember(userId: string): Promise<WorkspaceRow[]> {
    return this.sql(
      `SELECT w.id, w.name, w.root_path, w.created_at FROM workspaces w
         JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = ? ORDER BY w.id`,
    ).all(userId) as WorkspaceRow[];
  }

  async getWorkspace(id: string): Promise<WorkspaceRow | null> {
    const row = this.sql('SELECT id, name, root_path, created_at FROM workspaces WHERE id = ?').get(id) as
      WorkspaceRow | undefined;
    return row ?? null;
  }

  async listWorkspaces(): Promise<WorkspaceRow[]> {
    return this.sql('SELECT id, name, root_path, created_at FROM workspaces ORDER BY id').all() as WorkspaceRow[];
  }

  async listSessions(workspaceId: string): Promise<SessionRow[]> {
    // Activity: the latest of the messages' time_updated and the ACP rows' created_at (contract §5).
    // Only numbers count: SQLite sorts text above every number, so one row with a text time
    // would otherwise make its session the default forever.
    return this.sql(
      `SELECT session_id, SUM(n) AS message_count, COALESCE(MAX(t), 0) AS last_active FROM (
           SELECT session_id, COUNT(*) AS n, MAX(${NUMERIC('time_updated')}) AS t FROM messages_v2
             WHERE workspace_id = ? GROUP BY session_id
           UNION ALL
           SELECT session_id, 0 AS n, MAX(${NUMERIC('created_at')}) AS t FROM interaction_token_usage
             WHERE workspace_id = ? AND source = 'acp' GROUP BY session_id
         ) GROUP BY session_id ORDER BY last_active DESC, session_id DESC`,
    ).all(workspaceId, workspaceId) as SessionRow[];
  }

  async sessionExists(workspaceId: string, sessionId: string): Promise<boolean> {
    const row = this.sql(
      `SELECT 1 FROM messages_v2 WHERE workspace_id = ? AND session_id = ?
         UNION ALL
         SELECT 1 FROM interaction_token_usage WHERE workspace_id = ? AND session_id = ?
         LIMIT 1`,
    ).get(workspaceId, sessionId, workspaceId, sessionId);
    return row !== undefined;
  }

  async sessionOwner(sessionId: string): Promise<string | null> {
    const row = this.sql(
      `SELECT workspace_id FROM (
           SELECT workspace_id, ${NUMERIC('time_created')} AS t, 0 AS k FROM messages_v2 WHERE session_id = ?
           UNION ALL
           SELECT workspace_id, ${NUMERIC('created_at')} AS t, 1 AS k FROM interaction_token_usage WHERE session_id = ?
         ) ORDER BY t IS NULL, t, k, workspace_id LIMIT 1`,
    ).get(sessionId, sessionId) as { workspace_id: string } | undefined;
    return row?.workspace_id ?? null;
  }

  async listMessages(workspaceId: string, sessionId: string): Promise<MessageRow[]> {
    return this.sql(
      `SELECT id, workspace_id, session_id, time_created, time_updated, info, parts
         FROM messages_v2 WHERE workspace_id = ? AND session_id = ? ORDER BY id`,
    ).all(workspaceId, sessionId) as MessageRow[];
  }

  async acpUsageNewestFirst(workspaceId: string, sessionId: string, limit = 20): Promise<UsageRow[]> {
    return this.sql(
      `SELECT * FROM interaction_token_usage
         WHERE workspace_id = ? AND session_id = ? AND source = 'acp'
         ORDER BY ${NUMERIC('created_at')} DESC NULLS LAST, id DESC LIMIT ?`,
    ).all(workspaceId, sessionId, limit) as UsageRow[];
  }

  async messageStamps(workspaceId: string, sessionId: string): Promise<MessageStamp[]> {
    return this.sql(
      `SELECT id, time_updated FROM messages_v2 WHERE workspace_id = ? AND session_id = ? ORDER BY id`,
    ).all(workspaceId, sessionId) as MessageStamp[];
  }

  async messages(ids: readonly string[]): Promise<MessageRow[]> {
    const one = this.sql(
      `SELECT id, workspace_id, session_id, time_created, time_updated, info, parts FROM messages_v2 WHERE id = ?`,
    );
    return ids.flatMap((id) => (one.get(id) as MessageRow | undefined) ?? []);
  }

  snapshot<T>(work: (read: ReadSnapshot) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      this.db.exec('BEGIN');
      try {
        return await work(this);
      } finally {
        this.db.exec('COMMIT');
      }
    });
  }

  // --- writes ------------------------------------------------------------------------------

  /** The writes themselves, synchronous: queued below, or run inside an open transaction. */
  readonly now = {
    // An upsert replaces a message of the same session only: an id can never move a message
    // from another session or workspace (it is left as it is).
    insertMessage: (message: NewMessage, replace = false) =>
      this.sql(
        `INSERT INTO messages_v2
           (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES (?, ?, ?, ?, ?, ?, ?)${
             replace
               ? `
           ON CONFLICT (id) DO UPDATE SET time_created = excluded.time_created, time_updated = excluded.time_updated,
             info = excluded.info, parts = excluded.parts
           WHERE messages_v2.workspace_id = excluded.workspace_id AND messages_v2.session_id = excluded.session_id`
               : ''
           }`,
      ).run(
        message.id,
        message.workspaceId,
        message.sessionId,
        message.timeCreated,
        message.timeUpdated,
        JSON.stringify(message.info),
        JSON.stringify(message.parts),
      ),
    deleteMessage: (workspaceId: string, sessionId: string, id: string) =>
      this.sql('DELETE FROM messages_v2 WHERE id = ? AND workspace_id = ? AND session_id = ?').run(
        id,
        workspaceId,
        sessionId,
      ),
    insertUsage: (u: NewUsage) =>
      this.sql(
        `INSERT INTO interaction_token_usage
           (workspace_id, session_id, source, context_used, context_size, cost_amount, cost_currency, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        u.workspaceId,
        u.sessionId,
        u.source,
        u.contextUsed,
        u.contextSize,
        u.costAmount,
        u.costCurrency,
        u.createdAt,
      ),
    insertUser: (id: string, name: string) => this.sql('INSERT INTO users (id, name) VALUES (?, ?)').run(id, name),
    insertTokenHash: (tokenSha256: string, userId: string) =>
      this.sql('INSERT INTO api_tokens (token_sha256, user_id) VALUES (?, ?)').run(tokenSha256, userId),
    insertWorkspace: (row: WorkspaceRow) =>
      this.sql('INSERT INTO workspaces (id, name, root_path, created_at) VALUES (?, ?, ?, ?)').run(
        row.id,
        row.name,
        row.root_path,
        row.created_at,
      ),
    addMember: (workspaceId: string, userId: string) =>
      this.sql('INSERT INTO workspace_members (workspace_id, user_id) VALUES (?, ?)').run(workspaceId, userId),
    insertRows: (table: TableName, rows: readonly Record<string, unknown>[]) => {
      const columns = (TABLES[table] as Table).columns.map((c) => c.name);
      const insert = this.sql(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      );
      for (const row of rows) insert.run(...columns.map((c) => row[c] ?? null));
    },
  };

  private queued(work: () => unknown): Promise<void> {
    return this.exclusive(async () => {
      await this.write(work);
    });
  }

  insertMessage = (message: NewMessage) => this.queued(() => this.now.insertMessage(message));
  upsertMessage = (message: NewMessage) => this.queued(() => this.now.insertMessage(message, true));
  deleteMessage = (workspaceId: string, sessionId: string, id: string) =>
    this.queued(() => this.now.deleteMessage(workspaceId, sessionId, id));
  insertUsage = (usage: NewUsage) => this.queued(() => this.now.insertUsage(usage));
  insertUser = (id: string, name: string) => this.queued(() => this.now.insertUser(id, name));
  insertTokenHash = (hash: string, userId: string) => this.queued(() => this.now.insertTokenHash(hash, userId));
  insertWorkspace = (row: WorkspaceRow) => this.queued(() => this.now.insertWorkspace(row));
  addMember = (workspaceId: string, userId: string) => this.queued(() => this.now.addMember(workspaceId, userId));

  transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      await this.write(() => this.db.exec('BEGIN IMMEDIATE'));
      try {
        const result = await work(inTransaction(this));
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  async contentRows(): Promise<string[]> {
    const out: string[] = [];
    for (const name of Object.keys(TABLES)) {
      const rows = this.db.prepare(`SELECT * FROM ${name}`).all();
      out.push(`# ${name}`, ...rows.map((row) => JSON.stringify(row)).sort());
    }
    return out;
  }

  async *tableRows(table: TableName, batchSize = 1000): AsyncIterable<Record<string, unknown>[]> {
    const { primaryKey } = TABLES[table] as Table;
    let batch: Record<string, unknown>[] = [];
    for (const row of this.db.prepare(`SELECT * FROM ${table} ORDER BY ${primaryKey.join(', ')}`).iterate()) {
      batch.push(textColumns(row as Record<string, unknown>));
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }

  insertRows = (table: TableName, rows: readonly Record<string, unknown>[]) =>
    this.queued(() => this.db.transaction(() => this.now.insertRows(table, rows))());

  async ping(): Promise<void> {
    this.checkFile();
    this.sql('SELECT 1').get();
  }

  async checkWritable(): Promise<void> {
    await this.ping();
    if (this.db.readonly) throw new StoreUnavailable('the database is open read-only', 'database_read_only');
    // Takes the write lock and lets it go: fails on a read-only file or disk, writes nothing.
    await this.queued(() => {
      this.db.exec('BEGIN IMMEDIATE');
      this.db.exec('ROLLBACK');
    });
  }

  async close(): Promise<void> {
    await this.queue;
    this.db.close();
  }
}

/**
 * The store seen from inside an open transaction: writes run at once on the connection (the
 * queue is already held), snapshots and nested transactions are the transaction itself.
 */
function inTransaction(outer: SqliteStore): Store {
  const writes = {
    insertMessage: async (m: NewMessage) => void outer.now.insertMessage(m),
    upsertMessage: async (m: NewMessage) => void outer.now.insertMessage(m, true),
    deleteMessage: async (w: string, s: string, id: string) => void outer.now.deleteMessage(w, s, id),
    insertUsage: async (u: NewUsage) => void outer.now.insertUsage(u),
    insertUser: async (id: string, name: string) => void outer.now.insertUser(id, name),
    insertTokenHash: async (h: string, u: string) => void outer.now.insertTokenHash(h, u),
    insertWorkspace: async (row: WorkspaceRow) => void outer.now.insertWorkspace(row),
    addMember: async (w: string, u: string) => void outer.now.addMember(w, u),
    insertRows: async (t: TableName, rows: readonly Record<string, unknown>[]) => void outer.now.insertRows(t, rows),
  };
  const store: Store = Object.assign(Object.create(outer) as Store, writes, {
    snapshot: <T>(work: (read: ReadSnapshot) => Promise<T>) => work(store),
    transaction: <T>(work: (inner: Store) => Promise<T>) => work(store),
    close: async () => {},
  });
  return store;
}
