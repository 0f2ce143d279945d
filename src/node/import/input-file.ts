/** A file named on the command line, judged before anything of it is read, for every runtime's import. */
import { statSync } from 'node:fs';
import { AppError, usageError } from '../errors';
import { ExportInputError } from '../export-input-error';

/**
 * A missing file, a folder, a FIFO: said in one line before anything is read (a usage error, exit 2).
 * `name` is the file as the user gave it.
 */
export function checkFile(path: string, name: string): void {
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw usageError(unreadable(name, error));
  }
  if (stats.isDirectory()) throw usageError(`${name} is a folder, not a file`);
  if (!stats.isFile()) throw usageError(`${name} is not a file`);
}

/** Why a file could not be read, in words, naming it. */
export function unreadable(name: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT') return `${name}: no such file`;
  if (code === 'EISDIR') return `${name} is a folder, not a file`;
  if (code === 'EACCES' || code === 'EPERM') return `${name} cannot be read: permission denied`;
  return `${name} could not be read: ${error instanceof Error ? error.message : String(error)}`;
}

/** A file that is not what its runtime writes, as the CLI answers it (exit 2). */
export function asInputError(error: unknown): unknown {
  return error instanceof ExportInputError ? new AppError('invalid', 'bad_export', error.message) : error;
}
