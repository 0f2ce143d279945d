/**
 * The storage interface on PostgreSQL (node-postgres), for teams: several server instances on
 * one database, report reads optionally on a replica. Same promises as the SQLite store:
 *
 * - the report reads inside one `REPEATABLE READ READ ONLY` transaction (one snapshot);
 * - a read-only store's sessions are read-only (`default_transaction_read_only`), so no code
 *   path on it can write;
 * - an unreachable database is `database_unavailable` (503), a lock held too long
 *   `database_busy` (503); a wrong URL or password one line, never the password itself.
 *
 * JSON columns are JSONB; they are read back as text (`::text`) so every backend hands the
 * engine the same thing. JSONB cannot hold U+0000: it is stored as U+FFFD (docs/deploy.md).
 */
import pg from 'pg';
import { isAbsolute, resolve } from 'node:path';
import { redact } from '../redact';
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
import { migrationSql, VERSION_TABLE } from './ddl';

export interface PostgresOptions {
  readOnly: boolean;
  /** Where relative workspace roots live (a database has no folder of its own). */
  dataDir?: string | undefined;
  /** Connections per store (default 10). */
  maxConnections?: number;
}

/** Ids per query for reads by id (well under PostgreSQL's limits, few round trips). */
const BATCH = 5000;

// BIGINT (times in milliseconds, counts) as numbers: every value this program stores is far below 2^53.
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

type Query = <R>(text: string, values?: unknown[]) => Promise<R[]>;

export async function openPostgres(url: string, options: PostgresOptions): Promise<PostgresStore> {
  const location = redact(url);
  let config: pg.PoolConfig;
  try {
    new URL(url); // validates before pg echoes it anywhere
    config = {
      connectionString: url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
      // A write never waits long for a lock (503 database_busy instead); a runaway query is stopped.
      options: `-c lock_timeout=1000 -c statement_timeout=60000${options.readOnly ? ' -c default_transaction_read_only=on' : ''}`,
      application_name: options.readOnly ? 'investibook (read-only)' : 'investibook',
      types,
    };
  } catch {
    throw new StoreOpenError(`not a valid database URL: ${location}`, 'database_url_invalid');
  }
  const pool = new pg.Pool(config);
  // An idle connection that dies (database restarted) must not take the process with it; the
  // next query reconnects or answers 503.
  pool.on('error', () => {});
  const store = new PostgresStore(pool, location, options);
  try {
    // Either one is the first round trip: a database that cannot be reached fails here.
    if (options.readOnly) await store.checkSchema();
    else await store.migrate();
  } catch (error) {
    await pool.end().catch(() => {});
    if (error instanceof StoreUnavailable || error instanceof StoreOpenError) {
      throw new StoreOpenError(`cannot open database ${location}: ${error.message}`, 'database_unreadable', {
        cause: error,
      });
    }
    throw error;
  }
  return store;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EPIPE']);

/** node-postgres and server errors as the store's own (messages never carry the URL). */
function storeError(error: unknown): unknown {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (
    (typeof code === 'string' && (CONNECTION_CODES.has(code) || /^(08|57P0)/.test(code))) ||
    /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED/i.test(message)
  ) {
    return new StoreUnavailable(`the database is unreachable (${code ?? message})`, 'database_unavailable', {
      cause: error,
    });
  }
  if (code === '55P03' || code === '40001' || code === '40P01') {
    return new StoreUnavailable('The database is busy (a lock was held too long): try again shortly', 'database_busy', {
      cause: error,
    });
  }
  if (code === '28P01' || code === '28000' || code === '3D000') {
    return new StoreOpenError(message, 'database_unreadable', { cause: error });
  }
  return error;
}

/** JSON text for a JSONB column: JSONB cannot hold U+0000, so it becomes U+FFFD. */
function jsonText(value: unknown): string {
  return withoutNul(JSON.stringify(value));
}

const withoutNul = (json: string): string => json.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1\\ufffd');

/**
 * A copied JSON column (text from another database): kept as it is when it is JSON, else kept as
 * a JSON string, so nothing is lost and the report warns about it as it did before.
 */
function jsonColumn(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  try {
    JSON.parse(text);
    return withoutNul(text);
  } catch {
    return jsonText(text);
  }
}

/** Every read, over a pool or over the one connection of a snapshot. */
class PgReads implements ReadSnapshot {
  constructor(protected readonly query: Query) {}

  async getWorkspace(id: string): Promise<WorkspaceRow | null> {
    const [row] = await this.query<WorkspaceRow>(
      'SELECT id, name, root_path, created_at FROM workspaces WHERE id = $1',
      [id],
    );
    return row ?? null;
  }

  async listSessions(workspaceId: string): Promise<SessionRow[]> {
    // Activity: the latest of the messages' time_updated and the ACP rows' created_at (contract §5).
    return this.query<SessionRow>(
      `SELECT session_id, SUM(n)::bigint AS message_count, COALESCE(MAX(t), 0)::bigint AS last_active FROM (
           SELECT session_id, COUNT(*) AS n, MAX(time_updated) AS t FROM messages_v2
             WHERE workspace_id = $1 GROUP BY session_id
           UNION ALL
           SELECT session_id, 0 AS n, MAX(created_at) AS t FROM interaction_token_usage
             WHERE workspace_id = $1 AND source = 'acp' GROUP BY session_id
         ) activity GROUP BY session_id ORDER BY last_active DESC, session_id DESC`,
      [workspaceId],
    );
  }

  async sessionExists(workspaceId: string, sessionId: string): Promise<boolean> {
    const rows = await this.query(
      `SELECT 1 FROM messages_v2 WHERE workspace_id = $1 AND session_id = $2
         UNION ALL
         SELECT 1 FROM interaction_token_usage WHERE workspace_id = $1 AND session_id = $2
         LIMIT 1`,
      [workspaceId, sessionId],
    );
    return rows.length > 0;
  }

  async sessionOwner(sessionId: string): Promise<string | null> {
    const [row] = await this.query<{ workspace_id: string }>(
      `SELECT workspace_id FROM (
           SELECT workspace_id, time_created AS t, 0 AS k FROM messages_v2 WHERE session_id = $1
           UNION ALL
           SELECT workspace_id, created_at AS t, 1 AS k FROM interaction_token_usage WHERE session_id = $1
         ) named ORDER BY t, k, workspace_id LIMIT 1`,
      [sessionId],
    );
    return row?.workspace_id ?? null;
  }

  async acpUsageNewestFirst(workspaceId: string, sessionId: string, limit = 20): Promise<UsageRow[]> {
    return this.query<UsageRow>(
      `SELECT id, workspace_id, session_id, source, context_used, context_size, cost_amount, cost_currency, created_at
         FROM interaction_token_usage
         WHERE workspace_id = $1 AND session_id = $2 AND source = 'acp'
         ORDER BY created_at DESC, id DESC LIMIT $3`,
      [workspaceId, sessionId, limit],
    );
  }

  async messageStamps(workspaceId: string, sessionId: string): Promise<MessageStamp[]> {
    // xmin changes with every update of the row: another instance's change is never missed.
    return this.query<MessageStamp>(
      `SELECT id, time_updated, xmin::text AS version FROM messages_v2
         WHERE workspace_id = $1 AND session_id = $2 ORDER BY id`,
      [workspaceId, sessionId],
    );
  }

  async messages(ids: readonly string[]): Promise<MessageRow[]> {
    return this.byIds<MessageRow>(
      ids,
      `SELECT id, workspace_id, session_id, time_created, time_updated, info::text AS info, parts::text AS parts
         FROM messages_v2 WHERE id = ANY($1)`,
    );
  }

  /** Rows for some ids, in the order of the ids, missing ones left out. */
  private async byIds<R extends { id: string }>(ids: readonly string[], sql: string): Promise<R[]> {
    const found = new Map<string, R>();
    for (let start = 0; start < ids.length; start += BATCH) {
      for (const row of await this.query<R>(sql, [ids.slice(start, start + BATCH)])) found.set(row.id, row);
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }
}

export class PostgresStore extends PgReads implements Store {
  readonly backend = 'postgres' as const;

  constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
    private readonly options: PostgresOptions,
  ) {
    super(queryOn(pool));
  }

  resolveRoot(rootPath: string): string {
    return isAbsolute(rootPath) ? rootPath : resolve(this.options.dataDir ?? 'data', rootPath);
  }

  async userIdForTokenHash(tokenSha256: string): Promise<string | null> {
    const [row] = await this.query<{ user_id: string }>('SELECT user_id FROM api_tokens WHERE token_sha256 = $1', [
      tokenSha256,
    ]);
    return row?.user_id ?? null;
  }

  async workspaceForMember(workspaceId: string, userId: string): Promise<WorkspaceRow | null> {
    const [row] = await this.query<WorkspaceRow>(
      `SELECT w.id, w.name, w.root_path, w.created_at FROM workspaces w
         JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = $2
         WHERE w.id = $1`,
      [workspaceId, userId],
    );
    return row ?? null;
  }

  async workspacesForMember(userId: string): Promise<WorkspaceRow[]> {
    return this.query<WorkspaceRow>(
      `SELECT w.id, w.name, w.root_path, w.created_at FROM workspaces w
         JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = $1 ORDER BY w.id`,
      [userId],
    );
  }

  async listWorkspaces(): Promise<WorkspaceRow[]> {
    return this.query<WorkspaceRow>('SELECT id, name, root_path, created_at FROM workspaces ORDER BY id');
  }

  async listMessages(workspaceId: string, sessionId: string): Promise<MessageRow[]> {
    return this.query<MessageRow>(
      `SELECT id, workspace_id, session_id, time_created, time_updated, info::text AS info, parts::text AS parts
         FROM messages_v2 WHERE workspace_id = $1 AND session_id = $2 ORDER BY id`,
      [workspaceId, sessionId],
    );
  }

  async snapshot<T>(work: (read: ReadSnapshot) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const result = await work(new PgReads(queryOn(client)));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }

  async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const inner = Object.assign(Object.create(this) as PostgresStore, {
          query: queryOn(client),
          transaction: <U>(nested: (store: Store) => Promise<U>) => nested(inner),
          snapshot: <U>(read: (snapshot: ReadSnapshot) => Promise<U>) => read(inner),
        });
        const result = await work(inner);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }

  async insertMessage(message: NewMessage): Promise<void> {
    await this.writeMessage(message, false);
  }

  async upsertMessage(message: NewMessage): Promise<void> {
    await this.writeMessage(message, true);
  }

  private async writeMessage(m: NewMessage, replace: boolean): Promise<void> {
    await this.query(
      `INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)
         ${
           replace
             ? `ON CONFLICT (id) DO UPDATE SET time_created = EXCLUDED.time_created,
                  time_updated = EXCLUDED.time_updated, info = EXCLUDED.info, parts = EXCLUDED.parts
                WHERE messages_v2.workspace_id = EXCLUDED.workspace_id
                  AND messages_v2.session_id = EXCLUDED.session_id`
             : ''
         }`,
      [m.id, m.workspaceId, m.sessionId, m.timeCreated, m.timeUpdated, jsonText(m.info), jsonText(m.parts)],
    );
  }

  async deleteMessage(workspaceId: string, sessionId: string, id: string): Promise<void> {
    await this.query('DELETE FROM messages_v2 WHERE id = $1 AND workspace_id = $2 AND session_id = $3', [
      id,
      workspaceId,
      sessionId,
    ]);
  }

  async insertUsage(u: NewUsage): Promise<void> {
    await this.query(
      `INSERT INTO interaction_token_usage
         (workspace_id, session_id, source, context_used, context_size, cost_amount, cost_currency, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [u.workspaceId, u.sessionId, u.source, u.contextUsed, u.contextSize, u.costAmount, u.costCurrency, u.createdAt],
    );
  }

  async insertUser(id: string, name: string): Promise<void> {
    await this.query('INSERT INTO users (id, name) VALUES ($1, $2)', [id, name]);
  }

  async insertTokenHash(tokenSha256: string, userId: string): Promise<void> {
    await this.query('INSERT INTO api_tokens (token_sha256, user_id) VALUES ($1, $2)', [tokenSha256, userId]);
  }

  async insertWorkspace(row: WorkspaceRow): Promise<void> {
    await this.query('INSERT INTO workspaces (id, name, root_path, created_at) VALUES ($1, $2, $3, $4)', [
      row.id,
      row.name,
      row.root_path,
      row.created_at,
    ]);
  }

  async addMember(workspaceId: string, userId: string): Promise<void> {
    await this.query('INSERT INTO workspace_members (workspace_id, user_id) VALUES ($1, $2)', [workspaceId, userId]);
  }

  async contentRows(): Promise<string[]> {
    const out: string[] = [];
    for (const name of Object.keys(TABLES)) {
      const rows = await this.query(`SELECT * FROM ${name}`);
      out.push(`# ${name}`, ...rows.map((row) => JSON.stringify(row)).sort());
    }
    return out;
  }

  async *tableRows(table: TableName, batchSize = 1000): AsyncIterable<Record<string, unknown>[]> {
    const { columns, primaryKey } = TABLES[table] as Table;
    const select = columns.map((c) => (c.type === 'json' ? `${c.name}::text AS ${c.name}` : c.name)).join(', ');
    const key = `(${primaryKey.join(', ')})`;
    let after: unknown[] | null = null;
    for (;;) {
      const where: string = after ? `WHERE ${key} > (${primaryKey.map((_, i) => `$${i + 2}`).join(', ')})` : '';
      const rows: Record<string, unknown>[] = await this.query(
        `SELECT ${select} FROM ${table} ${where} ORDER BY ${primaryKey.join(', ')} LIMIT $1`,
        [batchSize, ...(after ?? [])],
      );
      if (rows.length === 0) return;
      yield rows;
      const last = rows[rows.length - 1]!;
      after = primaryKey.map((k) => last[k]);
    }
  }

  async insertRows(table: TableName, rows: readonly Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    const { columns } = TABLES[table] as Table;
    const values = (row: Record<string, unknown>) =>
      columns.map((c) => (c.type === 'json' ? jsonColumn(row[c.name]) : (row[c.name] ?? null)));
    const placeholders = (r: number) =>
      `(${columns.map((c, i) => `$${r * columns.length + i + 1}${c.type === 'json' ? '::jsonb' : ''}`).join(', ')})`;
    const perStatement = Math.max(1, Math.floor(30_000 / columns.length));
    await this.transaction(async (tx) => {
      for (let start = 0; start < rows.length; start += perStatement) {
        const chunk = rows.slice(start, start + perStatement);
        await (tx as PostgresStore).query(
          `INSERT INTO ${table} (${columns.map((c) => c.name).join(', ')}) OVERRIDING SYSTEM VALUE
             VALUES ${chunk.map((_, r) => placeholders(r)).join(', ')}`,
          chunk.flatMap(values),
        );
      }
      if (columns.some((c) => c.serial)) {
        // Identity columns continue after the copied ids.
        const serial = columns.find((c) => c.serial)!.name;
        await (tx as PostgresStore).query(
          `SELECT setval(pg_get_serial_sequence('${table}', '${serial}'), (SELECT COALESCE(MAX(${serial}), 0) + 1 FROM ${table}), false)`,
        );
      }
    });
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  async checkWritable(): Promise<void> {
    const [row] = await this.query<{ read_only: string }>(
      "SELECT current_setting('transaction_read_only') AS read_only",
    );
    if (row?.read_only === 'on') {
      throw new StoreUnavailable('the database accepts no writes (read-only)', 'database_read_only');
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Brings the database to the current schema, one instance at a time (an advisory lock). */
  async migrate(): Promise<void> {
    await this.withClient(async (client) => {
      const query = queryOn(client);
      await query('BEGIN');
      try {
        await query("SELECT pg_advisory_xact_lock(hashtext('investibook schema'))");
        await query(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (version integer NOT NULL)`);
        const [row] = await query<{ version: number }>(`SELECT version FROM ${VERSION_TABLE}`);
        const current = row?.version ?? 0;
        if (current > MIGRATIONS.length) {
          throw new StoreOpenError(
            `database schema version ${current} is newer than this program's (${MIGRATIONS.length})`,
            'database_unreadable',
          );
        }
        for (let version = current; version < MIGRATIONS.length; version++) {
          for (const statement of migrationSql(MIGRATIONS[version]!)) await query(statement);
        }
        if (!row) await query(`INSERT INTO ${VERSION_TABLE} (version) VALUES ($1)`, [MIGRATIONS.length]);
        else await query(`UPDATE ${VERSION_TABLE} SET version = $1`, [MIGRATIONS.length]);
        await query('COMMIT');
      } catch (error) {
        await query('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }

  /** A read-only store cannot migrate: it says so when the schema is not there yet. */
  async checkSchema(): Promise<void> {
    const [row] = await this.query<{ present: string | null }>(
      `SELECT to_regclass('${VERSION_TABLE}')::text AS present`,
    );
    if (!row?.present) {
      throw new StoreOpenError(
        'no investibook tables in this database yet: run `investibook db init --database-url URL` (or start the server once)',
        'database_not_found',
      );
    }
  }

  private async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw storeError(error);
    }
    try {
      return await work(client);
    } finally {
      client.release();
    }
  }
}

function queryOn(target: pg.Pool | pg.PoolClient): Query {
  return async <R>(text: string, values?: unknown[]) => {
    try {
      return (await target.query(text, values)).rows as R[];
    } catch (error) {
      throw storeError(error);
    }
  };
}
