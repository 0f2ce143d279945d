/**
 * The server's one logger (pino): JSON lines on stderr, one object per event, with the request's
 * id on every line logged while answering a request (server/app.ts makes a child logger per
 * request). Progress meant for people — "Open http://…", "Building the web app…" — is not a log:
 * it stays plain text on stdout (server/start.ts).
 *
 * What is never logged (docs/security.md): query strings (a sign-in `?token=`), headers,
 * cookies, tokens. Lines name the method and the path; errors are logged as their type, message
 * and stack only — never their other fields, which may hold whatever a driver put there — and
 * anything called a token, a header, a cookie or an authorization is cut out before writing.
 */
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger };
export type LogLevel = Level | 'silent';

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go (default: stderr, written synchronously so that a line before an exit is kept). */
  destination?: DestinationStream;
}

const errorFields = (error: unknown) =>
  error instanceof Error
    ? { type: error.name, message: error.message, stack: error.stack }
    : { type: typeof error, message: String(error) };

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      name: 'investibook',
      level: options.level ?? 'info',
      serializers: { err: errorFields },
      redact: {
        paths: ['token', 'headers', 'cookie', 'authorization', '*.token', '*.headers', '*.cookie', '*.authorization'],
        remove: true,
      },
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

/** For apps and tests that were given no logger. */
export const silentLogger: Logger = pino({ level: 'silent' });
