/**
 * `INVESTIBOOK_AGENT_RUNTIME=claude-code npm run demo:agent`: the demo's story with Claude Code as
 * the live agent and no API key — the pinned adapter (installed on first use into
 * .cache/claude-code), the scripted model answering Anthropic's Messages API with the demo's
 * script in Claude Code's tools (demo-script.ts), and the demo workspace in Claude Code's layout
 * (its AGENTS.md as CLAUDE.md, its skills under .claude/skills).
 *
 * The seeded conversations are OpenCode's sessions: Claude Code cannot continue them, so the
 * first message starts a new session, which reads the evidence afresh.
 */
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Script } from '../../scripted-model/script';
import { startScriptedModel, type RunningModel } from '../../scripted-model/server';
import { claudeCodeScript } from './demo-script';
import { ensureClaudeCode } from './install';

/** The scripted model's names as Claude Code is told them: its main model and its small one (titles). */
export const DEMO_MODEL = 'claude-scripted';
export const DEMO_SMALL_MODEL = 'claude-scripted-haiku';

export interface ClaudeCodeDemo {
  model: RunningModel;
  /** INVESTIBOOK_AGENT_COMMAND for the adapter: node and its entry point. */
  command: string;
  /** The variables the server gives the agent besides its own: the model endpoint and a placeholder key. */
  env: NodeJS.ProcessEnv;
}

/**
 * Installs the adapter and starts the scripted model on the demo's story (`liveDemoScript`, given
 * by the caller: the demo folder sits above the agent's, never below it).
 */
export async function startClaudeCodeDemo(story: Script, log: (line: string) => void): Promise<ClaudeCodeDemo> {
  const entry = await ensureClaudeCode(log);
  const model = await startScriptedModel({
    script: claudeCodeScript(story),
    smallModels: [DEMO_SMALL_MODEL],
  });
  return {
    model,
    command: `${JSON.stringify(process.execPath)} ${JSON.stringify(entry)}`,
    env: {
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${model.port}`,
      // Any key: the scripted model checks none, and Claude Code starts only with one.
      ANTHROPIC_API_KEY: 'scripted-model-key',
      ANTHROPIC_MODEL: DEMO_MODEL,
      ANTHROPIC_SMALL_FAST_MODEL: DEMO_SMALL_MODEL,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: DEMO_SMALL_MODEL,
    },
  };
}

/** The demo workspace as Claude Code reads it: AGENTS.md as CLAUDE.md, the skills under .claude/skills. */
export function claudeLayout(root: string): void {
  if (existsSync(join(root, 'AGENTS.md')) && !existsSync(join(root, 'CLAUDE.md')))
    cpSync(join(root, 'AGENTS.md'), join(root, 'CLAUDE.md'));
  const skills = join(root, '.opencode', 'skills');
  if (existsSync(skills) && !existsSync(join(root, '.claude', 'skills')))
    cpSync(skills, join(root, '.claude', 'skills'), { recursive: true });
}
