/**
 * What an MCP server offers the model, asked the way OpenCode asks it: `initialize` (its
 * instructions, whether it has resources), then `tools/list`, page by page. A local server is
 * started as the agent would start it (the caller's launch: the same sandbox and environment)
 * and spoken to over its stdio, one JSON-RPC message a line; a remote one over MCP's streamable
 * HTTP (a JSON or an event-stream answer). OpenCode's own server lists no MCP tools, hence this.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

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

export type Launcher = (program: {
  command: string;
  args: readonly string[];
}) => Promise<{ command: string; args: readonly string[]; cwd: string; env: NodeJS.ProcessEnv }>;

const PROTOCOL = '2025-06-18';
const CLIENT = { name: 'investibook', version: '1' };
/** OpenCode's own default for an MCP server's answers. */
const DEFAULT_TIMEOUT_MS = 5000;
const MAX_PAGES = 50;

type Rpc = (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;

export async function listMcpTools(config: McpConfig, launch: Launcher): Promise<McpListing> {
  const timeout = Math.max(config.timeout ?? DEFAULT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS);
  if (config.type === 'remote') return ask(remoteRpc(config, timeout), async () => {});
  const [command, ...args] = config.command;
  if (!command) throw new Error('its command is empty');
  const how = await launch({ command, args });
  const { rpc, close } = stdioRpc(how, { ...how.env, ...config.environment }, timeout);
  return ask(rpc, close);
}

async function ask(rpc: Rpc, close: () => Promise<void>): Promise<McpListing> {
  try {
    const init = await rpc('initialize', { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: CLIENT });
    await rpc('notifications/initialized');
    const capabilities = (init.capabilities ?? {}) as Record<string, unknown>;
    const tools: McpTool[] = [];
    if (capabilities.tools !== undefined) {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const listed = await rpc('tools/list', cursor ? { cursor } : {});
        for (const tool of (listed.tools ?? []) as Record<string, unknown>[]) {
          if (typeof tool.name !== 'string') continue;
          tools.push({
            name: tool.name,
            description: typeof tool.description === 'string' ? tool.description : '',
            inputSchema: JSON.stringify(tool.inputSchema ?? {}),
          });
        }
        cursor = typeof listed.nextCursor === 'string' && listed.nextCursor ? listed.nextCursor : undefined;
        if (!cursor) break;
      }
    }
    return {
      tools,
      ...(typeof init.instructions === 'string' && init.instructions ? { instructions: init.instructions } : {}),
      resources: capabilities.resources !== undefined,
    };
  } finally {
    await close();
  }
}

function stdioRpc(
  how: { command: string; args: readonly string[]; cwd: string },
  env: NodeJS.ProcessEnv,
  timeout: number,
): { rpc: Rpc; close: () => Promise<void> } {
  const child = spawn(how.command, [...how.args], { cwd: how.cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  let failure: Error | null = null;
  const fail = (error: Error) => {
    failure ??= error;
    for (const w of waiting.values()) w.reject(failure);
    waiting.clear();
  };
  child.once('error', (error) => fail(error));
  child.once('exit', (code, signal) => fail(new Error(`it exited (${signal ?? code}) before it answered`)));
  child.stdin.on('error', () => {});
  createInterface({ input: child.stdout }).on('line', (line) => {
    let message: { id?: unknown; result?: unknown; error?: { message?: unknown } };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return; // not a JSON-RPC line (a server that logs to stdout)
    }
    if (typeof message.id !== 'number') return;
    const entry = waiting.get(message.id);
    if (!entry) return;
    waiting.delete(message.id);
    if (message.error) entry.reject(new Error(`it answered an error: ${String(message.error.message ?? '')}`));
    else entry.resolve((message.result ?? {}) as Record<string, unknown>);
  });
  let next = 0;
  const rpc: Rpc = (method, params) => {
    if (failure) return Promise.reject(failure);
    const notification = method.startsWith('notifications/');
    const id = notification ? undefined : ++next;
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', ...(id ? { id } : {}), method, ...(params ? { params } : {}) })}\n`,
    );
    if (id === undefined) return Promise.resolve({});
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`it did not answer ${method} within ${timeout} ms`));
      }, timeout);
      waiting.set(id, {
        resolve: (value) => (clearTimeout(timer), resolve(value)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
    });
  };
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin.end();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  };
  return { rpc, close };
}

function remoteRpc(config: Extract<McpConfig, { type: 'remote' }>, timeout: number): Rpc {
  let session: string | null = null;
  let next = 0;
  return async (method, params) => {
    const notification = method.startsWith('notifications/');
    const id = notification ? undefined : ++next;
    const response = await fetch(config.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': PROTOCOL,
        ...(session ? { 'Mcp-Session-Id': session } : {}),
        ...config.headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...(id ? { id } : {}), method, ...(params ? { params } : {}) }),
      signal: AbortSignal.timeout(timeout),
    });
    session = response.headers.get('mcp-session-id') ?? session;
    if (!response.ok) throw new Error(`it answered ${method} with HTTP ${response.status}`);
    if (id === undefined) return {};
    const text = await response.text();
    const bodies = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text.split('\n').flatMap((line) => (line.startsWith('data:') ? [line.slice(5).trim()] : []))
      : [text];
    for (const body of bodies) {
      let message: { id?: unknown; result?: unknown; error?: { message?: unknown } };
      try {
        message = JSON.parse(body) as typeof message;
      } catch {
        continue;
      }
      if (message.id !== id) continue;
      if (message.error) throw new Error(`it answered an error: ${String(message.error.message ?? '')}`);
      return (message.result ?? {}) as Record<string, unknown>;
    }
    throw new Error(`it sent no answer to ${method}`);
  };
}
