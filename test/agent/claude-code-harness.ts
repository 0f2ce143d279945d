/**
 * A server whose live agent is Claude Code, for the agent tests: the demo database and workspace
 * (in Claude Code's layout) in a temporary folder, the scripted model speaking Anthropic's
 * Messages API with the demo's script in Claude Code's tools, and the pinned claude-agent-acp over
 * ACP in the workspace's sandbox — all real, on loopback, as `INVESTIBOOK_AGENT_RUNTIME=claude-code
 * npm run demo:agent` runs it.
 */
import { serve, type ServerType } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentBridge } from '../../src/node/agent/bridge';
import { claudeLayout, DEMO_MODEL, DEMO_SMALL_MODEL } from '../../src/node/agent/claude-code/demo';
import { claudeCodeScript } from '../../src/node/agent/claude-code/demo-script';
import { ensureClaudeCode } from '../../src/node/agent/claude-code/install';
import type { AgentSettings } from '../../src/node/agent/settings';
import { DEMO_WORKSPACE_ID, seedDemoDatabase } from '../../src/node/demo/builder';
import { liveDemoScript } from '../../src/node/demo/live-script';
import { createLogger } from '../../src/node/log';
import type { RecordedMessagesRequest } from '../../src/node/scripted-model/anthropic';
import type { Script } from '../../src/node/scripted-model/script';
import { startScriptedModel } from '../../src/node/scripted-model/server';
import { createApp } from '../../src/node/server/app';
import { openSqlite, type SqliteStore } from '../../src/node/storage/sqlite/sqlite-store';
import { AGENT_TOKEN, readTurn, type AgentClient } from '../support/agent-harness';

export interface ClaudeCodeHarness extends AgentClient {
  dir: string;
  root: string;
  store: SqliteStore;
  /** Every request to the Messages API, as answered (Claude Code's main calls, its helpers, count_tokens). */
  requests: RecordedMessagesRequest[];
  bridge: AgentBridge;
  settings: AgentSettings;
  logs: string[];
  close: () => Promise<void>;
}

/** `turns`: extra turns before the demo's own, in Claude Code's tools (first match wins). */
export async function startClaudeCodeHarness(
  options: { turns?: (root: string) => Script['turns'] } = {},
): Promise<ClaudeCodeHarness> {
  const entry = await ensureClaudeCode();
  const dir = mkdtempSync(join(tmpdir(), 'investibook-claude-agent-'));
  const dbPath = join(dir, 'investibook.db');
  const { root } = await seedDemoDatabase(dbPath, AGENT_TOKEN);
  claudeLayout(root);
  const script = claudeCodeScript(liveDemoScript(root));
  script.turns.unshift(...(options.turns?.(root) ?? []));
  const requests: RecordedMessagesRequest[] = [];
  const model = await startScriptedModel({
    script,
    smallModels: [DEMO_SMALL_MODEL],
    onMessagesRequest: (request) => requests.push(request),
  });
  const settings: AgentSettings = {
    runtime: 'claude-code',
    command: process.execPath,
    args: [entry],
    env: {
      ...process.env,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.port}`,
      ANTHROPIC_API_KEY: 'scripted-model-key',
      ANTHROPIC_MODEL: DEMO_MODEL,
      ANTHROPIC_SMALL_FAST_MODEL: DEMO_SMALL_MODEL,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: DEMO_SMALL_MODEL,
    },
    exporter: null,
    runtimeServer: null,
    permissions: 'reject',
    workspacePermissions: 'tighten',
    sandbox: 'bwrap',
    bwrap: 'bwrap',
    sandboxRead: [],
    stateDir: join(dir, 'agent'),
    hidden: [dbPath],
    turnTimeoutMs: 120_000,
  };
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
  const headers = { Authorization: `Bearer ${AGENT_TOKEN}`, 'Content-Type': 'application/json' };
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${origin}/api/workspace/${DEMO_WORKSPACE_ID}${path}`, { ...init, headers: { ...headers, ...init.headers } });
  return {
    dir,
    root,
    store,
    requests,
    bridge,
    settings,
    logs,
    api,
    async prompt(text, { sessionId, during } = {}) {
      const response = await api('/agent/prompt', {
        method: 'POST',
        body: JSON.stringify({ text, ...(sessionId ? { sessionId } : {}) }),
      });
      return readTurn(response, during);
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
