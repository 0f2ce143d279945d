/**
 * Which agent the server runs, from the environment of `npm start`:
 *
 * - `INVESTIBOOK_AGENT_COMMAND`: the command line of an ACP agent, run in the workspace folder
 *   (e.g. `opencode acp`). Unset: no agent; the chat says how to attach one.
 * - `INVESTIBOOK_AGENT_EXPORT_COMMAND`: prints a session in OpenCode's shapes as JSON, `{session}`
 *   standing for its id. Default: the agent's own program with `export {session}` when the agent
 *   command ends in `acp` (OpenCode).
 * - `INVESTIBOOK_AGENT_PERMISSIONS`: `reject` (default) or `allow` — the answer to the agent's
 *   permission requests (what its opencode.json says to ask about).
 * - `INVESTIBOOK_AGENT_TURN_TIMEOUT_MS`: a turn longer than this is cancelled (default 10 min).
 */
import { parse } from 'shell-quote';
import type { ExportCommand } from './export-session';

export interface AgentSettings {
  command: string;
  args: readonly string[];
  /** The agent's environment (the server's own by default: provider keys live there). */
  env: NodeJS.ProcessEnv;
  /** How to read a session back in OpenCode's shapes; null: usage rows only, messages not persisted. */
  exporter: ExportCommand | null;
  permissions: 'allow' | 'reject';
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
  'No agent is attached to this server. For the demo’s agent (the real OpenCode runtime on a local scripted model, no API key): stop the server and run `npm run demo:agent`. For your own: set INVESTIBOOK_AGENT_COMMAND (e.g. "opencode acp") and restart.';

function words(line: string, variable: string): string[] {
  const parsed = parse(line);
  if (!parsed.every((word): word is string => typeof word === 'string')) {
    throw new AgentSettingsError(`${variable} must be a plain command line (no pipes, redirections or globs)`);
  }
  if (parsed.length === 0) throw new AgentSettingsError(`${variable} is empty`);
  return parsed;
}

export function agentSettingsFromEnv(env: NodeJS.ProcessEnv): AgentSettings | null {
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
  const permissions = env.INVESTIBOOK_AGENT_PERMISSIONS?.trim() || 'reject';
  if (permissions !== 'allow' && permissions !== 'reject') {
    throw new AgentSettingsError(`INVESTIBOOK_AGENT_PERMISSIONS must be "allow" or "reject", not "${permissions}"`);
  }
  const timeout = Number(env.INVESTIBOOK_AGENT_TURN_TIMEOUT_MS || 600_000);
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw new AgentSettingsError('INVESTIBOOK_AGENT_TURN_TIMEOUT_MS must be a positive number of milliseconds');
  }
  return { command: command!, args, env, exporter, permissions, turnTimeoutMs: timeout };
}
