/**
 * Schema versions with Kysely's Migrator: the migrations of schema.ts, one list for every
 * backend, their DDL written by Kysely's schema builder with the dialect's column types.
 *
 * Databases made before the Migrator kept only a number: SQLite its `PRAGMA user_version`,
 * PostgreSQL a row in `investibook_schema`. That number is still kept (older programs refuse a
 * newer database by it, and the read-only PostgreSQL store looks for that table), and a
 * database that has the number but not Kysely's table gets the table first, with the migrations
 * the number says were run, so it migrates on from where it was without losing anything.
 *
 * The caller holds whatever keeps two processes from migrating at once (SQLite: one write
 * transaction around all of it; PostgreSQL: an advisory lock on one connection).
 */
import { Migrator, type Kysely, type Migration as KyselyMigration } from 'kysely';
import { MIGRATIONS, type MigrationStep, type Table } from '../schema';
import { StoreOpenError } from '../store';
import type { SqlDialect } from './dialect';

/** Kysely's own tables (its default names would say nothing to someone reading the database). */
export const MIGRATION_TABLE = 'investibook_migration';
export const MIGRATION_LOCK_TABLE = 'investibook_migration_lock';

/** The number kept beside Kysely's table: the schema version as older programs read it. */
export interface LegacyVersion {
  read(): Promise<number>;
  write(version: number): Promise<void>;
}

export interface MigrateOptions {
  dialect: SqlDialect;
  legacy: LegacyVersion;
  /** Kysely's Migrator runs each migration in a transaction of its own (PostgreSQL). */
  transactions: boolean;
}

function createTable(db: Kysely<unknown>, dialect: SqlDialect, table: Table) {
  let builder = db.schema.createTable(table.name);
  const singleKey = table.primaryKey.length === 1 ? table.primaryKey[0] : null;
  for (const column of table.columns) {
    const reference = table.references?.find((r) => r.column === column.name);
    builder = builder.addColumn(column.name, dialect.columnType(column), (col) => {
      if (column.serial) return dialect.serial(col);
      let out = column.nullable ? col : col.notNull();
      if (column.name === singleKey) out = out.primaryKey();
      if (reference) out = out.references(`${reference.table}.${reference.to}`);
      return out;
    });
  }
  if (!singleKey) builder = builder.addPrimaryKeyConstraint(`${table.name}_pkey`, table.primaryKey as never);
  return builder;
}

async function runStep(db: Kysely<unknown>, dialect: SqlDialect, step: MigrationStep): Promise<void> {
  if (step.kind === 'table') await createTable(db, dialect, step.table).execute();
  else if (step.kind === 'column')
    await db.schema.alterTable(step.table).addColumn(step.column.name, dialect.columnType(step.column)).execute();
  else await db.schema.createIndex(step.name).on(step.table).columns(step.columns).execute();
}

/** The migrations of schema.ts as Kysely migrations, by name. */
export function kyselyMigrations(dialect: SqlDialect): Record<string, KyselyMigration> {
  return Object.fromEntries(
    MIGRATIONS.map((migration) => [
      migration.name,
      {
        async up(db: Kysely<unknown>) {
          for (const step of migration.steps) await runStep(db, dialect, step);
        },
      },
    ]),
  );
}

async function hasMigrationTable(db: Kysely<unknown>): Promise<boolean> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  return tables.some((t) => t.name === MIGRATION_TABLE);
}

/**
 * A database of the number-only days: Kysely's table as the Migrator makes it, holding the
 * migrations that number stands for, so the Migrator runs only the rest.
 */
async function adoptLegacyVersion(db: Kysely<unknown>, version: number): Promise<void> {
  await db.schema
    .createTable(MIGRATION_TABLE)
    .addColumn('name', 'varchar(255)', (col) => col.notNull().primaryKey())
    .addColumn('timestamp', 'varchar(255)', (col) => col.notNull())
    .execute();
  const timestamp = new Date().toISOString();
  const done = MIGRATIONS.slice(0, version).map((m) => ({ name: m.name, timestamp }));
  await (db as Kysely<Record<string, { name: string; timestamp: string }>>)
    .insertInto(MIGRATION_TABLE)
    .values(done)
    .execute();
}

/** Brings the database to the current schema. Idempotent; refuses a database from the future. */
export async function migrateToLatest(db: Kysely<unknown>, options: MigrateOptions): Promise<void> {
  const current = await options.legacy.read();
  if (current > MIGRATIONS.length) {
    throw new StoreOpenError(
      `database schema version ${current} is newer than this program's (${MIGRATIONS.length})`,
      'database_unreadable',
    );
  }
  if (current > 0 && !(await hasMigrationTable(db))) await adoptLegacyVersion(db, current);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => kyselyMigrations(options.dialect) },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    disableTransactions: !options.transactions,
  });
  const { error } = await migrator.migrateToLatest();
  if (error) {
    const message = error instanceof Error ? error.message : String(error);
    // A migration of a newer program (Kysely: "previously executed migration … is missing").
    if (/previously executed migration/.test(message)) {
      throw new StoreOpenError(`database schema is newer than this program's: ${message}`, 'database_unreadable', {
        cause: error,
      });
    }
    throw error;
  }
  if (current !== MIGRATIONS.length) await options.legacy.write(MIGRATIONS.length);
}
