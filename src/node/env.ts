/**
 * Every environment variable investibook reads, in one zod schema (README "Configuration" lists
 * them). Each program parses what it uses once, at its start: the server all of it
 * (server/main.ts), the CLI `cliEnvSchema` (cli/main.ts; built in cli-env.ts with the field
 * helpers, so a command never builds this whole schema). A bad value is an `EnvError` whose
 * message is one sentence naming the variable; the edges print it and exit 2.
 */
import { delimiter, isAbsolute } from 'node:path';
import * as z from 'zod';
import { RUNTIME_NAMES } from '../shared/runtimes';
import { choice, cliFields, commandLine, fail, parseEnv, text, wholeNumber, word } from './cli-env';

export { cliEnvSchema, EnvError, tokenizerThreadsSetting, type CliEnv } from './cli-env';

/** An idle agent is stopped after this long; at most this many run (docs/benchmarks.md: what one costs). */
export const AGENT_IDLE_DEFAULT_MS = 10 * 60_000;
export const AGENT_MAX_RUNNING_DEFAULT = 6;

export const LOG_LEVELS = ['info', 'debug', 'trace', 'warn', 'error', 'fatal', 'silent'] as const;

export const envSchema = z.object({
  // Where the server listens.
  PORT: wholeNumber('PORT', 'a port number', { max: 65535 }).transform((port) => port ?? 8787),
  HOST: text(),
  // Storage.
  INVESTIBOOK_DB: cliFields.INVESTIBOOK_DB,
  INVESTIBOOK_DATABASE_URL: cliFields.INVESTIBOOK_DATABASE_URL,
  INVESTIBOOK_REPORT_DATABASE_URL: text(),
  INVESTIBOOK_DATA_DIR: cliFields.INVESTIBOOK_DATA_DIR,
  // Who is served.
  INVESTIBOOK_ALLOWED_HOSTS: text().transform((value) =>
    (value ?? '')
      .split(',')
      .map((host) => host.trim().toLowerCase())
      .filter(Boolean),
  ),
  INVESTIBOOK_TOKEN: cliFields.INVESTIBOOK_TOKEN,
  // Logs (pino, JSON lines on stderr).
  INVESTIBOOK_LOG_LEVEL: choice('INVESTIBOOK_LOG_LEVEL', LOG_LEVELS),
  // Reports.
  INVESTIBOOK_WARM: choice('INVESTIBOOK_WARM', ['1', '0']),
  INVESTIBOOK_TOKENIZER_THREADS: cliFields.INVESTIBOOK_TOKENIZER_THREADS,
  // The live agent (agent/settings.ts).
  INVESTIBOOK_AGENT_COMMAND: commandLine('INVESTIBOOK_AGENT_COMMAND'),
  INVESTIBOOK_AGENT_RUNTIME: choice('INVESTIBOOK_AGENT_RUNTIME', RUNTIME_NAMES),
  INVESTIBOOK_AGENT_EXPORT_COMMAND: commandLine('INVESTIBOOK_AGENT_EXPORT_COMMAND'),
  INVESTIBOOK_AGENT_PERMISSIONS: choice('INVESTIBOOK_AGENT_PERMISSIONS', ['reject', 'allow']),
  INVESTIBOOK_AGENT_WORKSPACE_PERMISSIONS: choice('INVESTIBOOK_AGENT_WORKSPACE_PERMISSIONS', ['tighten', 'widen']),
  INVESTIBOOK_AGENT_SANDBOX: choice('INVESTIBOOK_AGENT_SANDBOX', ['bwrap', 'off']),
  INVESTIBOOK_AGENT_SANDBOX_READ: z
    .preprocess((value) => value ?? '', z.string())
    .transform((value, ctx): string[] => {
      const paths = value.split(delimiter).filter(Boolean);
      const relative = paths.find((path) => !isAbsolute(path));
      if (relative) return fail(ctx, `INVESTIBOOK_AGENT_SANDBOX_READ must list absolute paths, not "${relative}"`);
      return paths;
    }),
  INVESTIBOOK_AGENT_BWRAP: word().transform((value) => value ?? 'bwrap'),
  INVESTIBOOK_AGENT_STATE_DIR: word(),
  INVESTIBOOK_AGENT_TURN_TIMEOUT_MS: word().transform((value, ctx): number => {
    const timeout = Number(value ?? 600_000);
    if (!Number.isFinite(timeout) || timeout <= 0) {
      return fail(ctx, 'INVESTIBOOK_AGENT_TURN_TIMEOUT_MS must be a positive number of milliseconds');
    }
    return timeout;
  }),
  INVESTIBOOK_AGENT_EGRESS_HOSTS: text().transform((value) =>
    (value ?? '')
      .split(',')
      .map((host) => host.trim())
      .filter(Boolean),
  ),
  INVESTIBOOK_AGENT_IDLE_MS: wholeNumber(
    'INVESTIBOOK_AGENT_IDLE_MS',
    'a whole number of milliseconds (at least 1000)',
    { min: 1000 },
  ).transform((ms) => ms ?? AGENT_IDLE_DEFAULT_MS),
  INVESTIBOOK_AGENT_MAX_RUNNING: wholeNumber('INVESTIBOOK_AGENT_MAX_RUNNING', 'a whole number of agents (at least 1)', {
    min: 1,
  }).transform((count) => count ?? AGENT_MAX_RUNNING_DEFAULT),
  // npm run dev (server/dev.ts): Vite's port, and an API server already running (none started then).
  INVESTIBOOK_DEV_PORT: wholeNumber('INVESTIBOOK_DEV_PORT', 'a port number', { max: 65535 }).transform(
    (port) => port ?? 5173,
  ),
  INVESTIBOOK_API_URL: text().transform((value, ctx): string | undefined => {
    if (value === undefined) return undefined;
    if (!/^https?:\/\/[^/]+\/?$/i.test(value)) {
      return fail(ctx, `INVESTIBOOK_API_URL must be a server's origin such as http://127.0.0.1:8787, not "${value}"`);
    }
    return value.replace(/\/$/, '');
  }),
  // Scripts: scripts/record-opencode.ts keeps every request in this folder.
  INVESTIBOOK_RECORD_REQUESTS: text(),
  // investibook import --from-opencode: the user's own OpenCode (default: `opencode` on PATH).
  INVESTIBOOK_OPENCODE: cliFields.INVESTIBOOK_OPENCODE,
});

export type Env = z.output<typeof envSchema>;

export const agentEnvSchema = envSchema.pick({
  INVESTIBOOK_AGENT_COMMAND: true,
  INVESTIBOOK_AGENT_RUNTIME: true,
  INVESTIBOOK_AGENT_EXPORT_COMMAND: true,
  INVESTIBOOK_AGENT_PERMISSIONS: true,
  INVESTIBOOK_AGENT_WORKSPACE_PERMISSIONS: true,
  INVESTIBOOK_AGENT_SANDBOX: true,
  INVESTIBOOK_AGENT_SANDBOX_READ: true,
  INVESTIBOOK_AGENT_BWRAP: true,
  INVESTIBOOK_AGENT_STATE_DIR: true,
  INVESTIBOOK_AGENT_TURN_TIMEOUT_MS: true,
  INVESTIBOOK_AGENT_EGRESS_HOSTS: true,
  INVESTIBOOK_AGENT_IDLE_MS: true,
  INVESTIBOOK_AGENT_MAX_RUNNING: true,
});
export type AgentEnv = z.output<typeof agentEnvSchema>;

/** The variables of `schema` (all of them by default) from `env`, or an EnvError naming every bad one. */
export function readEnv<S extends z.ZodType = typeof envSchema>(
  env: NodeJS.ProcessEnv = process.env,
  schema: S = envSchema as unknown as S,
): z.output<S> {
  return parseEnv(env, schema);
}
