/**
 * The CLI's environment as the report path reads it, with no zod (issue 42.1): a command with
 * none of the CLI's variables set — the usual case — has nothing to validate, so the schema
 * (env-fields.ts: zod, its schemas built at load) is loaded only when one is set. Here too what
 * the report path needs of it without a schema: EnvError (errors.ts) and the tokenizer threads'
 * setting (report/token-pool.ts), read with the same rule and message as the schema's field.
 */
import type { CliEnv } from './env-fields';

export type { CliEnv } from './env-fields';

export class EnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvError';
  }
}

/** The variables the CLI reads (env-fields.ts's `cliFields`: test/node/cli-env.test.ts holds the two together). */
export const CLI_VARIABLES = [
  'INVESTIBOOK_DB',
  'INVESTIBOOK_DATABASE_URL',
  'INVESTIBOOK_DATA_DIR',
  'INVESTIBOOK_TOKEN',
  'INVESTIBOOK_TOKENIZER_THREADS',
  'INVESTIBOOK_OPENCODE',
] as const;

/** A variable is unset when absent or blank (env-fields.ts's `text` and `word`). */
const isSet = (value: string | undefined) => value !== undefined && value.trim() !== '';

/**
 * The CLI's variables when none is set in `env`: every field unset, as the schema gives it, with
 * no schema loaded; null when one is set, for the schema to read (cli/main.ts loads it then; the
 * import is there, not here, since a bundle without code splitting — the server's — would wrap
 * zod in lazy initialisation, which the modules importing it at their top do not survive).
 */
export function unsetCliEnv(env: NodeJS.ProcessEnv): CliEnv | null {
  // What the schema gives for an environment without them: no field at all (its output type
  // says INVESTIBOOK_TOKENIZER_THREADS is always there, as undefined; it is not).
  return CLI_VARIABLES.some((name) => isSet(env[name])) ? null : ({} as CliEnv);
}

/** A whole number within bounds from a trimmed value (digits only), else null. */
export function wholeNumberOf(value: string, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}): number | null {
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return number >= min && number <= max ? number : null;
}

export const notWholeNumber = (name: string, what: string, value: string) => `${name} must be ${what}, not "${value}"`;

export const TOKENIZER_THREADS = {
  name: 'INVESTIBOOK_TOKENIZER_THREADS',
  what: 'a whole number of threads (0: count on the main thread)',
} as const;

/** INVESTIBOOK_TOKENIZER_THREADS, when set (report/token-pool.ts chooses otherwise); an EnvError when not a whole number. */
export function tokenizerThreadsSetting(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = env[TOKENIZER_THREADS.name]?.trim();
  if (!value) return undefined;
  const threads = wholeNumberOf(value);
  if (threads === null) throw new EnvError(notWholeNumber(TOKENIZER_THREADS.name, TOKENIZER_THREADS.what, value));
  return threads;
}
