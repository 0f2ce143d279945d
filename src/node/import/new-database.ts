/**
 * A SQLite database that an import creates appears only whole. It is written under a name of its
 * own beside the final one (`NAME.partial-PID`) and renamed into place once written and closed, so
 * an import killed with -9 halfway leaves no empty or half-written database where the next report
 * or import would take it for the real one. What a killed run left (its process gone) is removed
 * by the next import into that folder.
 */
import { accessSync, constants, existsSync, linkSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { AppError } from '../errors';

const PARTIAL = '.partial-';
const SIDE_FILES = ['', '-wal', '-shm', '-journal'];

/** Runs `write` on the database at `location`, or, when that is a SQLite file not there yet, on a partial one renamed into place after. */
export async function intoDatabase<T>(
  location: string,
  sqlite: boolean,
  write: (location: string) => Promise<T>,
): Promise<T> {
  // A folder that cannot be written is said by the store under the name the user gave.
  if (!sqlite || existsSync(location) || !writable(dirname(location))) return write(location);
  sweepPartials(location);
  const partial = `${location}${PARTIAL}${process.pid}`;
  try {
    const result = await write(partial);
    try {
      // A link, not a rename: it fails rather than replace a database another process made meanwhile.
      linkSync(partial, location);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      throw new AppError(
        'conflict',
        'database_created_meanwhile',
        `${location} was created by another process meanwhile: nothing was imported; import again`,
      );
    }
    return result;
  } finally {
    for (const suffix of SIDE_FILES) rmSync(partial + suffix, { force: true });
  }
}

/** Removes what killed imports left beside `location` (their processes are gone); never fails. */
export function sweepPartials(location: string): string[] {
  const prefix = `${basename(location)}${PARTIAL}`;
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dirname(location));
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number.parseInt(name.slice(prefix.length), 10);
    if (!Number.isInteger(pid) || alive(pid)) continue;
    const path = join(dirname(location), name);
    rmSync(path, { force: true });
    removed.push(path);
  }
  return removed;
}

function writable(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
