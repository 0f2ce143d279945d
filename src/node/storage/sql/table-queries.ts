/**
 * Whole tables, for digests and copying a database to another backend: every row of a table as
 * the driver reads it, a table read in keyset batches, and rows written back column for column.
 */
import { sql } from 'kysely';
import { TABLES, type Table, type TableName } from '../schema';
import type { Db } from './database';
import type { SqlDialect } from './dialect';
import type { SchemaProbe } from './schema-probe';

export class TableQueries {
  constructor(
    private readonly dialect: SqlDialect,
    private readonly schema: SchemaProbe,
  ) {}

  /** Every table's rows as the driver reads them, each table's sorted. */
  async contentRows(db: Db): Promise<string[]> {
    const out: string[] = [];
    for (const name of Object.keys(TABLES) as TableName[]) {
      if (!(await this.schema.hasTable(db, name))) continue;
      const rows = await db.selectFrom(name).selectAll().execute();
      out.push(`# ${name}`, ...rows.map((row) => JSON.stringify(row)).sort());
    }
    return out;
  }

  /** A batch of a table's rows after a primary key (keyset order), JSON columns as text. */
  async tableBatch(db: Db, table: TableName, after: readonly unknown[] | null, limit: number) {
    const { columns: all, primaryKey } = TABLES[table] as Table;
    const { jsonText } = this.dialect;
    // A database of another writer may lack a nullable column a later migration added.
    const columns: Table['columns'] = [];
    for (const c of all) if (!c.nullable || (await this.schema.hasColumn(db, table, c.name))) columns.push(c);
    const select = columns.map((c) => (c.type === 'json' ? jsonText(c.name).as(c.name) : sql.ref(c.name)));
    const key = sql.join(primaryKey.map((k) => sql.ref(k)));
    return sql<Record<string, unknown>>`select ${sql.join(select)} from ${sql.table(table)}
      ${after ? sql`where (${key}) > (${sql.join(after.map((v) => sql.val(v)))})` : sql``}
      order by ${key} limit ${limit}`
      .execute(db)
      .then((result) => result.rows);
  }

  /** Rows of a table, column for column, ids included: a few statements of many rows. */
  async insertRows(db: Db, table: TableName, rows: readonly Record<string, unknown>[]): Promise<void> {
    const { columns } = TABLES[table] as Table;
    const perStatement = Math.max(1, Math.floor(this.dialect.paramsPerStatement / columns.length));
    const value = (row: Record<string, unknown>) =>
      Object.fromEntries(
        columns.map((c) => [c.name, c.type === 'json' ? this.dialect.copiedJson(row[c.name]) : (row[c.name] ?? null)]),
      );
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement).map(value);
      // The table and its columns come from schema.ts; the values are whatever the other database held.
      await db
        .insertInto(table)
        .values(chunk as never)
        .execute();
    }
    const serial = columns.find((c) => c.serial);
    if (serial && rows.length > 0) await this.dialect.afterCopy(db, table, serial.name);
  }
}
