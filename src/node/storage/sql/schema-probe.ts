/**
 * Which tables and columns a database has. One made by another writer, or not migrated yet, may
 * lack a table or a column a later migration added; once seen there, it is not asked again.
 */
import type { TableName } from '../schema';
import type { Db } from './database';
import type { SqlDialect } from './dialect';

export class SchemaProbe {
  constructor(private readonly dialect: SqlDialect) {}

  /** Tables a database made by another writer, or not migrated yet, may lack: known once there. */
  private readonly present = new Set<TableName>();

  async hasTable(db: Db, table: TableName): Promise<boolean> {
    if (this.present.has(table)) return true;
    const { rows } = await this.dialect.tableExists(table).execute(db);
    if (rows.length > 0) this.present.add(table);
    return rows.length > 0;
  }

  /** Columns a later migration added, which such a database may lack likewise: known once there. */
  private readonly columnsPresent = new Set<string>();

  async hasColumn(db: Db, table: TableName, column: string): Promise<boolean> {
    const key = `${table}.${column}`;
    if (this.columnsPresent.has(key)) return true;
    const { rows } = await this.dialect.columnExists(table, column).execute(db);
    if (rows.length > 0) this.columnsPresent.add(key);
    return rows.length > 0;
  }
}
