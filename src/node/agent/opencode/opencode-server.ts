/**
 * OpenCode's own HTTP server (`opencode serve`), run as the workspace's agent is — the same
 * confinement, environment and storage, so it sees the agent's sessions — on loopback with a
 * password only this process and the bridge know, asked, and stopped again. The definitions
 * recorder asks it what the agent sends (runtime-definitions.ts); a report's revert makes it
 * revert a session (revert.ts), which OpenCode's ACP agent cannot.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Launcher } from '../mcp-tools';

/** OpenCode's server inside a sandbox with a network of its own: any port is free there. */
const SERVE_PORT = 4096;

export interface ServerOptions {
  /** How a program runs as the agent does (the bridge: its sandbox; the recorder: as it is). */
  launch: Launcher;
  /**
   * Whether `launch` gives the program a network of its own (the sandbox): its server then
   * listens on a fixed port there and is asked through the socket the launch returns.
   */
  isolatedNetwork?: boolean;
  /** OpenCode's server command (`opencode serve`): the port and host are added. */
  serve: { command: string; args: readonly string[] };
  startTimeoutMs?: number;
}

export interface OpencodeServer {
  get<T>(path: string): Promise<T>;
  /** A JSON body posted; its JSON answer. */
  post<T>(path: string, body: unknown): Promise<T>;
  stop(): Promise<void>;
}

/**
 * `opencode serve` on loopback — in its sandbox's own network, asked through the socket its launch
 * opened; unsandboxed, on a free port — with a password only this process and the bridge know.
 */
export async function startServer(options: ServerOptions): Promise<OpencodeServer> {
  const isolated = options.isolatedNetwork ?? false;
  const port = isolated ? SERVE_PORT : 0;
  const how = await options.launch(
    {
      command: options.serve.command,
      args: [...options.serve.args, '--hostname', '127.0.0.1', '--port', String(port)],
    },
    isolated ? { inbound: port } : undefined,
  );
  const secret = how.secret ?? { username: 'opencode', password: randomBytes(18).toString('base64url') };
  // The client OpenCode's ACP agent is: the tool list of an ACP session (no `question` tool).
  // The user is named too: an operator's OPENCODE_SERVER_USERNAME would otherwise refuse our login.
  const env = {
    ...how.env,
    OPENCODE_CLIENT: 'acp',
    OPENCODE_SERVER_USERNAME: secret.username,
    OPENCODE_SERVER_PASSWORD: secret.password,
  };
  const child = spawn(how.command, [...how.args], { cwd: how.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`it did not start within ${(options.startTimeoutMs ?? 30_000) / 1000} s`)),
      options.startTimeoutMs ?? 30_000,
    );
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (error) => (clearTimeout(timer), reject(error)));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`it exited with ${code}: ${output.trim().split('\n').at(-1) ?? ''}`));
    });
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await how.close?.();
    throw error;
  });
  const authorization = `Basic ${Buffer.from(`${secret.username}:${secret.password}`).toString('base64')}`;
  const target = how.inboundSocket ? { socketPath: how.inboundSocket } : { url: new URL(url) };
  const headers = { Authorization: authorization, Accept: 'application/json' };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    await how.close?.();
  };
  return {
    get: async <T>(path: string) => JSON.parse(await ask(target, { method: 'GET', path, headers })) as T,
    post: async <T>(path: string, body: unknown) =>
      JSON.parse(
        await ask(target, {
          method: 'POST',
          path,
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        }),
      ) as T,
    stop,
  };
}

/** A request to OpenCode's server, over its socket or its loopback port, bounded in time. */
function ask(
  target: { socketPath: string } | { url: URL },
  asked: { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string },
  timeoutMs = 15_000,
): Promise<string> {
  const where = 'socketPath' in target ? target : { host: target.url.hostname, port: target.url.port };
  const { method, path, headers, body } = asked;
  const what = `${method} ${path.split('?')[0]}`;
  return new Promise((resolve, reject) => {
    const req = request({ ...where, method, path, headers, timeout: timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(text) : reject(new Error(`${what} answered ${res.statusCode}`)),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${what} took longer than ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
