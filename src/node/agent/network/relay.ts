/**
 * Runs inside the agent's sandbox, which has a network of its own (only a loopback), in front of
 * the agent program (compiled to build/node/relay.mjs):
 *
 *   node relay.mjs SPEC -- PROGRAM ARGS…
 *
 * It listens on the sandbox's loopback for each way out the server gave the agent — its egress
 * proxy, its report gateway, each local model port — and passes every connection to the Unix
 * socket the server listens on for it (bound into the sandbox); for each way in (the definitions
 * recorder's `opencode serve`), it listens on a Unix socket and passes to the program's port. Then
 * it runs the program with its own standard streams (the ACP stdio goes straight through), hands
 * on the signals it gets, and exits as the program did. It decides nothing: the server's side of
 * each socket does. It imports nothing but Node's own modules and never writes to stdout.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface RelaySpec {
  /** Loopback ports inside that lead to a socket outside. */
  out: { host: string; port: number; socket: string }[];
  /** Sockets (visible outside) that lead to a loopback port inside. */
  in: { socket: string; port: number }[];
}

function pipe(a: Socket, b: Socket): void {
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

function listen(server: Server, where: { host: string; port: number } | string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    if (typeof where === 'string') server.listen(where, resolve);
    else server.listen(where.port, where.host, resolve);
  });
}

export async function openRelays(spec: RelaySpec): Promise<Server[]> {
  const servers: Server[] = [];
  for (const route of spec.out) {
    const server = createServer((client) => pipe(client, connect(route.socket)));
    try {
      await listen(server, route);
      servers.push(server);
    } catch (error) {
      // A sandbox without IPv6 has no ::1: the IPv4 relay is enough.
      if (route.host === '::1') continue;
      throw error;
    }
  }
  for (const route of spec.in) {
    rmSync(route.socket, { force: true });
    const server = createServer((client) => pipe(client, connect(route.port, '127.0.0.1')));
    await listen(server, route.socket);
    servers.push(server);
  }
  return servers;
}

async function main(argv: string[]): Promise<void> {
  const cut = argv.indexOf('--');
  const spec = JSON.parse(argv[0] ?? '') as RelaySpec;
  const [program, ...args] = argv.slice(cut + 1);
  if (cut !== 1 || !program) throw new Error('usage: relay.mjs SPEC -- PROGRAM ARGS…');
  await openRelays(spec);
  const child = spawn(program, args, { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.once('error', (error) => {
    process.stderr.write(`investibook relay: ${program} could not start: ${error.message}\n`);
    process.exit(127);
  });
  child.once('exit', (code, signal) => process.exit(code ?? (signal ? 128 + signalNumber(signal) : 1)));
}

const signalNumber = (signal: NodeJS.Signals): number =>
  ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 })[signal as string] ?? 1;

if (process.argv[1]?.endsWith('relay.mjs')) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`investibook relay: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
