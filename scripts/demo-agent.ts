/**
 * npm run demo:agent: the demo with a live agent and no API key. Starts the project's scripted
 * model (a local OpenAI-compatible server answering from src/node/demo/live-script.ts), then
 * the server exactly as `npm start` does (same variables, same `Open …` line) with the pinned
 * OpenCode runtime as its agent — installed on first use into .cache/opencode — so a message
 * in the chat is a real OpenCode turn, persisted as OpenCode wrote it, and `/debug` explains it.
 *
 * Before the server opens, the demo's seeded sessions are imported into the demo workspace's own
 * OpenCode storage (src/node/demo/agent-import.ts): the first message continues the seeded
 * incident conversation — its ~34k tokens of context — instead of starting a new session.
 *
 * With INVESTIBOOK_AGENT_RUNTIME=claude-code the agent is Claude Code instead (the pinned
 * @agentclientprotocol/claude-agent-acp, installed on first use into .cache/claude-code), on the
 * same scripted model speaking Anthropic's Messages API (src/node/agent/claude-code/demo.ts).
 */
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import {
  ensureOpencode,
  opencodeEnv,
  SCRIPTED_SMALL_MODEL,
  writeScriptedConfig,
} from '../src/node/agent/opencode/install';
import { agentSettingsFromEnv } from '../src/node/agent/settings';
import { importDemoSessions } from '../src/node/demo/agent-import';
import { DEMO_WORKSPACE_ID } from '../src/node/demo/builder';
import { liveDemoScript } from '../src/node/demo/live-script';
import { claudeLayout, startClaudeCodeDemo } from '../src/node/agent/claude-code/demo';
import { startScriptedModel } from '../src/node/scripted-model/server';
import { DEFAULT_DATABASE, main, serverEnv } from '../src/node/server/main';

function hasRipgrep(): boolean {
  try {
    execFileSync('rg', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const config = serverEnv(process.env);
const database = resolve(config.INVESTIBOOK_DB ?? DEFAULT_DATABASE);
const dataDir = resolve(config.INVESTIBOOK_DATA_DIR ?? dirname(database));
const root = join(dataDir, 'workspaces', DEMO_WORKSPACE_ID);

/** Claude Code on the scripted model: the seeded sessions are OpenCode's, so its first message starts a new one. */
async function claudeCodeDemo(): Promise<void> {
  const demo = await startClaudeCodeDemo(liveDemoScript(root), (line) => console.log(line));
  process.env.INVESTIBOOK_AGENT_COMMAND = demo.command;
  await main(process.env, { agentEnv: { ...process.env, ...demo.env } });
  // The demo workspace is made by the server's seeding: Claude Code reads it at its first session.
  claudeLayout(root);
  console.log(
    `Agent: Claude Code (pinned) on the scripted model at ${demo.model.url}; try "what do we know?", then /debug`,
  );
}

async function opencodeDemo(): Promise<void> {
  if (!hasRipgrep()) {
    console.error(
      "investibook: OpenCode's skill tool needs ripgrep on PATH (Debian: apt-get install -y ripgrep); skills will fail without it",
    );
  }
  const bin = await ensureOpencode((line) => console.log(line));
  const model = await startScriptedModel({ script: liveDemoScript(root), smallModels: [SCRIPTED_SMALL_MODEL] });
  // The operator's configuration for every workspace's agent: the scripted model as its provider.
  const env = opencodeEnv(join(dataDir, 'agent-home'));
  writeScriptedConfig(env, { baseURL: model.url });
  process.env.INVESTIBOOK_AGENT_COMMAND = `${JSON.stringify(bin)} acp`;

  // The same settings the server derives (main.ts), so the import lands in the storage it uses.
  const settings = agentSettingsFromEnv(process.env, { dataDir });
  if (settings) {
    try {
      const { imported } = await importDemoSessions(
        { ...settings, env, hidden: [database, `${database}.demo-token`] },
        bin,
        root,
      );
      if (imported.length) console.log(`Agent: the demo's ${imported.length} seeded sessions are in its storage`);
    } catch (error) {
      // The demo still runs: its first message then starts a new session (and says so).
      console.error(
        `investibook: the seeded demo sessions could not be given to the agent: ${(error as Error).message}`,
      );
    }
  }
  await main(process.env, { agentEnv: env });
  console.log(`Agent: OpenCode (pinned) on the scripted model at ${model.url}; try "what do we know?", then /debug`);
}

if (process.env.INVESTIBOOK_AGENT_RUNTIME === 'claude-code') await claudeCodeDemo();
else await opencodeDemo();
