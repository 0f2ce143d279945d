/**
 * The variables the CLI reads, and what every variable's schema is made of (src/node/env.ts builds
 * the whole environment's schema from these). Apart from env.ts so that a command — and the
 * report path, through errors.ts and the tokenizer pool — builds the CLI's six fields only, not
 * the server's and the live agent's thirty (zod builds a schema when it is declared: ~20 ms of
 * CPU for the whole one, measured by `npm run bench -- --start`).
 *
 * An empty value means unset, as it did when each file read its own variables with `||`.
 */
import { parse } from 'shell-quote';
import * as z from 'zod';

export class EnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvError';
  }
}

/** '' and blanks are unset; values are kept as given (paths may hold spaces). */
const present = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
export const text = () => z.preprocess(present, z.string().optional());
/** Trimmed, for words and choices. */
export const word = () =>
  z.preprocess((value) => (typeof value === 'string' ? value.trim() || undefined : value), z.string().optional());

export function fail(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER as never;
}

export function choice<const T extends readonly [string, ...string[]]>(name: string, allowed: T) {
  return word().transform((value, ctx): T[number] => {
    const chosen = value ?? allowed[0];
    if (!allowed.includes(chosen)) {
      return fail(ctx, `${name} must be ${allowed.map((a) => `"${a}"`).join(' or ')}, not "${chosen}"`);
    }
    return chosen;
  });
}

/** A command line as words (shell quoting, nothing a shell would run). */
export function commandLine(name: string) {
  return word().transform((line, ctx): string[] | undefined => {
    if (line === undefined) return undefined;
    const words = parse(line);
    if (!words.every((w): w is string => typeof w === 'string')) {
      return fail(ctx, `${name} must be a plain command line (no pipes, redirections or globs)`);
    }
    if (words.length === 0) return fail(ctx, `${name} is empty`);
    return words;
  });
}

export function wholeNumber(name: string, what: string, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  return word().transform((value, ctx): number | undefined => {
    if (value === undefined) return undefined;
    const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!(number >= min && number <= max)) return fail(ctx, `${name} must be ${what}, not "${value}"`);
    return number;
  });
}

/** The CLI's variables, each one schema shared with env.ts's whole environment. */
export const cliFields = {
  INVESTIBOOK_DB: text(),
  INVESTIBOOK_DATABASE_URL: text(),
  INVESTIBOOK_DATA_DIR: text(),
  INVESTIBOOK_TOKEN: text(),
  INVESTIBOOK_TOKENIZER_THREADS: wholeNumber(
    'INVESTIBOOK_TOKENIZER_THREADS',
    'a whole number of threads (0: count on the main thread)',
  ),
  // investibook import --from-opencode: the user's own OpenCode (default: `opencode` on PATH).
  INVESTIBOOK_OPENCODE: word(),
};

/** What the CLI reads: its databases, its token, the tokenizer threads. */
export const cliEnvSchema = z.object(cliFields);
export type CliEnv = z.output<typeof cliEnvSchema>;

const threadsSchema = cliEnvSchema.pick({ INVESTIBOOK_TOKENIZER_THREADS: true });

/** The variables of `schema` from `env`, or an EnvError naming every bad one. */
export function parseEnv<S extends z.ZodType>(env: NodeJS.ProcessEnv, schema: S): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new EnvError(parsed.error.issues.map((issue) => issue.message).join('; '));
  return parsed.data;
}

/** INVESTIBOOK_TOKENIZER_THREADS, when set (report/token-pool.ts chooses otherwise). */
export const tokenizerThreadsSetting = (env: NodeJS.ProcessEnv = process.env): number | undefined =>
  parseEnv(env, threadsSchema).INVESTIBOOK_TOKENIZER_THREADS;
