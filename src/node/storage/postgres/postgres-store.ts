/**
 * The storage interface on PostgreSQL (node-postgres's pool under Kysely's PostgresDialect), for
 * teams: several server instances on one database, report reads optionally on a replica. The
 * queries are those of sql/queries.ts; the same promises as the SQLite store:
 *
 * - the report reads inside one `REPEATABLE READ READ ONLY` transaction (one snapshot);
 * - a read-only store's sessions are read-only (`default_transaction_read_only`), so no code
 *   path on it can write;
 * - every call is bounded: getting a connection and each query (client-side, so a frozen server
 *   cannot hang a request) answer `database_timeout` (503) after ~3 s; an unreachable database is
 *   `database_unavailable`, a lock held too long `database_busy`, a read-only server
 *   `database_read_only` (503); a wrong URL or password one line, never the password itself.
 */
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { isAbsolute, resolve } from 'node:path';
import { redact } from '../redact';
import type { Database as Tables } from '../sql/database';
import { migrateToLatest } from '../sql/migrations';
import { Queries } from '../sql/queries';
import { SqlReads, SqlStore, type Runner } from '../sql/sql-store';
import { StoreOpenError, StoreUnavailable, StoreValueError, type ReadSnapshot, type Store } from '../store';
import { postgresDialect } from './dialect';
import { ConnectionGate, kyselyPool, QueryTimeout } from './pool';

export interface PostgresOptions {
  readOnly: boolean;
  /** Where relative workspace roots live (a database has no folder of its own). */
  dataDir?: string | undefined;
  /** Connections per store (default 10). */
  maxConnections?: number;
  /** Bound on one query, checked by the client too (default 3 s): then `database_timeout`. */
  queryTimeoutMs?: number;
  /** Bound on getting a connection, a new one included (default 3 s): then `database_timeout`. */
  connectTimeoutMs?: number;
  /**
   * Bound on waiting for a free connection while all are busy (default 15 s), before the
   * connecting itself: then `database_timeout`. A burst queues rather than fails.
   */
  queueTimeoutMs?: number;
  /** Bound on each statement of a migration at open (default 5 min: an index on a large table). */
  migrationTimeoutMs?: number;
}

/** Where the schema version is kept for older programs (SQLite keeps it in PRAGMA user_version). */
export const VERSION_TABLE = 'investibook_schema';
const SCHEMA_LOCK = sql`hashtext('investibook schema')`;

// BIGINT (times in milliseconds, counts) as numbers: every value this program stores is far below 2^53.
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export async function openPostgres(url: string, options: PostgresOptions): Promise<PostgresStore> {
  const location = redact(url);
  const queryTimeoutMs = options.queryTimeoutMs ?? 3000;
  const poolConfig = (statementTimeoutMs: number, lockTimeoutMs: number): pg.PoolConfig => ({
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 3000,
    idleTimeoutMillis: 30_000,
    // A write never waits long for a lock (503 database_busy instead); a runaway query is stopped
    // by the server too, just before the client gives up on it.
    options: `-c lock_timeout=${lockTimeoutMs} -c statement_timeout=${statementTimeoutMs}${options.readOnly ? ' -c default_transaction_read_only=on' : ''}`,
    application_name: options.readOnly ? 'investibook (read-only)' : 'investibook',
    types,
  });
  try {
    new URL(url); // validates before pg echoes it anywhere
  } catch {
    throw new StoreOpenError(`not a valid database URL: ${location}`, 'database_url_invalid');
  }
  const max = options.maxConnections ?? 10;
  const pool = new pg.Pool({ ...poolConfig(queryTimeoutMs, 1000), max });
  // An idle connection that dies (database restarted) must not take the process with it; the
  // next query reconnects or answers 503.
  pool.on('error', () => {});
  const gate = new ConnectionGate(max, options.queueTimeoutMs ?? 15_000);
  const store = new PostgresStore(pool, location, options, queryTimeoutMs + 250, gate);
  try {
    // Either one is the first round trip: a database that cannot be reached fails here.
    if (options.readOnly) await store.checkSchema();
    else {
      // Migrations wait for another instance's (the lock) and may build indexes on large tables.
      const migrationTimeoutMs = options.migrationTimeoutMs ?? 300_000;
      const migrationPool = new pg.Pool({ ...poolConfig(migrationTimeoutMs, migrationTimeoutMs), max: 1 });
      migrationPool.on('error', () => {});
      const db = new Kysely<unknown>({
        dialect: new PostgresDialect({ pool: kyselyPool(migrationPool, migrationTimeoutMs + 250) }),
      });
      try {
        await store.mapped(() => migrate(db));
      } finally {
        await db.destroy();
        if (!migrationPool.ended) await migrationPool.end();
      }
    }
  } catch (error) {
    await store.close().catch(() => {});
    if (error instanceof StoreUnavailable || error instanceof StoreOpenError) {
      throw new StoreOpenError(`cannot open database ${location}: ${error.message}`, 'database_unreadable', {
        cause: error,
      });
    }
    throw error;
  }
  return store;
}

/**
 * Brings the database to the current schema, one instance at a time: an advisory lock on one
 * connection around the Migrator and the version row (the key older programs lock too).
 */
async function migrate(db: Kysely<unknown>): Promise<void> {
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${SCHEMA_LOCK})`.execute(connection);
    try {
      await migrateToLatest(connection, {
        dialect: postgresDialect,
        transactions: true,
        legacy: {
          async read() {
            await sql`create table if not exists ${sql.table(VERSION_TABLE)} (version integer not null)`.execute(
              connection,
            );
            const { rows } = await sql<{ version: number }>`select version from ${sql.table(VERSION_TABLE)}`.execute(
              connection,
            );
            return rows[0]?.version ?? 0;
          },
          async write(version) {
            const updated = await sql`update ${sql.table(VERSION_TABLE)} set version = ${version}`.execute(connection);
            if (!updated.numAffectedRows) {
              await sql`insert into ${sql.table(VERSION_TABLE)} (version) values (${version})`.execute(connection);
            }
          },
        },
      });
    } finally {
      await sql`select pg_advisory_unlock(${SCHEMA_LOCK})`.execute(connection);
    }
  });
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EPIPE']);

/** node-postgres and server errors as the store's own (messages never carry the URL). */
export function storeError(error: unknown): unknown {
  if (error instanceof StoreUnavailable || error instanceof StoreOpenError || error instanceof StoreValueError) {
    return error;
  }
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  // A query the client gave up on, a connection not had in time, a statement the server stopped.
  if (
    error instanceof QueryTimeout ||
    code === '57014' ||
    /timeout exceeded when trying to connect|Connection terminated due to connection timeout/i.test(message)
  ) {
    return new StoreUnavailable(`the database did not answer in time (${message})`, 'database_timeout', {
      cause: error,
    });
  }
  if (
    (typeof code === 'string' && (CONNECTION_CODES.has(code) || /^(08|57P0)/.test(code))) ||
    /Connection terminated|connect ECONNREFUSED/i.test(message)
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
  if (code === '25006') {
    return new StoreUnavailable(`the database accepts no writes: ${message}`, 'database_read_only', { cause: error });
  }
  if (code === '53100')
    return new StoreUnavailable('the database server’s disk is full', 'disk_full', { cause: error });
  // Text PostgreSQL cannot hold (U+0000) that got past the store's own check.
  if (code === '22021' || code === '22P05') {
    return new StoreValueError(`the database cannot store this value: ${message}`, 'unstorable_value', {
      cause: error,
    });
  }
  if (code === '28P01' || code === '28000' || code === '3D000') {
    return new StoreOpenError(message, 'database_unreadable', { cause: error });
  }
  return error;
}

export class PostgresStore extends SqlStore {
  readonly backend = 'postgres' as const;
  private readonly kysely: Kysely<Tables>;

  constructor(
    private readonly pool: pg.Pool,
    readonly location: string,
    private readonly options: PostgresOptions,
    queryTimeoutMs: number,
    gate: ConnectionGate,
  ) {
    const kysely = new Kysely<Tables>({
      dialect: new PostgresDialect({ pool: kyselyPool(pool, queryTimeoutMs, gate) }),
    });
    const mapped = <T>(work: () => Promise<T>) => work().catch((error: unknown) => Promise.reject(storeError(error)));
    const run: Runner = { read: mapped, write: mapped };
    super(kysely, new Queries(postgresDialect), run);
    this.kysely = kysely;
  }

  /** Runs work with node-postgres's errors in the store's words. */
  mapped<T>(work: () => Promise<T>): Promise<T> {
    return this.run.read(work);
  }

  resolveRoot(rootPath: string): string {
    return isAbsolute(rootPath) ? rootPath : resolve(this.options.dataDir ?? 'data', rootPath);
  }

  snapshot<T>(work: (read: ReadSnapshot) => Promise<T>): Promise<T> {
    return this.mapped(() =>
      this.kysely
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute((trx) => work(new SqlReads(trx, this.queries, this.run))),
    );
  }

  transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.mapped(() => this.kysely.transaction().execute((trx) => work(this.within(trx, this.run))));
  }

  async checkWritable(): Promise<void> {
    const { rows } = await this.mapped(() =>
      sql<{ read_only: string }>`select current_setting('transaction_read_only') as read_only`.execute(this.kysely),
    );
    if (rows[0]?.read_only === 'on') {
      throw new StoreUnavailable('the database accepts no writes (read-only)', 'database_read_only');
    }
  }

  /** A read-only store cannot migrate: it says so when the schema is not there yet. */
  async checkSchema(): Promise<void> {
    const { rows } = await this.mapped(() =>
      sql<{ present: string | null }>`select to_regclass(${VERSION_TABLE})::text as present`.execute(this.kysely),
    );
    if (!rows[0]?.present) {
      throw new StoreOpenError(
        'no investibook tables in this database yet: run `investibook db init --database-url URL` (or start the server once)',
        'database_not_found',
      );
    }
  }

  async close(): Promise<void> {
    await this.kysely.destroy();
    if (!this.pool.ended) await this.pool.end();
  }
}
