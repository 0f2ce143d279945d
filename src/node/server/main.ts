/**
 * The `npm start` entry: configuration from the environment, then `start`. Expected failures
 * (a database that cannot be opened, a port in use) end with one line on stderr and exit 1;
 * a bad setting with exit 2.
 */
import { asAppError } from '../errors';
import { FolderError } from '../fs-safe';
import { StoreOpenError, StoreUnavailable } from '../storage/store';
import { agentSettingsFromEnv, type AgentSettings } from '../agent/settings';
import { parseAllowedHosts } from './guards';
import { dataDirFor, start } from './start';

function fail(message: string, code = 1): never {
  process.stderr.write(`investibook: ${message}\n`);
  process.exit(code);
}

export interface MainOverrides {
  /** The agent's environment instead of the server's (npm run demo:agent: a private HOME). */
  agentEnv?: NodeJS.ProcessEnv;
}

export async function main(env: NodeJS.ProcessEnv = process.env, overrides: MainOverrides = {}): Promise<void> {
  const port = Number(env.PORT || 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PORT must be a port number, not "${env.PORT}"`, 2);
  const database = env.INVESTIBOOK_DATABASE_URL || env.INVESTIBOOK_DB || './data/investibook.db';
  const dataDir = env.INVESTIBOOK_DATA_DIR || undefined;
  let agent: AgentSettings | null;
  try {
    agent = agentSettingsFromEnv(env, { dataDir: dataDirFor(database, dataDir) });
    if (agent && overrides.agentEnv) agent = { ...agent, env: overrides.agentEnv };
  } catch (error) {
    fail((error as Error).message, 2);
  }
  let running: Awaited<ReturnType<typeof start>>;
  try {
    running = await start({
      database,
      reportDatabase: env.INVESTIBOOK_REPORT_DATABASE_URL || undefined,
      dataDir,
      host: env.HOST || undefined,
      allowedHosts: parseAllowedHosts(env.INVESTIBOOK_ALLOWED_HOSTS),
      agent,
      port,
      token: env.INVESTIBOOK_TOKEN || undefined,
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
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
