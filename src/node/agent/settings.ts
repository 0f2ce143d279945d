/**
 * Which agent the server runs, and how it is confined, from the environment of `npm start`
 * (parsed by the one schema, src/node/env.ts; README's configuration table lists every variable):
 *
 * - `INVESTIBOOK_AGENT_COMMAND`: the command line of an ACP agent, run in the workspace folder
 *   (e.g. `opencode acp`). Unset: no agent; the chat says how to attach one.
 * - `INVESTIBOOK_AGENT_RUNTIME`: which runtime that command is — `opencode` (default) or
 *   `claude-code` (runtime-registry.ts). Named, never guessed from the command's words.
 * - `INVESTIBOOK_AGENT_EXPORT_COMMAND`: prints a session in OpenCode's shapes as JSON, `{session}`
 *   standing for its id. Default, for OpenCode: the agent's command with its `acp` subcommand
 *   replaced by `export {session}`.
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
 * - `INVESTIBOOK_AGENT_EGRESS_HOSTS`: hosts the agent may reach besides its model provider's
 *   (comma-separated `host`, `host:port`, `*.domain`; `*`: any public host).
 * - `INVESTIBOOK_AGENT_IDLE_MS`: an agent without a turn this long is stopped (default 10 min).
 * - `INVESTIBOOK_AGENT_MAX_RUNNING`: at most this many agents run at once (default 6).
 */
import { join, resolve } from 'node:path';
import { agentEnvSchema, EnvError, readEnv, type AgentEnv } from '../env';
import type { RuntimeName } from '../../shared/runtimes';
import type { SandboxMode } from './sandbox';

/** A program and its arguments; in an export command `{session}` stands for the session id. */
export interface Program {
  command: string;
  args: readonly string[];
}

export interface AgentSettings {
  /** Which runtime the agent is (INVESTIBOOK_AGENT_RUNTIME; absent: OpenCode). */
  runtime?: RuntimeName;
  command: string;
  args: readonly string[];
  /** The agent's environment (the server's own by default: provider keys live there). */
  env: NodeJS.ProcessEnv;
  /** How to read a session back in OpenCode's shapes; null: usage rows only, messages not persisted. */
  exporter: Program | null;
  /**
   * OpenCode's own server (`opencode serve`), run as the agent is, to record the definitions it
   * sends each agent and model (runtime-definitions.ts); null or absent: not OpenCode, none recorded.
   */
  runtimeServer?: Program | null;
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
  /**
   * Hosts the agent may reach besides its model provider's (INVESTIBOOK_AGENT_EGRESS_HOSTS):
   * `host`, `host:port`, `*.domain`; `*` turns the allowlist off.
   */
  egressHosts?: readonly string[];
  /** An agent process without a turn this long is stopped (INVESTIBOOK_AGENT_IDLE_MS). */
  idleMs?: number;
  /** At most this many agent processes run at once (INVESTIBOOK_AGENT_MAX_RUNNING). */
  maxRunning?: number;
}

/** A bad agent variable: the environment's own error (src/node/env.ts), one sentence naming it. */
export const AgentSettingsError = EnvError;
export type AgentSettingsError = EnvError;

export const NO_AGENT_HINT =
  'No agent is attached to this server. For the demo’s agent (the real OpenCode runtime on a local scripted model, no API key): stop the server and run `npm run demo:agent`. For your own: set `INVESTIBOOK_AGENT_COMMAND` (e.g. `opencode acp`) and restart.';

export interface SettingsContext {
  /** The folder of investibook's data (the database's, or INVESTIBOOK_DATA_DIR). */
  dataDir: string;
}

/** The agent's settings from a raw environment (parsed by the one schema in src/node/env.ts). */
export function agentSettingsFromEnv(env: NodeJS.ProcessEnv, context: SettingsContext): AgentSettings | null {
  return agentSettings(readEnv(env, agentEnvSchema), { ...context, env });
}

/** The agent's settings from the parsed environment; `env` is what the agent process is given. */
export function agentSettings(
  vars: AgentEnv,
  context: SettingsContext & { env: NodeJS.ProcessEnv },
): AgentSettings | null {
  const words = vars.INVESTIBOOK_AGENT_COMMAND;
  if (!words) return null;
  const [command, ...args] = words;
  const runtime = vars.INVESTIBOOK_AGENT_RUNTIME;
  const exportWords = vars.INVESTIBOOK_AGENT_EXPORT_COMMAND;
  const opencode = runtime === 'opencode' ? opencodePrograms(command!, args) : null;
  return {
    runtime,
    command: command!,
    args,
    env: context.env,
    exporter: exportWords ? { command: exportWords[0]!, args: exportWords.slice(1) } : (opencode?.exporter ?? null),
    runtimeServer: opencode?.server ?? null,
    permissions: vars.INVESTIBOOK_AGENT_PERMISSIONS,
    workspacePermissions: vars.INVESTIBOOK_AGENT_WORKSPACE_PERMISSIONS,
    sandbox: vars.INVESTIBOOK_AGENT_SANDBOX,
    bwrap: vars.INVESTIBOOK_AGENT_BWRAP,
    sandboxRead: vars.INVESTIBOOK_AGENT_SANDBOX_READ,
    stateDir: resolve(vars.INVESTIBOOK_AGENT_STATE_DIR ?? join(context.dataDir, 'agent')),
    hidden: [],
    turnTimeoutMs: vars.INVESTIBOOK_AGENT_TURN_TIMEOUT_MS,
    egressHosts: vars.INVESTIBOOK_AGENT_EGRESS_HOSTS,
    idleMs: vars.INVESTIBOOK_AGENT_IDLE_MS,
    maxRunning: vars.INVESTIBOOK_AGENT_MAX_RUNNING,
  };
}

/**
 * OpenCode's own programs beside its ACP agent, from the agent's command line: `opencode acp`
 * speaks ACP, `opencode export ID` prints a session, `opencode serve` is its HTTP server (which
 * the definitions are asked of). The runtime is named by INVESTIBOOK_AGENT_RUNTIME; the `acp`
 * subcommand is only where the others go. None without it: usage rows only, as for any agent.
 */
function opencodePrograms(command: string, args: readonly string[]): { exporter: Program; server: Program } | null {
  const at = args.lastIndexOf('acp');
  if (at < 0) return null;
  const before = args.slice(0, at);
  return {
    exporter: { command, args: [...before, 'export', '{session}'] },
    server: { command, args: [...before, 'serve'] },
  };
}
