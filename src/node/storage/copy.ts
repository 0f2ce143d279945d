/**
 * `investibook db copy`: every row of every table from one store to another (SQLite to
 * PostgreSQL when a team moves over, or back), ids included, JSON as stored. The target must be
 * empty: a copy never merges into data it would then have to reconcile.
 */
import { TABLE_ORDER, type TableName } from './schema';
import type { Store } from './store';

export interface CopyResult {
  rows: Record<TableName, number>;
}

export async function copyStore(
  from: Store,
  to: Store,
  progress: (line: string) => void = () => {},
): Promise<CopyResult> {
  for (const table of TABLE_ORDER) {
    for await (const batch of to.tableRows(table, 1)) {
      if (batch.length)
        throw new CopyTargetNotEmpty(`the target already has rows in ${table}: copy only into an empty database`);
    }
  }
  const rows = Object.fromEntries(TABLE_ORDER.map((t) => [t, 0])) as Record<TableName, number>;
  // All or nothing: a copy that fails halfway leaves the target as empty as it was.
  await to.transaction(async (target) => {
    for (const table of TABLE_ORDER) {
      for await (const batch of from.tableRows(table, 1000)) {
        await target.insertRows(table, batch);
        rows[table] += batch.length;
      }
      progress(`${table}: ${rows[table]} rows`);
    }
  });
  return { rows };
}

export class CopyTargetNotEmpty extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CopyTargetNotEmpty';
  }
}
