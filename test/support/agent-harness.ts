/**
 * A server with a live agent for tests: the demo database and workspace in a temporary folder,
 * the scripted model, and the pinned OpenCode over ACP as the agent — all real, on loopback.
 */
import { serve, type ServerType } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentBridge } from '../../src/node/agent/bridge';
import {
  ensureOpencode,
  opencodeEnv,
  SCRIPTED_SMALL_MODEL,
  writeScriptedConfig,
} from '../../src/node/agent/opencode-runtime';
import type { AgentSettings } from '../../src/node/agent/settings';
import { DEMO_WORKSPACE_ID, seedDemoDatabase } from '../../src/node/demo/builder';
import { liveDemoScript } from '../../src/node/demo/live-script';
import type { Script } from '../../src/node/scripted-model/script';
import { startScriptedModel, type RecordedRequest } from '../../src/node/scripted-model/server';
import { createApp } from '../../src/node/server/app';
import { openSqlite, type SqliteStore } from '../../src/node/storage/sqlite/sqlite-store';
import { parseAgentEvent, type AgentEvent } from '../../src/shared/agent';

export const AGENT_TOKEN = 'agent-test-token';

export interface AgentHarness {
  origin: string;
  root: string;
  dbPath: string;
  store: SqliteStore;
  requests: RecordedRequest[];
  bridge: AgentBridge;
  /** Sends a prompt and reads the whole turn; `during` sees each event as it arrives. */
  prompt: (
    text: string,
    options?: { sessionId?: string; during?: (event: AgentEvent) => void },
  ) => Promise<{ status: number; events: AgentEvent[] }>;
  api: (path: string, init?: RequestInit) => Promise<Response>;
  close: () => Promise<void>;
}

export interface HarnessOptions {
  /** Extra turns before the demo's own (first match wins), for the workspace folder given. */
  turns?: (root: string) => Script['turns'];
  /** Point OpenCode at this model URL instead of the scripted model (a dead one, say). */
  modelUrl?: string;
  /** The agent command (default: the pinned OpenCode). */
  command?: string;
  turnTimeoutMs?: number;
}

export async function startAgentHarness(options: HarnessOptions = {}): Promise<AgentHarness> {
  const bin = await ensureOpencode();
  const dir = mkdtempSync(join(tmpdir(), 'investibook-agent-'));
  const dbPath = join(dir, 'investibook.db');
  const { root } = await seedDemoDatabase(dbPath, AGENT_TOKEN);
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
    command,
    args: ['acp'],
    env,
    exporter: { command: bin, args: ['export', '{session}'] },
    permissions: 'reject',
    turnTimeoutMs: options.turnTimeoutMs ?? 90_000,
  };
  const store = openSqlite(dbPath);
  const reportStore = openSqlite(dbPath, { readOnly: true });
  const logs: string[] = [];
  const bridge = new AgentBridge(settings, store, (line) => logs.push(line));
  const app = createApp({ store, reportStore, agent: bridge, log: (line) => logs.push(line) });
  const server: ServerType = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((ok) => server.once('listening', ok));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const headers = { Authorization: `Bearer ${AGENT_TOKEN}`, 'Content-Type': 'application/json' };
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${origin}/api/workspace/${DEMO_WORKSPACE_ID}${path}`, { ...init, headers: { ...headers, ...init.headers } });

  return {
    origin,
    root,
    dbPath,
    store,
    requests,
    bridge,
    api,
    async prompt(text, { sessionId, during } = {}) {
      const response = await api('/agent/prompt', {
        method: 'POST',
        body: JSON.stringify({ text, ...(sessionId ? { sessionId } : {}) }),
      });
      const events: AgentEvent[] = [];
      if (!response.ok || !response.body) return { status: response.status, events };
      const decoder = new TextDecoder();
      let buffer = '';
      const reader = response.body.getReader();
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
      return { status: response.status, events };
    },
    async close() {
      await new Promise((done) => server.close(done));
      await bridge.close();
      await model.close();
      await reportStore.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
