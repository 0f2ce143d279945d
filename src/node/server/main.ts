/**
 * The `npm start` entry: configuration from the environment (one schema, src/node/env.ts), then
 * `start`. Expected failures (a database that cannot be opened, a port in use) end with one line
 * on stderr and exit 1; a bad setting with exit 2.
 */
import { asAppError } from '../errors';
import { FolderError } from '../fs-safe';
import { StoreOpenError, StoreUnavailable } from '../storage/store';
import { agentSettings, type AgentSettings } from '../agent/settings';
import { EnvError, readEnv, type Env } from '../env';
import { dataDirFor, start } from './start';

function fail(message: string, code = 1): never {
  process.stderr.write(`investibook: ${message}\n`);
  process.exit(code);
}

export interface MainOverrides {
  /** The agent's environment instead of the server's (npm run demo:agent: a private HOME). */
  agentEnv?: NodeJS.ProcessEnv;
  /** false: never build the web app (npm run dev serves it from sources). */
  build?: boolean;
  /** Where progress lines go (default: stdout). */
  log?: (line: string) => void;
  /** Also stopped on SIGINT / SIGTERM, beside the server (npm run dev: Vite). */
  onStop?: () => Promise<void>;
}

/** The server's whole environment, parsed; a bad value is one line on stderr and exit 2. */
export function serverEnv(env: NodeJS.ProcessEnv = process.env): Env {
  try {
    return readEnv(env);
  } catch (error) {
    if (error instanceof EnvError) fail(error.message, 2);
    throw error;
  }
}

export const DEFAULT_DATABASE = './data/investibook.db';

export async function main(
  env: NodeJS.ProcessEnv = process.env,
  overrides: MainOverrides = {},
): Promise<Awaited<ReturnType<typeof start>>> {
  const config = serverEnv(env);
  const database = config.INVESTIBOOK_DATABASE_URL ?? config.INVESTIBOOK_DB ?? DEFAULT_DATABASE;
  const dataDir = config.INVESTIBOOK_DATA_DIR;
  const agent: AgentSettings | null = agentSettings(config, {
    dataDir: dataDirFor(database, dataDir),
    env: overrides.agentEnv ?? env,
  });
  const port = config.PORT;
  let running: Awaited<ReturnType<typeof start>>;
  try {
    running = await start({
      database,
      reportDatabase: config.INVESTIBOOK_REPORT_DATABASE_URL,
      dataDir,
      host: config.HOST,
      allowedHosts: config.INVESTIBOOK_ALLOWED_HOSTS,
      agent,
      port,
      token: config.INVESTIBOOK_TOKEN,
      logLevel: config.INVESTIBOOK_LOG_LEVEL,
      warm: config.INVESTIBOOK_WARM !== '0',
      ...(overrides.build === undefined ? {} : { build: overrides.build }),
      ...(overrides.log ? { log: overrides.log } : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`port ${port} is in use: stop what listens there or set PORT`);
    if (code === 'EACCES') fail(`not allowed to listen on port ${port}: choose another with PORT`);
    if (error instanceof StoreOpenError || error instanceof StoreUnavailable || error instanceof FolderError) {
      fail(error.message);
    }
    const known = asAppError(error);
    if (known) fail(known.message);
    throw error;
  }
  const stop = () =>
    void Promise.all([running.close(), overrides.onStop?.().catch(() => {})]).then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return running;
}
