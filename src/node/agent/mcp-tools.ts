/**
 * What an MCP server offers the model, asked the way OpenCode asks it — with the official SDK's
 * client: `initialize` (its instructions, whether it has resources), then `tools/list`, page by
 * page. A local server is started as the agent would start it (the caller's launch: the same
 * sandbox and environment) and spoken to over its stdio; a remote one over MCP's streamable HTTP,
 * only when the agent's own network would reach it (`reaches`: the server's process must not ask
 * what the agent could not). OpenCode's own server lists no MCP tools, hence this.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface McpTool {
  name: string;
  description: string;
  /** The tool's input schema as the server sent it, as text. */
  inputSchema: string;
}

export interface McpListing {
  tools: McpTool[];
  instructions?: string;
  resources: boolean;
}

/** An MCP server as OpenCode's configuration names it (`mcp.<name>`). */
export type McpConfig =
  | { type: 'local'; command: string[]; environment?: Record<string, string>; timeout?: number }
  | { type: 'remote'; url: string; headers?: Record<string, string>; timeout?: number };

/** A program as it runs for the agent; `inbound`: a port of its own that the caller will ask. */
export type Launcher = (
  program: { command: string; args: readonly string[] },
  needs?: { inbound: number },
) => Promise<LaunchedProgram>;

export interface LaunchedProgram {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The socket that reaches the inbound port (a sandbox with a network of its own). */
  inboundSocket?: string | null;
  /** The password its servers ask for. */
  secret?: { username: string; password: string };
  /** Closes what the launch opened for it, once the program ended. */
  close?: () => Promise<void>;
}

const CLIENT = { name: 'investibook', version: '1' };
/** OpenCode's own default for an MCP server's answers. */
const DEFAULT_TIMEOUT_MS = 5000;
const MAX_PAGES = 50;

export async function listMcpTools(
  config: McpConfig,
  launch: Launcher,
  reaches: (url: string) => boolean = () => true,
): Promise<McpListing> {
  const timeout = Math.max(config.timeout ?? DEFAULT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS);
  if (config.type === 'remote') {
    if (!reaches(config.url)) throw new Error("the agent's network does not reach it (not one of its allowed hosts)");
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: { ...config.headers } },
    });
    return ask(transport, timeout, async () => {});
  }
  const [command, ...args] = config.command;
  if (!command) throw new Error('its command is empty');
  const how = await launch({ command, args });
  const env = Object.fromEntries(
    Object.entries({ ...how.env, ...config.environment }).filter(
      (e): e is [string, string] => typeof e[1] === 'string',
    ),
  );
  const transport = new StdioClientTransport({
    command: how.command,
    args: [...how.args],
    cwd: how.cwd,
    env,
    stderr: 'ignore',
  });
  return ask(transport, timeout, async () => {
    await how.close?.();
  });
}

async function ask(transport: Transport, timeout: number, done: () => Promise<void>): Promise<McpListing> {
  const client = new Client(CLIENT, { capabilities: {} });
  try {
    await client.connect(transport, { timeout });
    const capabilities = client.getServerCapabilities() ?? {};
    const tools: McpTool[] = [];
    if (capabilities.tools !== undefined) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const listed = await client.listTools(cursor ? { cursor } : {}, { timeout });
        for (const tool of listed.tools) {
          tools.push({
            name: tool.name,
            description: tool.description ?? '',
            inputSchema: JSON.stringify(tool.inputSchema ?? {}),
          });
        }
        cursor = listed.nextCursor || undefined;
        if (!cursor) break;
      }
    }
    const instructions = client.getInstructions();
    return { tools, ...(instructions ? { instructions } : {}), resources: capabilities.resources !== undefined };
  } finally {
    await client.close().catch(() => {});
    await done();
  }
}
