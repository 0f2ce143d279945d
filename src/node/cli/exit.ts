/**
 * The CLI's one mapping from a failure to an exit code and one line on stderr (contract §5):
 * 2 usage, 3 workspace or session not found, 1 otherwise.
 */
import { CommanderError } from 'commander';
import { asAppError } from '../errors';
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
  io.err(`investibook: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}
