/**
 * What differs between SQL backends, and nothing else: the queries (queries.ts), the migrations
 * (migrations.ts) and the store (sql-store.ts) are written once over Kysely and ask a dialect
 * for these few pieces. A third SQL backend is a Kysely dialect, one of these, and a run of
 * test/support/store-contract.ts.
 */
import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely, RawBuilder, SqlBool } from 'kysely';
import type { Column, TableName } from '../schema';
import type { Database } from './database';

/** A column type as Kysely's schema builder takes it ('text', sql`text collate "C"`…). */
export type DataType = Parameters<CreateTableBuilder<string>['addColumn']>[1];

export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /** DDL: the type of a column of schema.ts. */
  columnType(column: Column): DataType;
  /** DDL: a serial id column (INTEGER PRIMARY KEY AUTOINCREMENT, an identity…), its primary key included. */
  serial(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** A JSON column as the text it holds (PostgreSQL: `::text`; SQLite keeps text already). */
  jsonText(column: string): RawBuilder<unknown>;
  /** JSON text as written to a JSON column (PostgreSQL's JSONB cannot hold U+0000: U+FFFD). */
  jsonValue(json: string): string;
  /** A copied JSON column's value (text from another database, maybe not JSON at all). */
  copiedJson(value: unknown): unknown;
  /** A time column where it holds a number, else NULL (SQLite's may hold another writer's text). */
  numeric(column: string): RawBuilder<number | null>;
  /** The row's version where the database keeps one (PostgreSQL's xmin), as text; else null. */
  readonly rowVersion: RawBuilder<string> | null;
  /** Whether a table exists (a database another writer made, or an older one opened read-only, may lack the newer ones). */
  tableExists(table: TableName): RawBuilder<unknown>;
  /** Whether a table has a column (a column added by a later migration may be missing, likewise). */
  columnExists(table: TableName, column: string): RawBuilder<unknown>;
  /** Whether text can hold U+0000 (PostgreSQL's cannot: such an id names nothing stored). */
  readonly textHoldsNul: boolean;
  /** `column` is one of `values` (PostgreSQL: `= any($1)`, one array parameter however many values). */
  anyOf(column: string, values: readonly string[]): RawBuilder<SqlBool>;
  /** Ids per query when rows are read by id. */
  readonly idsPerQuery: number;
  /** Bound parameters per statement when rows are copied in. */
  readonly paramsPerStatement: number;
  /** After rows were copied in with their ids: a serial column continues after them. */
  afterCopy(db: Kysely<Database>, table: TableName, serialColumn: string): Promise<void>;
}
