/**
 * OpenCode's answers about a runtime set-up (its tools per model, its agents' rules, its MCP
 * servers and their tools, its folders), kept so that a session's definitions need no second
 * OpenCode process (`opencode serve`, seconds of CPU) when nothing they depend on changed since
 * the last one asked. Keyed by all they depend on: the binary (its path, size and time), the
 * serve command, the folder and environment the agent runs with (its configuration layers,
 * OPENCODE_* variables), the files OpenCode reads its configuration, agents, tools and skills
 * from (their paths and contents), and the MCP servers it is given. Kept in the agents' state
 * outside every sandbox (the agent cannot write it), owner-only; only answers without a problem
 * are kept, so a failure is asked again next time.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  DEFINITIONS_VERSION,
  type McpServerDefinitions,
  type ToolDefinition,
} from '../../../shared/opencode/definitions';
import { CONFIG_FILES } from '../../../shared/opencode/runtime';
import type { LaunchedProgram, McpConfig } from '../mcp-tools';
import { OWNER_ONLY } from '../runtime-seam';

/** What OpenCode's server answered about the set-up: the same for every session it runs. */
export interface RuntimeAnswers {
  version: string | undefined;
  paths: { directory?: string; worktree?: string };
  project: { vcs?: string; worktree?: string };
  providers: { providers?: { id: string; models?: Record<string, { api?: { id?: string } }> }[] };
  agents: { name: string; prompt?: unknown; permission?: { permission: string; pattern: string; action: string }[] }[];
  mcp: McpServerDefinitions[];
  /** By `provider/model`: the tools it is sent. */
  tools: Record<string, ToolDefinition[]>;
}

interface CacheFile {
  key: string;
  answers: RuntimeAnswers;
}

/** Folders OpenCode reads agents, commands, tools, plugins and skills from. */
const CONFIG_FOLDERS = ['.opencode', '.claude', '.agents'];
/** Beyond this many entries a folder is not digested: no key, so nothing is reused. */
const MAX_ENTRIES = 5000;
/** Files up to this size are known by their content; larger ones by their size and time. */
const MAX_HASHED = 1 << 20;

/**
 * The key of a set-up as the agent's launch makes it (`how`: its folder and environment), or
 * null when it cannot be told (a folder too large to digest).
 */
export function setupKey(
  how: Pick<LaunchedProgram, 'cwd' | 'env'>,
  serve: { command: string; args: readonly string[] },
  extraMcp: Readonly<Record<string, McpConfig>>,
): string | null {
  // A command found on PATH cannot be told apart from another version of it.
  if (!serve.command.includes('/')) return null;
  const env = how.env;
  const files: string[] = [serve.command, ...(env.OPENCODE_CONFIG ? [env.OPENCODE_CONFIG] : [])];
  for (let dir = how.cwd; ; dir = dirname(dir)) {
    files.push(...CONFIG_FILES.map((name) => join(dir, name)), ...CONFIG_FOLDERS.map((name) => join(dir, name)));
    if (dirname(dir) === dir) break;
  }
  const home = env.HOME;
  if (home) files.push(...CONFIG_FOLDERS.map((name) => join(home, name)), join(home, '.config', 'opencode'));
  if (env.XDG_CONFIG_HOME) files.push(join(env.XDG_CONFIG_HOME, 'opencode'));
  const seen: string[] = [];
  for (const file of files) if (!digest(file, seen)) return null;
  const variables = Object.entries(env)
    .filter(([name]) => /^(OPENCODE_|XDG_|HOME$)/.test(name) && !/^OPENCODE_SERVER_(USERNAME|PASSWORD)$/.test(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const material = { v: DEFINITIONS_VERSION, serve, cwd: how.cwd, variables, files: seen, mcp: mcpShape(extraMcp) };
  return createHash('sha256').update(JSON.stringify(material)).digest('hex');
}

/**
 * Each file's or folder's entries (following links): a small file by its content (OpenCode rewrites
 * some with the same content as it starts), a large one (the binary) by its size and time, an absent
 * one as `path -`. Installed packages (`node_modules`, OpenCode's plugin SDK) are named by the
 * configuration that asks for them.
 */
function digest(path: string, out: string[]): boolean {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    out.push(`${path} -`);
    return true;
  }
  if (!stat.isDirectory()) {
    out.push(`${path} ${stat.size <= MAX_HASHED ? contentHash(path) : `${stat.size} ${stat.mtimeMs}`}`);
    return true;
  }
  out.push(`${path}/`);
  if (out.length > MAX_ENTRIES) return false;
  let names: string[];
  try {
    names = readdirSync(path).sort();
  } catch {
    return true;
  }
  for (const name of names) if (name !== 'node_modules' && !digest(join(path, name), out)) return false;
  return true;
}

function contentHash(path: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return 'unreadable';
  }
}

/** The MCP servers as their tools depend on them: their commands and URLs, not their secrets' values. */
function mcpShape(extraMcp: Readonly<Record<string, McpConfig>>) {
  return Object.entries(extraMcp)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, config]) =>
      config.type === 'local'
        ? [name, config.command, Object.keys(config.environment ?? {}).sort()]
        : [name, config.url, Object.keys(config.headers ?? {}).sort()],
    );
}

/** The answers kept for the key, when they hold the tools of every model asked. */
export function readAnswers(file: string, key: string, models: readonly string[]): RuntimeAnswers | null {
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    if (kept.key !== key || !models.every((model) => Array.isArray(kept.answers.tools[model]))) return null;
    return kept.answers;
  } catch {
    return null;
  }
}

/** Keeps the answers under the key (the tools of models kept before under the same key too), owner-only. */
export function writeAnswers(file: string, key: string, answers: RuntimeAnswers): void {
  let tools = answers.tools;
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    if (kept.key === key) tools = { ...kept.answers.tools, ...tools };
  } catch {
    // none kept yet, or unreadable: replaced
  }
  mkdirSync(dirname(file), { recursive: true, mode: OWNER_ONLY });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ key, answers: { ...answers, tools } } satisfies CacheFile), {
    mode: 0o600,
  });
  renameSync(temporary, file);
}
