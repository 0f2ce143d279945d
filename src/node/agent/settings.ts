/**
 * Which agent the server runs, and how it is confined, from the environment of `npm start`:
 *
 * - `INVESTIBOOK_AGENT_COMMAND`: the command line of an ACP agent, run in the workspace folder
 *   (e.g. `opencode acp`). Unset: no agent; the chat says how to attach one.
 * - `INVESTIBOOK_AGENT_EXPORT_COMMAND`: prints a session in OpenCode's shapes as JSON, `{session}`
 *   standing for its id. Default: the agent's own program with `export {session}` when the agent
 *   command ends in `acp` (OpenCode).
 * - `INVESTIBOOK_AGENT_PERMISSIONS`: `reject` (default) or `allow` — the server's answer to every
 *   permission the agent asks for (by default: shell, edits, writes, web, reads outside).
 * - `INVESTIBOOK_AGENT_WORKSPACE_PERMISSIONS`: `tighten` (default: a workspace's opencode.json may
 *   only narrow what the agent may do unasked) or `widen` (it may also allow more).
 * - `INVESTIBOOK_AGENT_SANDBOX`: `bwrap` (default: the agent runs in a bubblewrap sandbox, and
 *   does not start where none can be made) or `off` (no sandbox: the agent can see everything
 *   the server's user can, investibook's database included — for machines that cannot run one).
 * - `INVESTIBOOK_AGENT_SANDBOX_READ`: more folders the sandboxed agent may read (`:`-separated).
 * - `INVESTIBOOK_AGENT_BWRAP`: the bubblewrap program (default `bwrap` on PATH).
 * - `INVESTIBOOK_AGENT_STATE_DIR`: where each workspace's agent keeps its own state (default
 *   `<data folder>/agent`).
 * - `INVESTIBOOK_AGENT_TURN_TIMEOUT_MS`: a turn longer than this is cancelled (default 10 min).
 */
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { parse } from 'shell-quote';
import type { ExportCommand } from './export-session';
import type { SandboxMode } from './sandbox';

export interface AgentSettings {
  command: string;
  args: readonly string[];
  /** The agent's environment (the server's own by default: provider keys live there). */
  env: NodeJS.ProcessEnv;
  /** How to read a session back in OpenCode's shapes; null: usage rows only, messages not persisted. */
  exporter: ExportCommand | null;
  permissions: 'allow' | 'reject';
  /** Whether a workspace's own opencode.json may allow more than the server's defaults. */
  workspacePermissions: 'tighten' | 'widen';
  sandbox: SandboxMode;
  /** The bubblewrap program. */
  bwrap: string;
  /** Extra folders the sandboxed agent may read. */
  sandboxRead: readonly string[];
  /** Each workspace's agent state lives under here (its own OpenCode storage). */
  stateDir: string;
  /** Files the agent must never see: the database, token files (filled in by the server). */
  hidden: readonly string[];
  turnTimeoutMs: number;
  startTimeoutMs?: number;
}

export class AgentSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentSettingsError';
  }
}

export const NO_AGENT_HINT =
  'No agent is attached to this server. For the demo’s agent (the real OpenCode runtime on a local scripted model, no API key): stop the server and run `npm run demo:agent`. For your own: set `INVESTIBOOK_AGENT_COMMAND` (e.g. `opencode acp`) and restart.';

function words(line: string, variable: string): string[] {
  const parsed = parse(line);
  if (!parsed.every((word): word is string => typeof word === 'string')) {
    throw new AgentSettingsError(`${variable} must be a plain command line (no pipes, redirections or globs)`);
  }
  if (parsed.length === 0) throw new AgentSettingsError(`${variable} is empty`);
  return parsed;
}

function choice<T extends string>(env: NodeJS.ProcessEnv, variable: string, allowed: readonly T[]): T {
  const value = env[variable]?.trim() || allowed[0]!;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new AgentSettingsError(`${variable} must be ${allowed.map((a) => `"${a}"`).join(' or ')}, not "${value}"`);
  }
  return value as T;
}

export interface SettingsContext {
  /** The folder of investibook's data (the database's, or INVESTIBOOK_DATA_DIR). */
  dataDir: string;
}

export function agentSettingsFromEnv(env: NodeJS.ProcessEnv, context: SettingsContext): AgentSettings | null {
  const line = env.INVESTIBOOK_AGENT_COMMAND?.trim();
  if (!line) return null;
  const [command, ...args] = words(line, 'INVESTIBOOK_AGENT_COMMAND');
  const exportLine = env.INVESTIBOOK_AGENT_EXPORT_COMMAND?.trim();
  let exporter: ExportCommand | null = null;
  if (exportLine) {
    const [exportProgram, ...exportArgs] = words(exportLine, 'INVESTIBOOK_AGENT_EXPORT_COMMAND');
    exporter = { command: exportProgram!, args: exportArgs };
  } else if (args.at(-1) === 'acp') {
    exporter = { command: command!, args: [...args.slice(0, -1), 'export', '{session}'] };
  }
  const timeout = Number(env.INVESTIBOOK_AGENT_TURN_TIMEOUT_MS || 600_000);
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw new AgentSettingsError('INVESTIBOOK_AGENT_TURN_TIMEOUT_MS must be a positive number of milliseconds');
  }
  const read = (env.INVESTIBOOK_AGENT_SANDBOX_READ ?? '').split(delimiter).filter(Boolean);
  const relative = read.find((path) => !isAbsolute(path));
  if (relative)
    throw new AgentSettingsError(`INVESTIBOOK_AGENT_SANDBOX_READ must list absolute paths, not "${relative}"`);
  return {
    command: command!,
    args,
    env,
    exporter,
    permissions: choice(env, 'INVESTIBOOK_AGENT_PERMISSIONS', ['reject', 'allow'] as const),
    workspacePermissions: choice(env, 'INVESTIBOOK_AGENT_WORKSPACE_PERMISSIONS', ['tighten', 'widen'] as const),
    sandbox: choice(env, 'INVESTIBOOK_AGENT_SANDBOX', ['bwrap', 'off'] as const),
    bwrap: env.INVESTIBOOK_AGENT_BWRAP?.trim() || 'bwrap',
    sandboxRead: read,
    stateDir: resolve(env.INVESTIBOOK_AGENT_STATE_DIR?.trim() || join(context.dataDir, 'agent')),
    hidden: [],
    turnTimeoutMs: timeout,
  };
}
