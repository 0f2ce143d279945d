/**
 * The CLI process's last guard: an error nothing awaited (a stream's 'error' with no listener, a
 * promise nobody caught) ends the CLI like any other unnamed failure — one line on stderr, exit
 * 1 — never with Node's stack trace; the output's reader going away (EPIPE) ends it quietly. `run` installs it for the process's own io only; what it
 * catches is a bug to fix where it starts (the known ones are: read-export.ts opens a file before
 * making its stream), so it stays small and loads nothing.
 */
import type { Io } from '../program/io';

export function guardProcess(io: Io): void {
  const fail = (error: unknown) => {
    const system = error as NodeJS.ErrnoException | null;
    // The reader of the output went (`| head`): what it wanted it has; nothing to say, as with
    // any command whose reader stops reading.
    if (system?.code === 'EPIPE' && system.syscall === 'write') process.exit(process.exitCode ?? 0);
    const text = error instanceof Error ? error.message : String(error);
    const line = system?.path && !text.includes(system.path) ? `${system.path}: ${text}` : text;
    io.err(`investibook: ${line.replace(/\s*\n\s*/g, ' ')}\n`);
    process.exit(1);
  };
  process.once('uncaughtException', fail);
  process.once('unhandledRejection', fail);
}
