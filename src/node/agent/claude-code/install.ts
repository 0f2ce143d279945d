/**
 * The pinned Claude Code runtime: `@agentclientprotocol/claude-agent-acp` (the ACP adapter, which
 * brings the Claude Agent SDK and its platform package holding the Claude Code binary), installed
 * on demand into .cache/claude-code — ~400 MB, so never a dependency of this package — and the
 * environment that keeps it offline and out of the user's own configuration.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../project';

export const CLAUDE_AGENT_ACP_VERSION = '0.101.0';
const PACKAGE = '@agentclientprotocol/claude-agent-acp';
/** Where the pinned adapter is installed (the sandbox shows it read-only). */
export const CLAUDE_CODE_CACHE = join(PROJECT_ROOT, '.cache', 'claude-code');
const CACHE_DIR = CLAUDE_CODE_CACHE;

/** The adapter's entry point (run with node); null when it is not installed yet. */
export function installedClaudeCode(): string | null {
  const entry = join(CACHE_DIR, 'node_modules', ...PACKAGE.split('/'), 'dist', 'index.js');
  return existsSync(entry) ? entry : null;
}

/** Installs the pinned adapter into .cache/claude-code (once) and returns its entry point. */
export async function ensureClaudeCode(log: (line: string) => void = () => {}): Promise<string> {
  const found = installedClaudeCode();
  if (found) return found;
  mkdirSync(CACHE_DIR, { recursive: true });
  if (!existsSync(join(CACHE_DIR, 'package.json')))
    writeFileSync(
      join(CACHE_DIR, 'package.json'),
      `${JSON.stringify({ name: 'claude-code-runtime', private: true })}\n`,
    );
  log(`Installing ${PACKAGE}@${CLAUDE_AGENT_ACP_VERSION} into ${CACHE_DIR} (once, ~400 MB)…`);
  await promisify(execFile)(
    'npm',
    ['install', '--no-audit', '--no-fund', '--save-exact', `${PACKAGE}@${CLAUDE_AGENT_ACP_VERSION}`],
    { cwd: CACHE_DIR, maxBuffer: 16 * 1024 * 1024 },
  );
  const entry = installedClaudeCode();
  if (!entry) throw new Error(`${PACKAGE}@${CLAUDE_AGENT_ACP_VERSION} installed, but its entry point is missing`);
  return entry;
}

/**
 * An environment for Claude Code with its own HOME (its transcripts go to
 * HOME/.claude/projects), pointed at a Messages API endpoint with a placeholder key, and
 * `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` (alone it stops every connection but the model's).
 */
export function claudeCodeEnv(
  home: string,
  model: { baseURL: string; model: string; smallModel: string },
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  mkdirSync(home, { recursive: true });
  return {
    PATH: base.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: base.LANG ?? 'C.UTF-8',
    TZ: base.TZ ?? 'UTC',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    ANTHROPIC_BASE_URL: model.baseURL,
    ANTHROPIC_API_KEY: 'scripted-model-key',
    ANTHROPIC_MODEL: model.model,
    ANTHROPIC_SMALL_FAST_MODEL: model.smallModel,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: model.smallModel,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

/** Where Claude Code keeps a session's transcript: the folder named for its cwd (every non-alphanumeric → "-"). */
export function transcriptPath(home: string, cwd: string, sessionId: string): string {
  return join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'), `${sessionId}.jsonl`);
}
