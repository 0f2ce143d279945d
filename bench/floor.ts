/** The floor: read and JSON.parse every message row of the workspace and read its files once. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite } from '../src/node/storage/sqlite/sqlite-store';

export async function floor(dbPath: string, workspaceId: string, root: string): Promise<number> {
  const started = performance.now();
  const store = await openSqlite(dbPath, { readOnly: true });
  let n = 0;
  for (const row of store.db
    .prepare('SELECT info, parts FROM messages_v2 WHERE workspace_id = ?')
    .iterate(workspaceId) as IterableIterator<{ info: string; parts: string }>) {
    n += (JSON.parse(row.info) ? 1 : 0) + (JSON.parse(row.parts) as unknown[]).length;
  }
  await store.close();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else n += readFileSync(join(dir, entry.name)).length > 0 ? 1 : 0;
    }
  };
  walk(root);
  if (n < 0) throw new Error('unreachable');
  return performance.now() - started;
}
