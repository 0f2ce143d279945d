/**
 * Opens the configured store: SQLite by default (a file path), PostgreSQL when given a
 * postgres:// URL. The one place that knows which implementations exist.
 */
import { openSqlite } from './sqlite/sqlite-store';
import { redact } from './redact';
import { StoreOpenError, type Store } from './store';

export { redact };

export interface StoreConfig {
  /** A SQLite file path, or a postgres://… URL. */
  location: string;
  /** The report path: never writes, never creates. */
  readOnly?: boolean;
  /** Where relative workspace roots are read from, for a database with no folder (PostgreSQL). */
  dataDir?: string;
}

export const isDatabaseUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

export async function openStore(config: StoreConfig): Promise<Store> {
  if (isDatabaseUrl(config.location)) {
    const { openPostgres } = await import('./postgres/postgres-store');
    return openPostgres(config.location, { readOnly: config.readOnly ?? false, dataDir: config.dataDir });
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(config.location)) {
    throw new StoreOpenError(`unsupported database URL scheme: ${redact(config.location)}`, 'database_url_invalid');
  }
  return openSqlite(config.location, { readOnly: config.readOnly ?? false });
}
