/**
 * What PostgreSQL needs said its own way (sql/dialect.ts). Text columns use the "C" collation
 * so ids sort byte by byte, as SQLite sorts them (OpenCode's ids mix cases); times are BIGINT
 * (milliseconds); info and parts are JSONB, read back as text (`::text`) so every backend hands
 * the engine the same thing. JSONB cannot hold U+0000: it is stored as U+FFFD (docs/deploy.md).
 */
import { sql, type SqlBool } from 'kysely';
import type { SqlDialect } from '../sql/dialect';

const TYPES = {
  text: sql`text collate "C"`,
  integer: 'bigint',
  real: 'double precision',
  json: 'jsonb',
} as const;

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
    return withoutNul(JSON.stringify(text));
  }
}

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  columnType: (column) => TYPES[column.type],
  serial: (column) => column.generatedByDefaultAsIdentity().primaryKey(),
  jsonText: (column) => sql`${sql.ref(column)}::text`,
  jsonValue: withoutNul,
  copiedJson: jsonColumn,
  numeric: (column) => sql.ref<number | null>(column),
  // xmin changes with every update of the row.
  rowVersion: sql<string>`xmin::text`,
  tableExists: (table) => sql`select 1 as found where to_regclass(${table}) is not null`,
  columnExists: (table, column) =>
    sql`select 1 as found from information_schema.columns where table_schema = current_schema() and table_name = ${table} and column_name = ${column}`,
  textHoldsNul: false,
  anyOf: (column, values) => sql<SqlBool>`${sql.ref(column)} = any(${values as string[]})`,
  idsPerQuery: 5000,
  paramsPerStatement: 30_000,
  // Identity columns continue after the copied ids.
  async afterCopy(db, table, column) {
    await sql`select setval(pg_get_serial_sequence(${table}, ${column}),
      (select coalesce(max(${sql.ref(column)}), 0) + 1 from ${sql.table(table)}), false)`.execute(db);
  },
};
