/**
 * `npm start`: seeds the demo database when it is absent, builds the web app when it is
 * missing or older than its sources, serves everything on 127.0.0.1:$PORT and prints the
 * signed-in URL of the demo workspace.
 */
import { serve } from '@hono/node-server';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateToken, sha256Hex } from '../auth';
import { DEMO_USER_ID, DEMO_WORKSPACE_ID, seedDemoDatabase } from '../demo/builder';
import { insertTokenHash, openReadOnly, openWritable, userIdForTokenHash, type Db } from '../storage/store';
import { createApp } from './app';

const PROJECT = fileURLToPath(new URL('../../../', import.meta.url));
const WEB_ROOT = join(PROJECT, 'dist');

export interface StartOptions {
  dbPath: string;
  port: number;
  token?: string | undefined;
  build?: boolean;
  /** Where progress lines go (default: stdout). */
  log?: (line: string) => void;
}

export async function start(options: StartOptions) {
  const dbPath = resolve(options.dbPath);
  const log = options.log ?? ((line: string) => console.log(line));
  let token = options.token;
  if (!existsSync(dbPath)) {
    token ??= generateToken();
    seedDemoDatabase(dbPath, token);
    rememberToken(dbPath, token);
    log(`Created the demo database at ${dbPath}`);
  }
  const db = openWritable(dbPath);
  token = ensureDemoToken(db, dbPath, token);
  if (options.build !== false) await buildWebIfStale(log);

  let readOnly: Db | null = null;
  const app = createApp({
    db,
    readOnlyDb: () => (readOnly ??= openReadOnly(dbPath)),
    webRoot: WEB_ROOT,
    log: (line) => console.error(line),
  });
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: options.port });
  await new Promise<void>((ok, fail) => {
    server.once('listening', ok);
    server.once('error', fail);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://127.0.0.1:${port}/w/${DEMO_WORKSPACE_ID}`;
  log(token ? `Open ${url}?token=${token}` : `Open ${url} (sign in with ?token=YOUR_TOKEN)`);
  return {
    url,
    port,
    token,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => {
          readOnly?.close();
          db.close();
          done();
        });
      }),
  };
}

/**
 * Tokens are stored hashed, so the demo's sign-in link is kept beside the database (mode 0600)
 * for later starts. $INVESTIBOOK_TOKEN, when set, is registered for the demo user instead.
 */
function ensureDemoToken(db: Db, dbPath: string, envToken: string | undefined): string | undefined {
  if (envToken) {
    if (!userIdForTokenHash(db, sha256Hex(envToken))) insertTokenHash(db, sha256Hex(envToken), DEMO_USER_ID);
    return envToken;
  }
  const file = tokenFile(dbPath);
  if (!existsSync(file)) return undefined;
  const saved = readFileSync(file, 'utf8').trim();
  return userIdForTokenHash(db, sha256Hex(saved)) ? saved : undefined;
}

function rememberToken(dbPath: string, token: string): void {
  writeFileSync(tokenFile(dbPath), `${token}\n`, { mode: 0o600 });
}

const tokenFile = (dbPath: string): string => `${dbPath}.demo-token`;

async function buildWebIfStale(log: (line: string) => void): Promise<void> {
  const index = join(WEB_ROOT, 'index.html');
  const sources = [join(PROJECT, 'src'), join(PROJECT, 'index.html'), join(PROJECT, 'vite.config.ts')];
  if (existsSync(index) && newestMtime(sources) <= statSync(index).mtimeMs) return;
  log('Building the web app…');
  const { build } = await import('vite');
  // A production bundle even when started from a test runner (NODE_ENV=test would make Vite
  // build React's development bundle).
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: join(PROJECT, 'vite.config.ts'), root: PROJECT, mode: 'production', logLevel: 'warn' });
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

export async function main(): Promise<void> {
  const dbPath = process.env.INVESTIBOOK_DB || './data/investibook.db';
  mkdirSync(dirname(resolve(dbPath)), { recursive: true });
  const port = Number(process.env.PORT || 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be a port number, not "${process.env.PORT}"`);
    process.exit(2);
  }
  const running = await start({ dbPath, port, token: process.env.INVESTIBOOK_TOKEN || undefined });
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
