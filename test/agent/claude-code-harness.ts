/**
 * A server whose live agent is Claude Code, for the agent tests: the demo database and workspace
 * (in Claude Code's layout) in a temporary folder, the scripted model speaking Anthropic's
 * Messages API with the demo's script in Claude Code's tools, and the pinned claude-agent-acp over
 * ACP in the workspace's sandbox — all real, on loopback, as `INVESTIBOOK_AGENT_RUNTIME=claude-code
 * npm run demo:agent` runs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentBridge } from '../../src/node/agent/bridge';
import { claudeLayout, DEMO_MODEL, DEMO_SMALL_MODEL } from '../../src/node/agent/claude-code/demo';
import { claudeCodeScript } from '../../src/node/agent/claude-code/demo-script';
import { ensureClaudeCode } from '../../src/node/agent/claude-code/install';
import type { AgentSettings } from '../../src/node/agent/settings';
import { DEMO_WORKSPACE_ID, seedDemoDatabase } from '../../src/node/demo/builder';
import { liveDemoScript } from '../../src/node/demo/live-script';
import type { RecordedMessagesRequest } from '../../src/node/scripted-model/anthropic';
import type { Script } from '../../src/node/scripted-model/script';
import { startScriptedModel } from '../../src/node/scripted-model/server';
import type { SqliteStore } from '../../src/node/storage/sqlite/sqlite-store';
import { AGENT_TOKEN, serveAgent, type AgentClient } from '../support/agent-harness';

export interface ClaudeCodeHarness extends AgentClient {
  dir: string;
  root: string;
  store: SqliteStore;
  /** Every request to the Messages API, as answered (Claude Code's main calls, its helpers, count_tokens). */
  requests: RecordedMessagesRequest[];
  bridge: AgentBridge;
  settings: AgentSettings;
  logs: string[];
  /** Lets the scripted model's held answers (a step's `hold`) go, from now on. */
  release: () => void;
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
    // The adapter (~400 MB of JavaScript) answers `initialize` in seconds on a quiet machine, but
    // well over the 30 s default on a loaded one: only a hang should fail here.
    startTimeoutMs: 120_000,
  };
  const served = await serveAgent(settings, dbPath);
  const { store, bridge, logs } = served;
  return {
    dir,
    root,
    store,
    requests,
    bridge,
    settings,
    logs,
    release: model.release,
    ...served.client(DEMO_WORKSPACE_ID, AGENT_TOKEN),
    async close() {
      await served.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
