/**
 * The live agent's own context report, as an MCP server in its sandbox: each workspace's agent
 * process is started with one ACP `mcpServers` entry — `investibook`, whose tool OpenCode names
 * `investibook_context_report` — that runs the compiled MCP server (build/node/mcp.mjs) as
 *
 *   node mcp.mjs --api http://127.0.0.1:PORT -- WORKSPACE_ID      ($INVESTIBOOK_TOKEN: a report grant)
 *
 * inside the agent's sandbox, as a child of OpenCode. It reaches the report the one way the
 * sandbox's network leaves open — a relay on its loopback to the report gateway, which passes
 * this workspace's report route alone to the running server — with a token that can only GET
 * this workspace's report (report-grants.ts), made when the process starts and dropped when it
 * ends. The database stays invisible; what the sandbox gains is two read-only files: the
 * compiled server (which holds no database driver) and the node program running it.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MCP_SERVER_NAME } from '../mcp-names';
import { PROJECT_ROOT } from '../project';
import type { ReportGrants } from '../report-grants';

/** The compiled MCP server (scripts/build-node.mjs builds it with the server). */
export const MCP_ENTRY = join(PROJECT_ROOT, 'build', 'node', 'mcp.mjs');

export interface ReportMcp {
  servers: McpServer[];
  /** What the sandbox must show, read-only, for the server to run. */
  readOnly: string[];
  /** Drops the grant (the agent process ended). */
  revoke: () => void;
}

const NONE: ReportMcp = { servers: [], readOnly: [], revoke: () => {} };

/** What the sandbox must show, read-only, for the report's MCP server to run (none when it is not built). */
export function reportMcpFiles(entry: string = MCP_ENTRY): string[] {
  return existsSync(entry) ? [entry, ...nodeFolder(process.execPath)] : [];
}

/**
 * The MCP server for one workspace's agent process; none while the server's own address is not
 * known yet, or the compiled server is missing (the agent then runs without the tool). `origin`
 * is the report's origin as the agent reaches it: inside its own network, the report gateway's
 * relay (network/agent-network.ts).
 */
export function reportMcp(
  grants: ReportGrants,
  workspaceId: string,
  origin: string | null,
  entry: string = MCP_ENTRY,
): ReportMcp {
  if (!origin || !existsSync(entry)) return NONE;
  const node = process.execPath;
  const { token, revoke } = grants.issue(workspaceId);
  return {
    servers: [
      {
        name: MCP_SERVER_NAME,
        command: node,
        // `--` first: a workspace id is any text, one starting with "-" included.
        args: [entry, '--api', origin, '--', workspaceId],
        // In the environment, not the command line: other users see command lines (ps), not environments.
        env: [{ name: 'INVESTIBOOK_TOKEN', value: token }],
      },
    ],
    readOnly: [entry, ...nodeFolder(node)],
    revoke,
  };
}

/** The installation node runs from, unless the system's (/usr is in every sandbox). */
export function nodeFolder(node: string): string[] {
  let real = node;
  try {
    real = realpathSync(node);
  } catch {
    // as given
  }
  if (real.startsWith('/usr/')) return [];
  const prefix = dirname(dirname(real));
  // A node installation's own prefix (nvm, a tarball: bin/node beside lib/node_modules or
  // include/node) is bound whole; any other folder is not — a node copied to ~/bin would bind
  // the home folder — so there only the binary itself is shown.
  const installation =
    prefix !== '/' && (existsSync(join(prefix, 'lib', 'node_modules')) || existsSync(join(prefix, 'include', 'node')));
  return installation ? [prefix] : [real];
}
