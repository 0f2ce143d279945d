/**
 * The `db` commands' work (contract §1, §5), loaded only when one runs: `db init` creates or
 * migrates a database, `db copy` copies every row into an empty one, `db count` stores the
 * token counts of every session that lacks them (the write path's counting, for a database
 * written before it, or by another writer).
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { countDatabase } from '../counting/count-sessions';
import { failed, notFound, usageError } from '../errors';
import { ensureFolder } from '../fs-safe';
import { copyStore } from '../storage/copy';
import { isDatabaseUrl, openStore, redact } from '../storage/open';
import { SCHEMA_VERSION } from '../storage/schema';
import type { CliEnv } from '../env';
import { chooseDatabase } from '../program/database';
import type { Io } from '../program/io';

export interface DatabaseOptions {
  db?: string;
  databaseUrl?: string;
}

export async function runInit(options: DatabaseOptions, io: Io): Promise<void> {
  if (!options.db && !options.databaseUrl) throw usageError('db init needs --db PATH or --database-url URL');
  const { location } = chooseDatabase(options, {}, io.cwd);
  if (!isDatabaseUrl(location)) ensureFolder(dirname(location));
  const store = await openStore({ location });
  await store.close();
  io.out(
    `Database ready: ${isDatabaseUrl(location) ? redact(location) : location} (schema version ${SCHEMA_VERSION})\n`,
  );
}

export async function runCopy(options: { from: string; to: string }, io: Io): Promise<void> {
  const location = (value: string) => (isDatabaseUrl(value) ? value : resolve(io.cwd, value));
  const from = await openStore({ location: location(options.from), readOnly: true });
  try {
    const target = location(options.to);
    if (!isDatabaseUrl(target)) ensureFolder(dirname(target));
    const to = await openStore({ location: target });
    try {
      const { rows } = await copyStore(from, to);
      const counts = Object.entries(rows).map(([table, n]) => `${n} ${table}`);
      io.out(`Copied ${counts.join(', ')} from ${redact(from.location)} to ${redact(to.location)}\n`);
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

export async function runCount(
  options: DatabaseOptions & { workspace?: string; dataDir?: string },
  io: Io,
  env: CliEnv,
): Promise<void> {
  const { location } = chooseDatabase(options, env, io.cwd);
  // Counting fills a database that has sessions: a missing one is a wrong path, never a new file.
  if (!isDatabaseUrl(location) && !existsSync(location))
    throw failed('database_not_found', `database not found: ${location}`);
  const dataDir = options.dataDir ?? env.INVESTIBOOK_DATA_DIR;
  const store = await openStore({ location, ...(dataDir ? { dataDir: resolve(io.cwd, dataDir) } : {}) });
  try {
    if (options.workspace && !(await store.getWorkspace(options.workspace)))
      throw notFound('workspace_not_found', `workspace not found: ${options.workspace}`);
    const counted = await countDatabase(store, options.workspace);
    for (const s of counted.skipped) io.err(`investibook: session ${s.sessionId} not counted: ${s.reason}\n`);
    io.out(
      `Counted ${counted.texts} new text${counted.texts === 1 ? '' : 's'} and analysed ${counted.analyses} message${counted.analyses === 1 ? '' : 's'} in ${counted.sessions} session${counted.sessions === 1 ? '' : 's'} of ${counted.workspaces} workspace${counted.workspaces === 1 ? '' : 's'} (${redact(store.location)}); reports read these instead of making them\n`,
    );
  } finally {
    await store.close();
  }
}
