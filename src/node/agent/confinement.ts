/**
 * How one workspace's agent is launched: its own state folder, its own environment, what its
 * runtime adds (runtime-seam.ts: its configuration with the server's permission defaults, its
 * credentials, its offline switches) and the OS sandbox around it. Every program of the agent —
 * its ACP process, the read-back of a session, the recording of its definitions — runs the same
 * way, so all see the same storage.
 *
 * Per workspace, under the agent state folder (INVESTIBOOK_AGENT_STATE_DIR, default
 * `<data>/agent`): `workspaces/<key>/{home,data,state,cache}` become HOME and the XDG folders, so
 * each workspace's agent has its own sessions, caches, tool outputs and configuration folder —
 * a session of one workspace does not exist for another's agent.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openAgentNetwork, type AgentNetwork } from './network/agent-network';
import { writeSideOf } from './runtime-registry';
import { OWNER_ONLY, type Launch, type LaunchOptions } from './runtime-seam';
import { checkWorkingFolder, sandboxed, SandboxError } from './sandbox';
import type { AgentSettings } from './settings';

export type { Launch, LaunchOptions };

export interface Workspace {
  id: string;
  root: string;
  /** Folders of the other workspaces: never visible to this one's agent. */
  others: readonly string[];
}

/** A folder name for a workspace id (ids are any text): readable prefix, unique hash. */
export function workspaceKey(id: string): string {
  const readable = id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  return `${readable}-${createHash('sha256').update(id).digest('hex').slice(0, 10)}`;
}

/**
 * Variables that would hand the agent investibook's database: its own (`INVESTIBOOK_*`: the demo
 * token, database URLs), libpq's (`PG*`: host, user, password, service file) and the common
 * `DATABASE_URL`. The sandbox's network reaches no database server anyway (only its model
 * provider and its own report); without the sandbox (INVESTIBOOK_AGENT_SANDBOX=off) one stays
 * reachable over TCP: without credentials.
 */
const SECRET = /^(INVESTIBOOK_|PG[A-Z]|DATABASE_URL$)/;

/** The agent's environment, minus what would give it investibook's own data. */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !SECRET.test(key)));
}

/**
 * The command line, folder and environment for running `program` as this workspace's agent, and
 * its network. The caller closes `network` once the process ended.
 */
export async function launch(
  settings: AgentSettings,
  workspace: Workspace,
  program: { command: string; args: readonly string[] },
  options: LaunchOptions = {},
): Promise<Launch> {
  // Before anything is made for it: a folder no agent may have is refused whatever the sandbox setting.
  checkWorkingFolder(workspace.root, settings.hidden);
  const runtime = writeSideOf(settings.runtime);
  const base = withoutSecrets(settings.env);
  const home = join(settings.stateDir, 'workspaces', workspaceKey(workspace.id));
  const dirs = ownFolders(settings.stateDir, home);
  const secret = { username: runtime.serverUser ?? 'agent', password: randomBytes(24).toString('base64url') };
  const made = runtime.prepare({
    settings,
    workspace: { id: workspace.id, root: workspace.root },
    home,
    dirs,
    base,
    secret,
  });
  const env: NodeJS.ProcessEnv = { ...base, ...dirs, TMPDIR: '/tmp' };
  for (const name of Object.keys(env)) if (/^(https?|no|all)_proxy$/i.test(name)) delete env[name];
  for (const name of made.unset ?? []) delete env[name];
  Object.assign(env, made.env);
  const readOnly = [...made.readOnly, ...settings.sandboxRead, ...(options.extraRead ?? [])];
  const warnings = [...made.warnings];
  const unconfined = {
    secret,
    network: null,
    inboundSocket: null,
    reportOrigin: options.network?.report?.origin ?? null,
  };
  if (settings.sandbox === 'off') {
    return { command: program.command, args: [...program.args], cwd: workspace.root, env, warnings, ...unconfined };
  }
  const layered = made.layered ?? [];
  for (const layer of layered) mkdirSync(layer.storage, { recursive: true, mode: OWNER_ONLY });
  let network: AgentNetwork | null = null;
  if (options.network) {
    const { policy, warnings: said } = agentEgress(settings, workspace);
    warnings.push(...said.map((w) => `workspace ${workspace.id}: ${w}`));
    network = await openAgentNetwork({ ...options.network, policy });
    Object.assign(env, network.env);
  }
  try {
    const confined = sandboxed({
      command: program.command,
      args: program.args,
      cwd: workspace.root,
      writable: [workspace.root, home],
      readOnly,
      path: env.PATH,
      hidden: [...settings.hidden, ...workspace.others, join(settings.stateDir, 'workspaces')],
      layered,
      bwrap: settings.bwrap,
      ...(network ? { network } : {}),
    });
    return {
      ...confined,
      cwd: workspace.root,
      env,
      warnings,
      secret,
      network,
      inboundSocket: network?.inboundSocket ?? null,
      reportOrigin: network?.reportOrigin ?? null,
    };
  } catch (error) {
    await network?.close();
    throw error;
  }
}

/** The workspace agent's HOME and XDG folders, made owner-only (and the folders above them closed). */
function ownFolders(stateDir: string, home: string) {
  const dirs = {
    HOME: join(home, 'home'),
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
    XDG_CACHE_HOME: join(home, 'cache'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true, mode: OWNER_ONLY });
  // Made before this rule (or by hand): closed now.
  for (const dir of [stateDir, join(stateDir, 'workspaces'), home]) {
    try {
      chmodSync(dir, OWNER_ONLY);
    } catch {
      // another user's folder, given by the operator: left as it is
    }
  }
  return dirs;
}

/**
 * Where the workspace's agent may connect to (network/egress-policy.ts): its model providers as
 * its runtime's configuration and credentials name them, and the operator's own entries.
 */
export function agentEgress(settings: AgentSettings, workspace: Pick<Workspace, 'id' | 'root'>) {
  return writeSideOf(settings.runtime).egress(
    { ...settings, env: withoutSecrets(settings.env) },
    { id: workspace.id, root: workspace.root },
  );
}

export { SandboxError };
