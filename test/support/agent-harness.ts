/**
 * A server with a live agent for tests: the demo database and workspace in a temporary folder,
 * the scripted model, and the pinned OpenCode over ACP as the agent — all real, on loopback.
 */
import { serve, type ServerType } from '@hono/node-server';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentBridge } from '../../src/node/agent/bridge';
import { sha256Hex } from '../../src/node/auth';
import {
  ensureOpencode,
  opencodeEnv,
  pinnedAgentSettings,
  SCRIPTED_SMALL_MODEL,
  writeScriptedConfig,
} from '../../src/node/agent/opencode/install';
import type { AgentSettings } from '../../src/node/agent/settings';
import { importDemoSessions } from '../../src/node/demo/agent-import';
import { DEMO_WORKSPACE_ID, seedDemoDatabase } from '../../src/node/demo/builder';
import { liveDemoScript } from '../../src/node/demo/live-script';
import type { Script } from '../../src/node/scripted-model/script';
import { startScriptedModel, type RecordedRequest } from '../../src/node/scripted-model/server';
import { createLogger } from '../../src/node/log';
import { createApp } from '../../src/node/server/app';
import { openSqlite, type SqliteStore } from '../../src/node/storage/sqlite/sqlite-store';
import { parseAgentEvent, type AgentEvent } from '../../src/shared/agent';

export const AGENT_TOKEN = 'agent-test-token';
export const OTHER_AGENT_TOKEN = 'agent-test-token-other';
export const OTHER_WS = 'other';

export interface AgentClient {
  /** Sends a prompt and reads the whole turn; `during` sees each event as it arrives. */
  prompt: (
    text: string,
    options?: { sessionId?: string; during?: (event: AgentEvent) => void },
  ) => Promise<{ status: number; events: AgentEvent[] }>;
  /** A request to the workspace's API as its member. */
  api: (path: string, init?: RequestInit) => Promise<Response>;
}

export interface AgentHarness extends AgentClient {
  /** The harness's own folder: the database, the workspaces, the agent's state. */
  dir: string;
  origin: string;
  root: string;
  /** The second workspace's folder (with `second`). */
  otherRoot: string;
  dbPath: string;
  store: SqliteStore;
  requests: RecordedRequest[];
  bridge: AgentBridge;
  /** The agent's settings (its state folder, its environment): what another OpenCode of the same state starts with. */
  settings: AgentSettings;
  /** What the bridge and the server logged. */
  logs: string[];
  /** The second workspace, as its own member (with `second`). */
  other: AgentClient;
  close: () => Promise<void>;
}

export interface HarnessOptions {
  /** The demo workspace without its opencode.json (OpenCode's and the server's defaults only). */
  plain?: boolean;
  /** Changes the workspace folder before the agent first starts (its opencode.json, say). */
  prepare?: (root: string) => void;
  /** The server's answer to the agent's permission requests (default: reject). */
  permissions?: 'allow' | 'reject';
  /** A second workspace (`other`, its own folder) and its own member (OTHER_AGENT_TOKEN). */
  second?: boolean;
  /** Extra turns before the demo's own (first match wins), for the workspace folder given. */
  turns?: (root: string) => Script['turns'];
  /** Point OpenCode at this model URL instead of the scripted model (a dead one, say). */
  modelUrl?: string;
  /** The agent command (default: the pinned OpenCode). */
  command?: string;
  turnTimeoutMs?: number;
  /** Agent settings besides (the egress hosts, the limits). */
  settings?: Partial<AgentSettings>;
  /** The seeded sessions given to the agent's storage, as `npm run demo:agent` does: the agent continues them. */
  demoSessions?: boolean;
}

export async function startAgentHarness(options: HarnessOptions = {}): Promise<AgentHarness> {
  const bin = await ensureOpencode();
  const dir = mkdtempSync(join(tmpdir(), 'investibook-agent-'));
  const dbPath = join(dir, 'investibook.db');
  const { root } = await seedDemoDatabase(dbPath, AGENT_TOKEN);
  if (options.plain) rmSync(join(root, 'opencode.json'));
  options.prepare?.(root);
  const otherRoot = join(dir, 'workspaces', OTHER_WS);
  if (options.second) {
    cpSync(root, otherRoot, { recursive: true });
    const seed = await openSqlite(dbPath);
    await seed.transaction(async (tx) => {
      await tx.insertUser('usr_other', 'Other team');
      await tx.insertTokenHash(sha256Hex(OTHER_AGENT_TOKEN), 'usr_other');
      await tx.insertWorkspace({
        id: OTHER_WS,
        name: 'Another team',
        root_path: `workspaces/${OTHER_WS}`,
        created_at: 1,
      });
      await tx.addMember(OTHER_WS, 'usr_other');
    });
    await seed.close();
  }
  const script = liveDemoScript(root);
  script.turns.unshift(...(options.turns?.(root) ?? []));
  const requests: RecordedRequest[] = [];
  const model = await startScriptedModel({
    script,
    smallModels: [SCRIPTED_SMALL_MODEL],
    onRequest: (request) => requests.push(request),
  });
  const env = opencodeEnv(join(dir, 'agent-home'));
  writeScriptedConfig(env, { baseURL: options.modelUrl ?? model.url });
  const command = options.command ?? bin;
  const settings: AgentSettings = {
    ...pinnedAgentSettings(bin, env, join(dir, 'agent'), {
      turnTimeoutMs: options.turnTimeoutMs ?? 90_000,
      permissions: options.permissions ?? 'reject',
    }),
    // The agent's start is bounded as a turn is (90 s), not by a tighter 30 s of its own: on a
    // loaded machine OpenCode's start alone takes longer than that. (A shorter turn timeout, for
    // the timeout's own test, does not shorten the start: that would fail the start instead.)
    startTimeoutMs: 90_000,
    command,
    hidden: [dbPath],
    ...options.settings,
  };
  if (options.demoSessions) await importDemoSessions(settings, bin, root);
  const served = await serveAgent(settings, dbPath);
  const { store, bridge, logs, origin, client } = served;
  const main = client(DEMO_WORKSPACE_ID, AGENT_TOKEN);

  return {
    dir,
    origin,
    root,
    otherRoot,
    dbPath,
    store,
    requests,
    bridge,
    settings,
    logs,
    ...main,
    other: client(OTHER_WS, OTHER_AGENT_TOKEN),
    async close() {
      await served.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ServedAgent {
  store: SqliteStore;
  bridge: AgentBridge;
  logs: string[];
  origin: string;
  /** The API as one member of one workspace sees it, with the agent's routes. */
  client: (workspaceId: string, token: string) => AgentClient;
  /** The server, the agent, then both stores. */
  close: () => Promise<void>;
}

/**
 * The server of a live agent as `npm start` makes it, on loopback: the database (read-write for
 * the chat, read-only for the report), the agent's bridge, the app, and the agent's MCP server
 * asking this server for its own report.
 */
export async function serveAgent(settings: AgentSettings, dbPath: string): Promise<ServedAgent> {
  const store = await openSqlite(dbPath);
  const reportStore = await openSqlite(dbPath, { readOnly: true });
  const logs: string[] = [];
  const bridge = new AgentBridge(settings, store, (line) => logs.push(line));
  const app = createApp({
    store,
    reportStore,
    agent: bridge,
    logger: createLogger({ destination: { write: (line: string) => void logs.push(line) } }),
  });
  const server: ServerType = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((ok) => server.once('listening', ok));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  bridge.serveReportsAt(origin);
  const client = (workspaceId: string, token: string): AgentClient => {
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${origin}/api/workspace/${workspaceId}${path}`, { ...init, headers: { ...headers, ...init.headers } });
    return {
      api,
      async prompt(text, { sessionId, during } = {}) {
        const response = await api('/agent/prompt', {
          method: 'POST',
          body: JSON.stringify({ text, ...(sessionId ? { sessionId } : {}) }),
        });
        return readTurn(response, during);
      },
    };
  };
  return {
    store,
    bridge,
    logs,
    origin,
    client,
    async close() {
      await new Promise((done) => server.close(done));
      await bridge.close();
      await reportStore.close();
      await store.close();
    },
  };
}

/** The events of a turn streamed as Server-Sent Events; `during` sees each as it arrives. */
export async function readTurn(
  response: Response,
  during?: (event: AgentEvent) => void,
): Promise<{ status: number; events: AgentEvent[] }> {
  const events: AgentEvent[] = [];
  if (!response.ok || !response.body) return { status: response.status, events };
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        for (const line of block.split('\n')) {
          if (!line.startsWith('data:')) continue;
          const event = parseAgentEvent(line.slice(5).trim());
          if (event) {
            events.push(event);
            during?.(event);
          }
        }
      }
    }
  } catch {
    // the server went away mid-turn: what arrived is the answer
  }
  return { status: response.status, events };
}
