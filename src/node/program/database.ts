/**
 * Which database the CLI uses: --database-url, --db, $INVESTIBOOK_DATABASE_URL, $INVESTIBOOK_DB,
 * else the nearest data/investibook.db from the current folder up (so the CLI works from inside
 * a workspace folder, which the demo keeps under data/workspaces/), else ./data/investibook.db.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { CliEnv } from '../env';

export const DEFAULT_DB = join('data', 'investibook.db');

export interface ChosenDatabase {
  location: string;
  /** How it was found, for people: "--db", "$INVESTIBOOK_DB", "found from …". */
  how: string;
}

export function chooseDatabase(
  options: { db?: string | undefined; databaseUrl?: string | undefined },
  env: Pick<CliEnv, 'INVESTIBOOK_DATABASE_URL' | 'INVESTIBOOK_DB'>,
  cwd: string,
): ChosenDatabase {
  if (options.databaseUrl) return { location: options.databaseUrl, how: '--database-url' };
  if (options.db) return { location: resolve(cwd, options.db), how: '--db' };
  if (env.INVESTIBOOK_DATABASE_URL) return { location: env.INVESTIBOOK_DATABASE_URL, how: '$INVESTIBOOK_DATABASE_URL' };
  if (env.INVESTIBOOK_DB) return { location: resolve(cwd, env.INVESTIBOOK_DB), how: '$INVESTIBOOK_DB' };
  for (let folder = resolve(cwd); ; folder = dirname(folder)) {
    const candidate = join(folder, DEFAULT_DB);
    if (existsSync(candidate)) {
      return { location: candidate, how: folder === resolve(cwd) ? 'default' : `found from ${cwd}` };
    }
    if (dirname(folder) === folder) break;
  }
  return { location: resolve(cwd, DEFAULT_DB), how: 'default' };
}
