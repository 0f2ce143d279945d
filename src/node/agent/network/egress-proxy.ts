/**
 * The agent's one way to the outside: an HTTP proxy that runs in the server's process, on a Unix
 * socket only the agent's sandbox is shown (a relay inside the sandbox listens on the agent's own
 * loopback and passes each connection to it; HTTPS_PROXY names that relay). It opens a tunnel
 * (`CONNECT host:port`) or forwards a plain request (`GET http://host:port/…`) only to a host the
 * agent's policy allows — by host name and port, checked before anything is resolved — and only
 * to an address the guard lets through. Everything else is answered 403 with the reason, and
 * every decision is reported (the server's log, the tests).
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { EgressRefused, EgressUnreachable, resolveAllowed } from './address-guard';
import type { EgressPolicy } from './egress-policy';

export interface EgressDecision {
  host: string;
  port: number;
  allowed: boolean;
  /** Why it was refused, or could not be reached. */
  reason?: string;
}

export interface ProxyOptions {
  policy: EgressPolicy;
  onDecision?: (decision: EgressDecision) => void;
  /** Name resolution (tests resolve a real provider's name without a network). */
  resolve?: (host: string) => Promise<{ address: string }[]>;
}

/** Whether the policy names `host:port`, and whether that is an IP literal it names itself. */
export function allows(policy: EgressPolicy, host: string, port: number): { allowed: boolean; literal: boolean } {
  const name = host.toLowerCase().replace(/\.$/, '');
  const entries = [...policy.hosts, ...policy.loopback];
  const match = entries.find(
    (e) =>
      (e.port === '*' || e.port === port) &&
      (e.host === name || (e.host.startsWith('*.') && name.endsWith(e.host.slice(1)))),
  );
  if (match) return { allowed: true, literal: match.host === name };
  return { allowed: policy.open, literal: false };
}

/** `host:port` of a CONNECT, `[v6]:port` too. */
function authority(target: string | undefined): { host: string; port: number } | null {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(target ?? '');
  if (!match) return null;
  const port = Number(match[3]);
  return port >= 1 && port <= 65535 ? { host: (match[1] ?? match[2]!).toLowerCase(), port } : null;
}

export function startEgressProxy(socketPath: string, options: ProxyOptions): Promise<Server> {
  const decide = async (host: string, port: number): Promise<string> => {
    const { allowed, literal } = allows(options.policy, host, port);
    if (!allowed) {
      throw new EgressRefused(
        `${host}:${port} is not one of the hosts this agent may reach (its model provider's, and INVESTIBOOK_AGENT_EGRESS_HOSTS)`,
      );
    }
    return resolveAllowed(host, literal, options.resolve);
  };
  const report = (host: string, port: number, error?: unknown) =>
    options.onDecision?.({
      host,
      port,
      allowed: !(error instanceof EgressRefused),
      ...(error ? { reason: (error as Error).message } : {}),
    });

  const server = createServer((req, res) => void forward(req, res, decide, report));
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => {});
    const target = authority(req.url);
    if (!target) return refuse(client, 400, 'CONNECT needs host:port');
    decide(target.host, target.port).then(
      (address) => {
        const upstream = connect({ host: address, port: target.port });
        upstream.once('connect', () => {
          report(target.host, target.port);
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length) upstream.write(head);
          pipeBoth(client, upstream);
        });
        upstream.once('error', (error) => {
          report(target.host, target.port, new EgressUnreachable(error.message));
          refuse(client, 502, `${target.host}:${target.port} could not be reached (${error.message})`);
        });
      },
      (error: unknown) => {
        report(target.host, target.port, error);
        refuse(client, statusOf(error), (error as Error).message);
      },
    );
  });
  // WebSocket upgrades and anything else that is not a plain request or a tunnel.
  server.on('upgrade', (_req, client: Duplex) => refuse(client, 403, 'upgrades are not proxied'));
  server.on('clientError', (_error, client: Duplex) => client.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve(server));
  });
}

/** A plain request through the proxy: absolute-form only (a request for `/session` names no host). */
async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  decide: (host: string, port: number) => Promise<string>,
  report: (host: string, port: number, error?: unknown) => void,
): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
    if (url.protocol !== 'http:') throw new Error('not http');
  } catch {
    return answer(res, 400, 'this is the agent’s egress proxy: a request must name its target (http://host:port/…)');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port ? Number(url.port) : 80;
  let address: string;
  try {
    address = await decide(host, port);
  } catch (error) {
    report(host, port, error);
    return answer(res, statusOf(error), (error as Error).message);
  }
  const headers = { ...req.headers };
  for (const name of ['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive']) delete headers[name];
  const upstream = httpRequest(
    { host: address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false },
    (response) => {
      report(host, port);
      res.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(res);
    },
  );
  upstream.on('error', (error) => {
    report(host, port, new EgressUnreachable(error.message));
    if (!res.headersSent) answer(res, 502, `${host}:${port} could not be reached (${error.message})`);
    else res.destroy();
  });
  req.pipe(upstream);
}

const statusOf = (error: unknown): number =>
  error instanceof EgressRefused || error instanceof EgressUnreachable ? error.status : 502;

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
  res.end(`investibook: ${text}\n`);
}

function refuse(client: Duplex, status: number, text: string): void {
  const body = `investibook: ${text}\n`;
  client.end(
    `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : status === 400 ? 'Bad Request' : 'Bad Gateway'}\r\n` +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function pipeBoth(a: Duplex, b: Socket | Duplex): void {
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}
