/** Runs `npm start`'s entry point as a real process on a temporary database. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { inject } from 'vitest';

export const PROJECT = join(import.meta.dirname, '../..');

export interface ServerProcess {
  url: string;
  origin: string;
  child: ChildProcess;
  stop: () => Promise<void>;
}

export async function startServerProcess(
  dbPath: string,
  token: string,
  env: Record<string, string> = {},
  /** `start.js` (npm start) or `demo-agent.js` (npm run demo:agent). */
  entry = 'start.js',
  /** A command the server is started through (`unshare -m sh -c '… exec "$@"' sh`): its pid is the server's. */
  launcher: string[] = [],
): Promise<ServerProcess> {
  const [command, ...args] = [...launcher, process.execPath, join(PROJECT, 'bin', entry)];
  const child = spawn(command!, args, {
    cwd: PROJECT,
    env: { ...process.env, INVESTIBOOK_DB: dbPath, PORT: '0', INVESTIBOOK_TOKEN: token, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return serverOf(child);
}

/** The e2e project's one demo server (test/support/demo-server-global.ts): only read it. */
export interface SharedDemoServer {
  /** The `Open …` line's URL: it signs the browser in. */
  url: string;
  origin: string;
  token: string;
  /** Its SQLite file, to show that reading it wrote nothing. */
  dbPath: string;
}

export const sharedDemoServer = (): SharedDemoServer => inject('demoServer');

/** A started server process, once it printed its `Open …` line; `stop` ends it as Ctrl-C would. */
export async function serverOf(child: ChildProcess): Promise<ServerProcess> {
  const url = await openLine(child);
  return {
    url,
    origin: new URL(url).origin,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The URL of the `Open …` line a starting server prints (stdout or stderr), or its exit as an error. */
function openLine(child: ChildProcess): Promise<string> {
  let output = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not print an Open line:\n${output}`)), 150_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^Open (http\S+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}
