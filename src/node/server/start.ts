/**
 * `npm start`: opens the store (SQLite by default, PostgreSQL when configured) and seeds the
 * demo when the database is new, builds the web app when it is missing or older than its
 * sources, serves everything on $HOST:$PORT (127.0.0.1 by default) and prints the signed-in
 * URL of the demo workspace.
 */
import { serve } from '@hono/node-server';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { generateToken, sha256Hex } from '../auth';
import { DEMO_USER_ID, DEMO_WORKSPACE_ID, seedDemo } from '../demo/builder';
import { failed } from '../errors';
import { dataSecrets } from '../folder-rules';
import { ensureFolder } from '../fs-safe';
import { sweepStaleTemp } from '../temp-folders';
import { PROJECT_ROOT } from '../project';
import { isDatabaseUrl, openStore, redact } from '../storage/open';
import type { Store } from '../storage/store';
import { AgentBridge } from '../agent/bridge';
import type { AgentSettings } from '../agent/settings';
import { createLogger, type Logger, type LogLevel } from '../log';
import type { ReportService } from '../report/service';
import { createApp } from './app';

const WEB_ROOT = join(PROJECT_ROOT, 'dist');

export interface StartOptions {
  /** A SQLite file path or a postgres:// URL. */
  database: string;
  /** Where reports read from (a read replica); default: the same database, read-only. */
  reportDatabase?: string | undefined;
  /** Where relative workspace folders live when the database is not a file (PostgreSQL). */
  dataDir?: string | undefined;
  port: number;
  host?: string | undefined;
  /** Host names served besides loopback ones (see guards.ts). */
  allowedHosts?: readonly string[];
  /** The live agent (agent/settings.ts); none: the chat says how to attach one. */
  agent?: AgentSettings | null;
  token?: string | undefined;
  build?: boolean;
  /** Where progress lines for people go (default: stdout): the `Open …` line among them. */
  log?: (line: string) => void;
  /** The structured log (log.ts; default: JSON lines on stderr at `logLevel`). */
  logger?: Logger;
  /** INVESTIBOOK_LOG_LEVEL (default info). */
  logLevel?: LogLevel;
  /** Make the workspaces' current reports in the background once listening (default true). */
  warm?: boolean;
}

/** The folder of investibook's data: INVESTIBOOK_DATA_DIR, else the SQLite file's, else ./data. */
export function dataDirFor(database: string, dataDir?: string): string {
  return resolve(dataDir ?? (isDatabaseUrl(database) ? 'data' : dirname(resolve(database))));
}

export async function start(options: StartOptions) {
  const log = options.log ?? ((line: string) => console.log(line));
  const logger = options.logger ?? createLogger({ level: options.logLevel ?? 'info' });
  const sqlite = !isDatabaseUrl(options.database);
  const database = sqlite ? resolve(options.database) : options.database;
  const dataDir = dataDirFor(database, options.dataDir);
  sweepStaleTemp();
  const { store, reportStore, token } = await openStores(options, { sqlite, database, dataDir, log });

  const agentSettings = options.agent
    ? { ...options.agent, hidden: [...options.agent.hidden, ...agentSecrets(options, { sqlite, database, dataDir })] }
    : null;
  // The agent's lines are the process's, not a request's: a turn outlives the request that started it.
  const agentLog = logger.child({ component: 'agent' });
  const agent = new AgentBridge(agentSettings, store, (line) => agentLog.warn(line));
  let reports: ReportService | null = null;
  const app = createApp({
    onReportService: (service) => (reports = service),
    store,
    reportStore,
    agent,
    webRoot: WEB_ROOT,
    allowedHosts: options.allowedHosts ?? [],
    logger,
  });
  const host = options.host ?? '127.0.0.1';
  const server = serve({ fetch: app.fetch, hostname: host, port: options.port });
  const closeStores = async () => {
    await agent.close();
    await reportStore.close();
    await store.close();
  };
  try {
    await listening(server);
  } catch (error) {
    await closeStores();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  // The agents' MCP servers read their own reports here (agent/report-mcp.ts).
  agent.serveReportsAt(agentOrigin(host, port));
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/w/${DEMO_WORKSPACE_ID}`;
  log(token ? `Open ${url}?token=${token}` : `Open ${url} (sign in with ?token=YOUR_TOKEN)`);
  const warming =
    options.warm !== false && reports ? warmUp(reports, store, logger) : { done: Promise.resolve([]), stop() {} };
  return {
    url,
    port,
    token,
    store,
    /** The workspaces whose current report the warm-up made (none with `warm: false`). */
    warmed: warming.done,
    /**
     * Stops the agent first (its turns end, saved), then the server (which waits for open
     * streams: there are none left), then the stores. Never rejects.
     */
    close: async () => {
      warming.stop();
      await warming.done;
      await agent.close().catch(() => {});
      await new Promise<void>((done) => server.close(() => done()));
      await closeStores().catch(() => {});
    },
  };
}

interface Location {
  sqlite: boolean;
  /** The resolved SQLite file, or the database URL. */
  database: string;
  dataDir: string;
}

/**
 * Opens the store, seeds the demo when the database is new, settles the demo's sign-in token,
 * builds the web app when stale and opens the read-only report store. On any failure the store
 * is closed again before the error goes on.
 */
async function openStores(
  options: StartOptions,
  { sqlite, database, dataDir, log }: Location & { log: (line: string) => void },
): Promise<{ store: Store; reportStore: Store; token: string | undefined }> {
  const isNew = sqlite && !existsSync(database);
  if (sqlite) ensureFolder(dirname(database));
  if (sqlite && !isNew) warnIfShared(database, log);
  let token = options.token;

  const store = await openStore({ location: database, dataDir });
  try {
    if (isNew || (!sqlite && (await store.listWorkspaces()).length === 0)) {
      token ??= generateToken();
      try {
        await seedDemo(store, token);
        rememberToken(dataDir, database, token);
        log(`Created the demo database at ${sqlite ? database : redact(database)}`);
      } catch (error) {
        // Several instances starting on one empty database: one seeds, the others find it seeded.
        if ((await store.listWorkspaces()).length === 0) throw error;
        if (!options.token) token = undefined;
      }
    }
    token = await ensureDemoToken(store, dataDir, database, token);
    if (options.build !== false) await buildWebIfStale(log);
    const reportStore = await openStore({ location: options.reportDatabase ?? database, readOnly: true, dataDir });
    return { store, reportStore, token };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * The agent never sees the database or the sign-in token, whatever its sandbox binds; its
 * working folder never holds them, nor the database's folder or the data folder (folder-rules.ts).
 */
function agentSecrets(options: StartOptions, { sqlite, database, dataDir }: Location): string[] {
  return [
    ...dataSecrets(sqlite ? database : null, dataDir),
    ...(sqlite ? [`${database}-wal`, `${database}-shm`, `${database}-journal`] : []),
    ...(options.reportDatabase && !isDatabaseUrl(options.reportDatabase) ? [resolve(options.reportDatabase)] : []),
    tokenFile(dataDir, database),
  ];
}

function listening(server: ReturnType<typeof serve>): Promise<void> {
  return new Promise<void>((ok, fail) => {
    server.once('listening', ok);
    server.once('error', fail);
  });
}

/**
 * A database other users may read holds every message for them to read: said once at start
 * (new databases are made owner-only; an old one is the operator's to close).
 */
function warnIfShared(database: string, log: (line: string) => void): void {
  let mode: number;
  try {
    mode = statSync(database).mode & 0o777;
  } catch {
    return; // opening it says what is wrong
  }
  if (mode & 0o044)
    log(
      `Warning: the database ${database} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}): every message in it is theirs to read; \`chmod 600 ${database}\` closes it`,
    );
}

/**
 * Where an agent on this machine reaches the server: loopback when the server listens on it (or
 * on every address), else the one address it listens on.
 */
export function agentOrigin(host: string, port: number): string {
  // A server on IPv6 loopback only is not reachable at 127.0.0.1 (nor, where `localhost` is ::1, that).
  const name = ['0.0.0.0', '::', '', '127.0.0.1', 'localhost'].includes(host)
    ? host === 'localhost'
      ? 'localhost'
      : '127.0.0.1'
    : host.includes(':')
      ? `[${host}]`
      : host;
  return `http://${name}:${port}`;
}

/**
 * Tokens are stored hashed, so the demo's sign-in link is kept beside the data (mode 0600) for
 * later starts. $INVESTIBOOK_TOKEN, when set, is registered for the demo user instead.
 */
async function ensureDemoToken(store: Store, dataDir: string, database: string, envToken: string | undefined) {
  if (envToken) {
    if (!(await store.userIdForTokenHash(sha256Hex(envToken)))) {
      await store.insertTokenHash(sha256Hex(envToken), DEMO_USER_ID);
    }
    return envToken;
  }
  const file = tokenFile(dataDir, database);
  if (!existsSync(file)) return undefined;
  const saved = readFileSync(file, 'utf8').trim();
  return (await store.userIdForTokenHash(sha256Hex(saved))) ? saved : undefined;
}

function rememberToken(dataDir: string, database: string, token: string): void {
  const file = tokenFile(dataDir, database);
  ensureFolder(dirname(file));
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
}

/** Beside a SQLite file; in the data folder for a database server. */
const tokenFile = (dataDir: string, database: string): string =>
  isDatabaseUrl(database) ? join(dataDir, 'demo-token') : `${database}.demo-token`;

/**
 * In a checkout (its vite.config.ts is there), the web app is built when missing or older than its
 * sources; an installed package ships it built (`prepack`) and builds nothing: without the
 * sources and Vite there is nothing to build it from.
 */
async function buildWebIfStale(log: (line: string) => void): Promise<void> {
  const index = join(WEB_ROOT, 'index.html');
  if (!existsSync(join(PROJECT_ROOT, 'vite.config.ts'))) {
    if (existsSync(index)) return;
    throw failed(
      'web_app_missing',
      `the web app is missing from this install (${WEB_ROOT}): install the package again`,
    );
  }
  const sources = [join(PROJECT_ROOT, 'src'), join(PROJECT_ROOT, 'index.html'), join(PROJECT_ROOT, 'vite.config.ts')];
  if (existsSync(index) && newestMtime(sources) <= statSync(index).mtimeMs) return;
  log('Building the web app…');
  const { build } = await import('vite');
  // A production bundle even when started from a test runner (NODE_ENV=test would make Vite
  // build React's development bundle).
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: join(PROJECT_ROOT, 'vite.config.ts'),
      root: PROJECT_ROOT,
      mode: 'production',
      logLevel: 'warn',
    });
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}

function newestMtime(paths: string[]): number {
  let newest = 0;
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const stats = statSync(path);
    if (stats.isDirectory()) {
      newest = Math.max(newest, newestMtime(readdirSync(path).map((name) => join(path, name))));
    } else newest = Math.max(newest, stats.mtimeMs);
  }
  return newest;
}

/** Workspaces whose current report is made ahead of the first /debug. */
const WARM_WORKSPACES = 8;

/**
 * Once the server listens, the current report of a few workspaces is made in the background:
 * the tokenizer's tables are loaded and the report service's memo holds every message's analysis,
 * so the first /debug answers as fast as a later one (it reads the same snapshot, or only what
 * changed since). Read-only, like any report; a failure only costs the head start.
 */
function warmUp(service: ReportService, store: Store, logger: Logger): { done: Promise<string[]>; stop(): void } {
  let stopped = false;
  const done = new Promise<string[]>((resolve) =>
    setImmediate(async () => {
      const warmed: string[] = [];
      try {
        for (const workspace of (await store.listWorkspaces()).slice(0, WARM_WORKSPACES)) {
          if (stopped) break;
          await service.report({ workspaceId: workspace.id }).then(
            () => warmed.push(workspace.id),
            (error: unknown) => logger.debug({ err: error, workspace: workspace.id }, 'warm-up report failed'),
          );
          await new Promise((next) => setImmediate(next));
        }
      } catch (error) {
        logger.debug({ err: error }, 'warm-up failed');
      }
      resolve(warmed);
    }),
  );
  return { done, stop: () => (stopped = true) };
}
