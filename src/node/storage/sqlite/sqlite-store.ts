/**
 * The storage interface on an embedded SQLite file: better-sqlite3 under Kysely's SqliteDialect,
 * the queries of sql/queries.ts, prepared once per SQL text. One connection: Kysely runs its
 * statements one at a time, and a snapshot or a transaction holds the connection from BEGIN to
 * COMMIT so no other caller slips into it. Writes wait for a lock by short synchronous tries with
 * pauses between them (the connection free meanwhile), so a locked database never blocks the
 * event loop for long, and answer `database_busy` after about a second.
 *
 * A write that cannot be made says why: a read-only file or disk `database_read_only`, a full
 * disk `disk_full`, a file deleted or replaced under the server `database_unavailable`. Nothing
 * written before is touched; once the disk is writable again, so is the store.
 */
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type SqliteDatabase } from 'kysely';
import { accessSync, closeSync, constants, existsSync, openSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { type Database as Tables } from '../sql/database';
import { migrateToLatest } from '../sql/migrations';
import { Queries } from '../sql/queries';
import { SqlReads, SqlStore, type Runner } from '../sql/sql-store';
import {
  StoreOpenError,
  StoreUnavailable,
  StoreValueError,
  type ReadSnapshot,
  type Store,
  type UnavailableCode,
} from '../store';
import { sqliteDialect } from './dialect';

export interface SqliteOptions {
  readOnly?: boolean;
  /** Give up on a locked database after this long (default 1 s). */
  busyBudgetMs?: number;
  /** Less free space than this on the database's disk is a full disk for checkWritable (default 1 MiB). */
  minFreeBytes?: number;
}

const BUSY_TRY_MS = 25;
const MIN_FREE_BYTES = 1 << 20;
const STATEMENTS_KEPT = 256;
/** How much of a read-only database a snapshot maps (SQLite maps no more than the file holds). */
const SNAPSHOT_MAP_BYTES = 1 << 30;

/** A database in memory only (`debug context --export`: nothing of the export on disk, nothing left if killed). */
export const IN_MEMORY = ':memory:';

export async function openSqlite(path: string, options: SqliteOptions = {}): Promise<SqliteStore> {
  if (path === IN_MEMORY) return migrated(new SqliteStore(new BetterSqlite3(IN_MEMORY), IN_MEMORY, {}), IN_MEMORY);
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
      // A new database is owner-only (SQLite would make it 0644); its -wal and -shm take its mode.
      if (!existsSync(file)) closeSync(openSync(file, 'wx', 0o600));
    } else if (!statSync(file).isFile()) {
      // A FIFO or a device would block or never end.
      throw new StoreOpenError(`not a database file: ${file}`, 'database_unreadable');
    }
    db = options.readOnly ? openReading(file) : new BetterSqlite3(file);
    db.pragma(`busy_timeout = ${BUSY_TRY_MS}`);
    if (!options.readOnly) {
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
    } else db.pragma('schema_version'); // fails here, with the path, if the file is not a database
  } catch (error) {
    if (error instanceof StoreOpenError) throw error;
    const readOnly = options.readOnly ? null : unwritable(file);
    if (readOnly)
      throw new StoreOpenError(
        `the database ${file} cannot be written: ${readOnly}; nothing was written`,
        'database_read_only',
        { cause: error },
      );
    throw cannotOpen(file, error);
  }
  const store = new SqliteStore(db, file, options);
  return options.readOnly ? store : migrated(store, file);
}

async function migrated(store: SqliteStore, file: string): Promise<SqliteStore> {
  try {
    await store.migrate();
  } catch (error) {
    await store.close().catch(() => {});
    if (error instanceof StoreOpenError) throw error;
    throw cannotOpen(file, error);
  }
  return store;
}

/**
 * A database to read. A WAL database needs its -shm beside it, which a read-only mount cannot
 * hold: there it is read whole into memory instead (its header set back to the rollback
 * journal, which an in-memory database reads), so the report still answers.
 */
function openReading(file: string): Database {
  try {
    const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    db.pragma('schema_version');
    return db;
  } catch (error) {
    if (sqliteCode(error) !== 'SQLITE_CANTOPEN' || !unwritable(file)) throw error;
    const image = readFileSync(file);
    // Bytes 18 and 19: the file format's write and read versions (2 = WAL, 1 = rollback journal).
    if (image.length >= 20 && image[18] === 2 && image[19] === 2) image.set([1, 1], 18);
    return new BetterSqlite3(image, { readonly: true });
  }
}

/** Why the database's file or folder cannot be written (a read-only disk, no permission), or null. */
function unwritable(file: string): string | null {
  for (const path of existsSync(file) ? [dirname(file), file] : [dirname(file)]) {
    try {
      accessSync(path, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EROFS') return `${path} is on a read-only disk (EROFS)`;
      if (code === 'EACCES' || code === 'EPERM') return `${path} is not writable by this user (${code})`;
    }
  }
  return null;
}

const cannotOpen = (file: string, error: unknown) =>
  new StoreOpenError(
    `cannot open database ${file}: ${error instanceof Error ? error.message : String(error)}`,
    'database_unreadable',
    { cause: error },
  );

/** better-sqlite3 for Kysely, each SQL text prepared once (the report reads thousands of rows by id). */
function preparedOnce(db: Database): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    close: () => db.close(),
    prepare(text) {
      let statement = statements.get(text);
      if (!statement) {
        statement = db.prepare(text);
        if (statements.size >= STATEMENTS_KEPT) statements.delete(statements.keys().next().value!);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

const sqliteCode = (error: unknown): string | null => {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : null;
};

const isBusy = (error: unknown): boolean => /^SQLITE_(BUSY|LOCKED)/.test(sqliteCode(error) ?? '');

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export class SqliteStore extends SqlStore {
  readonly backend = 'sqlite' as const;
  private readonly inode: number;
  private readonly kysely: Kysely<Tables>;
  private readonly rootRun: Runner;
  private readonly txRun: Runner;

  constructor(
    /** The better-sqlite3 connection under Kysely (tests reach raw SQL through it). */
    readonly db: Database,
    readonly location: string,
    private readonly options: SqliteOptions,
  ) {
    const kysely = new Kysely<Tables>({ dialect: new SqliteDialect({ database: preparedOnce(db) }) });
    const mapped = <T>(work: () => Promise<T>) => work().catch((error: unknown) => Promise.reject(this.failure(error)));
    const rootRun: Runner = { read: mapped, write: (work) => this.retried(work) };
    super(kysely, new Queries(sqliteDialect), rootRun);
    this.kysely = kysely;
    this.rootRun = rootRun;
    // Inside a transaction the write lock is held already: no waiting, the same checks.
    this.txRun = {
      read: mapped,
      write: (work) => {
        this.checkWrite();
        return mapped(work);
      },
    };
    this.inode = location === IN_MEMORY ? -1 : statSync(location).ino;
  }

  resolveRoot(rootPath: string): string {
    return isAbsolute(rootPath) ? rootPath : resolve(dirname(this.location), rootPath);
  }

  /** Brings the database to the current schema in one write transaction (user_version kept). */
  async migrate(): Promise<void> {
    await this.retried(async () => void this.db.exec('BEGIN IMMEDIATE'));
    try {
      await migrateToLatest(this.kysely as Kysely<unknown>, {
        dialect: sqliteDialect,
        transactions: false,
        legacy: {
          read: async () => this.db.pragma('user_version', { simple: true }) as number,
          write: async (version) => void this.db.pragma(`user_version = ${version}`),
        },
      });
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  /** A write, retried while the database is locked, never for more than the busy budget. */
  private async retried<T>(work: () => Promise<T>): Promise<T> {
    this.checkWrite();
    const deadline = Date.now() + (this.options.busyBudgetMs ?? 1000);
    for (let attempt = 0; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (!isBusy(error)) throw this.failure(error);
        if (Date.now() >= deadline) throw this.busy(error);
        await sleep(Math.min(100, 10 * 2 ** attempt));
      }
    }
  }

  private busy(cause: unknown): StoreUnavailable {
    return new StoreUnavailable('The database is busy (locked by another writer): try again shortly', 'database_busy', {
      cause,
    });
  }

  /** Before a write: the file is still the one opened, and its disk takes writes. */
  private checkWrite(): void {
    if (this.location === IN_MEMORY) return;
    this.checkFile();
    if (this.db.readonly) return; // SQLite itself refuses: SQLITE_READONLY → database_read_only
    const readOnly = this.readOnlyPath();
    if (readOnly) throw readOnly;
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

  /** The file, or its folder, on a read-only file system (EROFS even for root), or not ours to write. */
  private readOnlyPath(): StoreUnavailable | null {
    for (const [path, codes] of [
      [this.location, ['EROFS', 'EACCES', 'EPERM']],
      [dirname(this.location), ['EROFS']],
    ] as const) {
      try {
        accessSync(path, constants.W_OK);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? '';
        if ((codes as readonly string[]).includes(code)) {
          return new StoreUnavailable(
            `The database ${this.location} cannot be written (${code}): its disk is read-only`,
            'database_read_only',
            { cause: error },
          );
        }
      }
    }
    return null;
  }

  /** Less room left on the database's disk than a write may need (statfs; unknown counts as room). */
  private lowOnSpace(): boolean {
    try {
      const stats = statfsSync(dirname(this.location));
      return Number(stats.bavail) * Number(stats.bsize) < (this.options.minFreeBytes ?? MIN_FREE_BYTES);
    } catch {
      return false;
    }
  }

  private diskFull(cause?: unknown): StoreUnavailable {
    return new StoreUnavailable(`The disk of the database ${this.location} is full`, 'disk_full', { cause });
  }

  /** SQLite's errors in the store's words; an I/O error is looked into (a read-only or full disk). */
  private failure(error: unknown): unknown {
    if (error instanceof StoreUnavailable || error instanceof StoreValueError) return error;
    const code = sqliteCode(error);
    if (!code) return error;
    const unavailable = (message: string, kind: UnavailableCode) =>
      new StoreUnavailable(message, kind, { cause: error });
    if (isBusy(error)) return this.busy(error);
    if (code.startsWith('SQLITE_READONLY')) {
      return unavailable(
        `The database ${this.location} cannot be written (${code}): it is read-only`,
        'database_read_only',
      );
    }
    if (code === 'SQLITE_FULL') return this.diskFull(error);
    if (/^SQLITE_(IOERR|CANTOPEN)/.test(code)) {
      const readOnly = this.db.readonly ? null : this.readOnlyPath();
      if (readOnly) return readOnly;
      if (this.lowOnSpace()) return this.diskFull(error);
      return unavailable(
        `The database ${this.location} could not be read or written (${code})`,
        'database_unavailable',
      );
    }
    return error;
  }

  snapshot<T>(work: (read: ReadSnapshot) => Promise<T>): Promise<T> {
    // A read transaction: every read inside sees the database as of its first read.
    return this.rootRun.read(async () => {
      const mapped = this.mapForReading();
      try {
        return await this.kysely.transaction().execute((trx) => work(new SqlReads(trx, this.queries, this.txRun)));
      } finally {
        if (mapped) this.db.pragma('mmap_size = 0');
      }
    });
  }

  /**
   * A read-only database is read through memory-mapped pages for the length of a snapshot: a
   * cold report reads most of the file (a 1M-token session's rows and stored analyses), and page
   * by page through read(2) that was some 100 ms of system CPU more (docs/benchmarks.md, issue
   * 42.2). Unmapped again after it, so the pages the snapshot touched do not stay in the
   * process's memory while the report is made. Not for a database this program writes (its
   * store stays on read(2), where an I/O error is an error and not a signal).
   */
  private mapForReading(): boolean {
    if (!this.db.readonly || this.db.memory) return false;
    this.db.pragma(`mmap_size = ${SNAPSHOT_MAP_BYTES}`);
    return true;
  }

  async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    this.checkWrite();
    const deadline = Date.now() + (this.options.busyBudgetMs ?? 1000);
    for (let attempt = 0; ; attempt++) {
      let began = false;
      try {
        // The connection is held from BEGIN IMMEDIATE (the write lock) to COMMIT; while the
        // lock is someone else's, it is let go between tries.
        return await this.kysely.connection().execute(async (connection) => {
          await sql`begin immediate`.execute(connection);
          began = true;
          try {
            const result = await work(this.within(connection, this.txRun));
            await sql`commit`.execute(connection);
            return result;
          } catch (error) {
            if (this.db.inTransaction) await sql`rollback`.execute(connection);
            throw error;
          }
        });
      } catch (error) {
        if (began || !isBusy(error)) throw this.failure(error);
        if (Date.now() >= deadline) throw this.busy(error);
        await sleep(Math.min(100, 10 * 2 ** attempt));
      }
    }
  }

  override async ping(): Promise<void> {
    this.checkFile();
    await super.ping();
  }

  async checkWritable(): Promise<void> {
    await this.ping();
    if (this.db.readonly) throw new StoreUnavailable('the database is open read-only', 'database_read_only');
    const readOnly = this.readOnlyPath();
    if (readOnly) throw readOnly;
    if (this.lowOnSpace()) throw this.diskFull();
    // Takes the write lock and lets it go: fails on a read-only file or disk, writes nothing.
    await this.retried(() =>
      this.kysely.connection().execute(async (connection) => {
        await sql`begin immediate`.execute(connection);
        await sql`rollback`.execute(connection);
      }),
    );
  }

  async close(): Promise<void> {
    await this.kysely.destroy();
    if (this.db.open) this.db.close();
  }
}
