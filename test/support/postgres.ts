/**
 * A real PostgreSQL server for the tests: Debian's binaries (scripts/ensure-packages.sh installs
 * them), a fresh cluster in a temporary folder on a free loopback port, trust authentication,
 * durability off (it is thrown away). As root, the cluster runs as the `postgres` user, since
 * PostgreSQL refuses to run as root. Each test takes a database of its own.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PostgresServer {
  /** The server's URL for a database name. */
  url: (database: string) => string;
  /** A new, empty database; its URL. */
  createDatabase: (prefix?: string) => Promise<string>;
  /** The server's processes: the postmaster and every process it started (backends, workers). */
  processes: () => number[];
  stop: () => void;
}

export function postgresBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) {
    throw new Error(
      'PostgreSQL server binaries not found: run `bash scripts/ensure-packages.sh` (Debian package postgresql) or set PG_BIN',
    );
  }
  return join(base, versions[0], 'bin');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'investibook-pg-'));
  const data = join(dir, 'data');
  const run = (command: string, args: string[]) =>
    execFileSync(
      asRoot ? 'runuser' : join(bin, command),
      asRoot ? ['-u', 'postgres', '--', join(bin, command), ...args] : args,
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        cwd: dir,
      },
    );
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses='127.0.0.1'",
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
  ].join(' ');
  run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once('exit', stop);
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const processes = () => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((name) => {
        try {
          const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
          // pid (comm) state ppid …: the command may hold spaces and parentheses.
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
        } catch {
          return false; // gone meanwhile
        }
      })
      .map(Number);
    return [postmaster, ...children];
  };
  return { url, stop, processes, createDatabase: (prefix) => createDatabase(url('postgres'), prefix) };
}

let counter = 0;

/** A new, empty database on the server of `adminUrl`; its URL. */
export async function createDatabase(adminUrl: string, prefix = 'test'): Promise<string> {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`.toLowerCase();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
