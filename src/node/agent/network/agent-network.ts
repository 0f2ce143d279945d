/**
 * One confined program's network, as the server sets it up: the sandbox has a network namespace
 * of its own (bubblewrap `--unshare-net`: only a loopback, nothing of the host's), and what it
 * may reach goes through Unix sockets in a folder of its own (mode 0700, shown to that sandbox
 * alone), which the relay inside the sandbox (relay.ts) joins to its loopback:
 *
 * - `egress.sock` — the egress proxy (egress-proxy.ts): HTTPS_PROXY and HTTP_PROXY inside name
 *   the relay in front of it; only the hosts of the agent's policy;
 * - `report.sock` — the report gateway (report-gateway.ts): the agent's MCP server reaches its
 *   own workspace's report, and no other route;
 * - `port-N.sock` — a local model server on the host's loopback that the policy names, at the
 *   same port inside (NO_PROXY keeps loopback requests off the proxy);
 * - `in.sock` — the other way: the server asks the program's own port inside (the definitions
 *   recorder's `opencode serve`).
 *
 * Nothing else leads out: the host's loopback, its private ranges and the other agents' networks
 * do not exist in there.
 */
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../project';
import { nodeFolder } from '../report-mcp';
import type { EgressPolicy } from './egress-policy';
import { pipeBoth, startEgressProxy, type EgressDecision } from './egress-proxy';
import type { RelaySpec } from './relay';
import { startReportGateway } from './report-gateway';

/** The compiled relay (scripts/build-node.mjs builds it with the server). */
export const RELAY_ENTRY = join(PROJECT_ROOT, 'build', 'node', 'relay.mjs');

/** Ports inside the sandbox for the proxy and the report, moved up past anything the policy uses. */
const PROXY_PORT = 3128;
const REPORT_PORT = 8787;

export interface NetworkNeeds {
  /** Where the agent may connect to. */
  policy: EgressPolicy;
  /** Its own context report: the server's origin and the workspace. */
  report?: { origin: string; workspaceId: string } | undefined;
  /** A port of the program's that the server asks (the recorder's `opencode serve`). */
  inbound?: number | undefined;
  onDecision?: (decision: EgressDecision) => void;
  /** Name resolution for the proxy (tests). */
  resolve?: (host: string) => Promise<{ address: string }[]>;
}

export interface AgentNetwork {
  /** The folder of sockets: bound into the sandbox (read-write: the inbound socket is made inside). */
  dir: string;
  /** The program as the sandbox runs it: behind the relay. */
  wrap: (command: string, args: readonly string[]) => { command: string; args: string[] };
  /** The proxy variables inside. */
  env: Record<string, string>;
  /** The report's origin as seen from inside (for the MCP server's --api), when asked for. */
  reportOrigin: string | null;
  /** The socket that reaches the program's inbound port, when asked for. */
  inboundSocket: string | null;
  /** What the sandbox must show read-only: the relay and the node that runs it. */
  readOnly: string[];
  close: () => Promise<void>;
}

/** Opens the sockets outside; the sandbox is started with `wrap` and `dir`. */
export async function openAgentNetwork(needs: NetworkNeeds, node = process.execPath): Promise<AgentNetwork> {
  // Short: a Unix socket's path must stay under 108 bytes, whatever the data folder is.
  const dir = mkdtempSync(join(tmpdir(), 'ib-net-'));
  const servers: Server[] = [];
  const used = new Set(needs.policy.loopback.map((t) => t.port));
  const free = (port: number) => {
    while (used.has(port) || port === needs.inbound) port++;
    used.add(port);
    return port;
  };
  const spec: RelaySpec = { out: [], in: [] };
  const env: Record<string, string> = {};
  try {
    const egress = join(dir, 'egress.sock');
    servers.push(
      await startEgressProxy(egress, {
        policy: needs.policy,
        ...(needs.onDecision ? { onDecision: needs.onDecision } : {}),
        ...(needs.resolve ? { resolve: needs.resolve } : {}),
      }),
    );
    const proxyPort = free(PROXY_PORT);
    spec.out.push({ host: '127.0.0.1', port: proxyPort, socket: egress });
    const proxy = `http://127.0.0.1:${proxyPort}`;
    Object.assign(env, {
      HTTPS_PROXY: proxy,
      HTTP_PROXY: proxy,
      https_proxy: proxy,
      http_proxy: proxy,
      NO_PROXY: '127.0.0.1,localhost,::1',
      no_proxy: '127.0.0.1,localhost,::1',
    });
    for (const target of needs.policy.loopback) {
      const socket = join(dir, `port-${target.port}.sock`);
      servers.push(await pipeServer(socket, target.host === '::1' ? '::1' : '127.0.0.1', target.port));
      spec.out.push({ host: '127.0.0.1', port: target.port, socket }, { host: '::1', port: target.port, socket });
    }
    let reportOrigin: string | null = null;
    if (needs.report) {
      const socket = join(dir, 'report.sock');
      servers.push(await startReportGateway(socket, needs.report.origin, needs.report.workspaceId));
      const port = free(REPORT_PORT);
      spec.out.push({ host: '127.0.0.1', port, socket });
      reportOrigin = `http://127.0.0.1:${port}`;
    }
    const inboundSocket = needs.inbound ? join(dir, 'in.sock') : null;
    if (inboundSocket && needs.inbound) spec.in.push({ socket: inboundSocket, port: needs.inbound });
    return {
      dir,
      env,
      reportOrigin,
      inboundSocket,
      readOnly: [RELAY_ENTRY, ...nodeFolder(node)],
      wrap: (command, args) => ({ command: node, args: [RELAY_ENTRY, JSON.stringify(spec), '--', command, ...args] }),
      close: async () => {
        await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** A socket whose every connection is passed to a port on the host's loopback (a local model). */
function pipeServer(socket: string, host: string, port: number): Promise<Server> {
  const server = createServer((client) => pipeBoth(client, connect(port, host))) as unknown as Server;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve(server));
  });
}
