/** The storage contract on a real PostgreSQL server (started by the test run: test/support/postgres.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openPostgres } from '../../src/node/storage/postgres/postgres-store';
import { createDatabase } from '../support/postgres';
import { storeContract } from '../support/store-contract';

storeContract('PostgreSQL', {
  async open() {
    const url = await createDatabase(inject('postgresUrl'));
    const dataDir = mkdtempSync(join(tmpdir(), 'investibook-pgdata-'));
    const store = await openPostgres(url, { readOnly: false, dataDir });
    // Migrating again is a no-op.
    await (await openPostgres(url, { readOnly: false, dataDir })).close();
    const readOnly = await openPostgres(url, { readOnly: true, dataDir });
    const raw = new pg.Client({ connectionString: url });
    await raw.connect();
    return {
      store,
      readOnly,
      raw: async (sql) => void (await raw.query(sql)),
      async close() {
        await raw.end();
        await readOnly.close();
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
});
