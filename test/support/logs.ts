/** A logger (src/node/log.ts) whose JSON lines are kept in memory, for tests that read them. */
import { createLogger, type Logger, type LogLevel } from '../../src/node/log';

export function memoryLogger(level: LogLevel = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ level, destination: { write: (line: string) => void lines.push(line) } }), lines };
}
