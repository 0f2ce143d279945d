/** What SQLite needs said its own way (sql/dialect.ts). */
import { sql, type SqlBool } from 'kysely';
import type { SqlDialect } from '../sql/dialect';

const TYPES = { text: 'text', integer: 'integer', real: 'real', json: 'text' } as const;

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  columnType: (column) => TYPES[column.type],
  serial: (column) => column.primaryKey().autoIncrement(),
  jsonText: (column) => sql.ref(column),
  jsonValue: (json) => json,
  copiedJson: (value) => value ?? null,
  // Rows from other writers may hold text where a time belongs: only numbers count.
  numeric: (column) =>
    sql<number | null>`case when typeof(${sql.ref(column)}) in ('integer', 'real') then ${sql.ref(column)} end`,
  rowVersion: null,
  tableExists: (table) => sql`select 1 as found from sqlite_master where type = 'table' and name = ${table}`,
  columnExists: (table, column) => sql`select 1 as found from pragma_table_info(${table}) where name = ${column}`,
  anyOf: (column, values) => sql<SqlBool>`${sql.ref(column)} in (${sql.join(values)})`,
  textHoldsNul: true,
  idsPerQuery: 500,
  paramsPerStatement: 30_000,
  // AUTOINCREMENT continues after the largest id by itself.
  afterCopy: async () => {},
};
