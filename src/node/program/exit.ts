/**
 * The CLI's one mapping from a failure to an exit code and one line on stderr (contract §5):
 * 2 usage, 3 workspace or session not found, 1 otherwise.
 */
import { CommanderError } from 'commander';
import { asAppError, failed, usageError } from '../errors';
import { FolderError } from '../fs-safe';
import { CopyTargetNotEmpty } from '../storage/copy';
import type { Io } from './io';

export function exitCodeFor(error: unknown, io: Io): number {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return 0; // --help, --version
    io.err(`investibook: ${error.message.replace(/^error: /, '')}\n`);
    return 2;
  }
  const known = asAppError(error);
  if (known) {
    io.err(`investibook: ${known.message}\n`);
    return known.kind === 'usage' || known.kind === 'invalid' ? 2 : known.kind === 'not_found' ? 3 : 1;
  }
  io.err(`investibook: ${oneLine(error)}\n`);
  return 1;
}

/** A fault the layers below did not name, in one line: a system error's words, never a stack. */
function oneLine(error: unknown): string {
  const system = error as NodeJS.ErrnoException | null;
  const text = error instanceof Error ? error.message : String(error);
  return (system?.path && !text.includes(system.path) ? `${system.path}: ${text}` : text).replace(/\s*\n\s*/g, ' ');
}

/** The CLI's failures, the folder's and the copy's in the words of a usage error or a failure. */
export function cliExitCode(error: unknown, io: Io): number {
  return exitCodeFor(
    error instanceof FolderError
      ? failed('folder', error.message)
      : error instanceof CopyTargetNotEmpty
        ? usageError(error.message)
        : error,
    io,
  );
}
