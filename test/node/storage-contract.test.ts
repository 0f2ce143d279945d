/** The storage contract on the embedded SQLite store (the default backend). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { storeContract } from '../support/store-contract';

storeContract('SQLite', {
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-store-'));
    const path = join(dir, 'store.db');
    const store = openSqlite(path);
    // Migrating again is a no-op.
    await openSqlite(path).close();
    const readOnly = openSqlite(path, { readOnly: true });
    return {
      store,
      readOnly,
      raw: async (sql) => void store.db.exec(sql),
      async close() {
        await readOnly.close();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
