/**
 * Claude Code as the workspace's live agent (INVESTIBOOK_AGENT_RUNTIME=claude-code): its write
 * side of the runtime seam (runtime-seam.ts). The bridge runs it as it runs OpenCode — over ACP,
 * in the workspace's sandbox and network namespace, behind the egress proxy — and this module
 * says what is Claude Code's own:
 *
 * - the program: the pinned `@agentclientprotocol/claude-agent-acp` under node, installed on
 *   demand into .cache/claude-code (install.ts), unless INVESTIBOOK_AGENT_COMMAND names one;
 * - its environment: HOME is the workspace agent's private one (its transcripts, its
 *   `.claude.json`, the private settings file with the server's policy: permissions.ts),
 *   `CLAUDE_CONFIG_DIR` pinned inside it, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` (alone it
 *   stops every connection but the model's), no auto-updater, no telemetry, no error reports; the
 *   model's `ANTHROPIC_BASE_URL` and key as the operator gives them;
 * - where it may connect: the host and port of `ANTHROPIC_BASE_URL` (a port of the host's
 *   loopback for a local model such as the scripted one), else api.anthropic.com:443, and the
 *   operator's own hosts;
 * - reading a turn back: its transcript, by the import's reading (read-back.ts).
 */
import { RUNTIME_TITLES } from '../../../shared/runtimes';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { workspaceKey, withoutSecrets } from '../agent-home';
import { addOperatorHosts, isLoopbackName, urlTarget, type EgressPolicy } from '../network/egress-policy';
import { nodeFolder } from '../report-mcp';
import type { ReadBack, RuntimeHome, RuntimeLaunch, RuntimeWriteSide } from '../runtime-seam';
import type { AgentSettings } from '../settings';
import { CLAUDE_CODE_CACHE, ensureClaudeCode, transcriptPath } from './install';
import { claudeSettings } from './permissions';
import { keepRest, sessionTranscripts, typedPrompts } from './read-back';

/** Anthropic's API, when the operator names no ANTHROPIC_BASE_URL. */
const ANTHROPIC_API = 'https://api.anthropic.com';

/** The private settings file in a workspace agent's HOME (Claude Code's "user" settings). */
export const settingsFile = (home: string): string => join(home, '.claude', 'settings.json');

/** The workspace agent's HOME, as confinement.ts makes it: where Claude Code keeps its transcripts. */
export const agentHome = (settings: AgentSettings, workspaceId: string): string =>
  join(settings.stateDir, 'workspaces', workspaceKey(workspaceId), 'home');

/** Writes the server's policy into the private settings file (owner-only); its path. */
export function writePrivateSettings(home: string, workspacePermissions: 'tighten' | 'widen'): string {
  const path = settingsFile(home);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const body = `${JSON.stringify(claudeSettings(workspacePermissions), null, 2)}\n`;
  if (!existsSync(path) || readFileSync(path, 'utf8') !== body) writeFileSync(path, body, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/**
 * A workspace's own `permissions.defaultMode` other than `default` or `plan` (acceptEdits, auto,
 * bypassPermissions): said once. The server's `ask` rules hold in every mode but `auto`, where
 * Claude Code's classifier on the model answers instead of the server.
 */
export function modeWarnings(root: string): string[] {
  const warnings: string[] = [];
  for (const name of ['settings.json', 'settings.local.json']) {
    const path = join(root, '.claude', name);
    if (!existsSync(path)) continue;
    let mode: unknown;
    try {
      mode = (JSON.parse(readFileSync(path, 'utf8')) as { permissions?: { defaultMode?: unknown } }).permissions
        ?.defaultMode;
    } catch {
      warnings.push(`.claude/${name} is not JSON: Claude Code will not read it either`);
      continue;
    }
    if (typeof mode === 'string' && mode !== 'default' && mode !== 'plan')
      warnings.push(
        `.claude/${name} sets permissions.defaultMode "${mode}": the server's ask rules still hold${mode === 'auto' ? ', but in auto mode Claude Code asks its classifier on the model, not the server' : ''}`,
      );
  }
  return warnings;
}

/** Where Claude Code may connect: its model endpoint, and the operator's own hosts. */
export function claudeCodeEgress(settings: AgentSettings): { policy: EgressPolicy; warnings: string[] } {
  const base = withoutSecrets(settings.env);
  const url = base.ANTHROPIC_BASE_URL || ANTHROPIC_API;
  const policy: EgressPolicy = { open: false, hosts: [], loopback: [] };
  const warnings: string[] = [];
  const target = urlTarget(url);
  const why = base.ANTHROPIC_BASE_URL ? 'ANTHROPIC_BASE_URL' : "Anthropic's API";
  if (!target) warnings.push(`ANTHROPIC_BASE_URL "${url}" is not an http(s) URL: Claude Code's model is unreachable`);
  else if (isLoopbackName(target.host) && target.port < 1024)
    warnings.push(`${why} is on port ${target.port} of the host's loopback: serve the model on a port from 1024 on`);
  else if (isLoopbackName(target.host))
    policy.loopback.push({ host: target.host as '127.0.0.1' | '::1' | 'localhost', port: target.port, why });
  else policy.hosts.push({ host: target.host, port: target.port, why });
  addOperatorHosts(policy, settings.egressHosts ?? [], warnings);
  return { policy, warnings };
}

/** Claude Code's environment over the server's (without investibook's secrets) and the private folders. */
export function claudeCodeLaunch(home: RuntimeHome): RuntimeLaunch {
  writePrivateSettings(home.dirs.HOME, home.settings.workspacePermissions);
  return {
    env: {
      CLAUDE_CONFIG_DIR: join(home.dirs.HOME, '.claude'),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    },
    // Settings of the operator's own Claude Code that would route it elsewhere or add its files.
    unset: ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'ANTHROPIC_CONFIG_DIR'],
    // The pinned install (the adapter, the SDK, the Claude Code binary) and the node running it,
    // whichever command line names them.
    readOnly: existsSync(CLAUDE_CODE_CACHE) ? [CLAUDE_CODE_CACHE, ...nodeFolder(process.execPath)] : [],
    warnings: home.settings.workspacePermissions === 'tighten' ? modeWarnings(home.workspace.root) : [],
  };
}

/**
 * Tools Claude Code leaves out unless the client names them, named in its `allowedTools` (the
 * adapter's session option, Claude Code's `--allowedTools`). Out of the box (2.1.318) it has no
 * `Grep` or `Glob` ("embedded search": its prompt says to run `grep`/`find` through `Bash`, which
 * the server's policy asks about, and so refuses by default) and, for a model it does not know
 * (a gateway's, the scripted model), no todo tools; naming one of them in `allowedTools` is its
 * own opt-in, read nowhere else (no setting or variable does it). Each is read-only or touches
 * only Claude Code's own task list. The search rules are scoped to the working folder, so the
 * opt-in allows nothing Claude Code's default does not (its read-only tools run unasked there).
 */
export const CLAUDE_OPT_IN_TOOLS: readonly string[] = ['Grep(./**)', 'Glob(./**)', 'TaskCreate'];

export const claudeCodeWriteSide: RuntimeWriteSide = {
  name: 'claude-code',
  title: RUNTIME_TITLES['claude-code'],

  async program(settings, log) {
    if (settings.command) return { command: settings.command, args: settings.args };
    return { command: process.execPath, args: [await ensureClaudeCode(log)] };
  },

  prepare: claudeCodeLaunch,
  sessionMeta: { claudeCode: { options: { allowedTools: [...CLAUDE_OPT_IN_TOOLS] } } },
  // Its transcript in the agent's private HOME: a session it never wrote (another runtime's, as
  // the demo's seeded ones are) is not loaded (the adapter would start Claude Code to find out).
  keeps: (settings, workspace, sessionId) =>
    existsSync(transcriptPath(agentHome(settings, workspace.id), workspace.root, sessionId)),
  toolName: (update) => claudeCodeToolName(update),
  egress: (settings) => claudeCodeEgress(settings),

  async readBack({ settings, workspace, sessionId, log }): Promise<ReadBack | null> {
    let sessions;
    try {
      sessions = sessionTranscripts(agentHome(settings, workspace.id), workspace.root, sessionId);
    } catch (error) {
      log(`Claude Code's transcript of session ${sessionId} could not be read: ${(error as Error).message}`);
      return null;
    }
    if (!sessions) {
      log(`Claude Code kept no transcript of session ${sessionId}`);
      return null;
    }
    const main = sessions[0]!;
    return {
      rows: main.rows.map((row) => ({ ...row, runtime: 'claude-code' as const })),
      prompts: typedPrompts(main.rows),
      record: async (context) => keepRest(context.store, context.workspaceId, sessions),
    };
  },
};

/**
 * A tool call's name as Claude Code sent it to the model ("Read", "Bash", `mcp__server__tool`):
 * its adapter titles a call in words ("Read File", then "Read evidence/x.txt") and names the tool
 * in `_meta.claudeCode.toolName`.
 */
export function claudeCodeToolName(update: { _meta?: Record<string, unknown> | null }): string | null {
  const meta = update._meta?.claudeCode as { toolName?: unknown } | undefined;
  return typeof meta?.toolName === 'string' && meta.toolName !== '' ? meta.toolName : null;
}
