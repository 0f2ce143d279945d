/** The storage contract on the embedded SQLite store (the default backend). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redact } from '../../src/node/storage/redact';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { describe, expect, it } from 'vitest';
import { storeContract } from '../support/store-contract';

storeContract('SQLite', {
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-store-'));
    const path = join(dir, 'store.db');
    const store = await openSqlite(path);
    // Migrating again is a no-op.
    await (await openSqlite(path)).close();
    const readOnly = await openSqlite(path, { readOnly: true });
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

describe('database locations in messages', () => {
  it('never carry a password, in the user part or in the query', () => {
    expect(redact('postgres://app:s3cret@db:5432/x')).toBe('postgres://app:***@db:5432/x');
    expect(redact('postgres://app@db/x?password=s3cret&sslmode=require')).toBe(
      'postgres://app@db/x?password=***&sslmode=require',
    );
    expect(redact('postgres://app@db/x?sslpassword=k3y')).not.toContain('k3y');
    expect(redact('postgres://u:p@[not a host/x?password=s3cret')).not.toMatch(/s3cret|:p@/);
    expect(redact('/srv/data/investibook.db')).toBe('/srv/data/investibook.db');
  });
});
