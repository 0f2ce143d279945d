/**
 * How one workspace's agent is launched: its own state folder, its own environment, the server's
 * permission defaults in its configuration, and the OS sandbox around it. The ACP process and
 * the session export (`opencode export`) run the same way, so both see the same storage.
 *
 * Per workspace, under the agent state folder (INVESTIBOOK_AGENT_STATE_DIR, default
 * `<data>/agent`): `workspaces/<key>/{home,data,state,cache}` become HOME and the XDG folders, so
 * each workspace's OpenCode has its own sessions, caches, tool outputs and configuration folder
 * — a session of one workspace does not exist for another's agent. The operator's configuration
 * (providers, models) and credentials (`auth.json`) are linked in and bound read-only.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { openAgentNetwork, type AgentNetwork, type NetworkNeeds } from './network/agent-network';
import { egressPolicy } from './network/egress-policy';
import { DEFAULT_PERMISSION, tighteningOverlay } from './opencode/permissions';
import { checkWorkingFolder, sandboxed, SandboxError } from './sandbox';
import type { AgentSettings } from './settings';

export interface Launch {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Said once when the agent starts (a workspace config that could not be read, say). */
  warnings: string[];
  /**
   * The password of every HTTP server the program opens (OpenCode's own, which `opencode acp`
   * runs too): made for this process, known to the bridge and to the process alone.
   */
  secret: { username: string; password: string };
  /** The ways out opened for it (none without egress): closed once the process ended. */
  network: AgentNetwork | null;
  /** The report's origin as the program reaches it (inside its network), when asked for. */
  reportOrigin: string | null;
  /** The socket that reaches the program's inbound port, when asked for. */
  inboundSocket: string | null;
}

export interface LaunchOptions {
  /** More files or folders the program may read (what the MCP servers it starts run from). */
  extraRead?: readonly string[];
  /**
   * Its network besides its own loopback: the egress of the workspace's policy (the agent, the
   * definitions recorder), its own report, a port the server asks. Absent: none at all (exports,
   * imports, an MCP server asked for its tools).
   */
  network?: Omit<NetworkNeeds, 'policy'> | null;
}

/**
 * The agents' state (their sessions, tool outputs, caches: every message again) is owner-only;
 * what OpenCode writes inside is out of other users' reach through these folders.
 */
const OWNER_ONLY = 0o700;

/** OpenCode's server login (its `ServerAuth`): the user name is fixed, the password is the secret. */
const SERVER_USER = 'opencode';

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
  const extraRead = options.extraRead ?? [];
  const base = withoutSecrets(settings.env);
  const home = join(settings.stateDir, 'workspaces', workspaceKey(workspace.id));
  const dirs = {
    HOME: join(home, 'home'),
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
    XDG_CACHE_HOME: join(home, 'cache'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true, mode: OWNER_ONLY });
  // Made before this rule (or by hand): closed now.
  for (const dir of [settings.stateDir, join(settings.stateDir, 'workspaces'), home]) {
    try {
      chmodSync(dir, OWNER_ONLY);
    } catch {
      // another user's folder, given by the operator: left as it is
    }
  }
  const userHome = base.HOME ?? '/nonexistent';
  const operatorConfig = join(base.XDG_CONFIG_HOME ?? join(userHome, '.config'), 'opencode');
  linkConfig(operatorConfig, join(dirs.XDG_CONFIG_HOME, 'opencode'));
  const readOnly = [operatorConfig, ...settings.sandboxRead, ...extraRead];
  const credentials = linkCredentials(base, userHome, dirs.XDG_DATA_HOME);
  if (credentials) readOnly.push(credentials);

  const warnings: string[] = [];
  const secret = { username: SERVER_USER, password: randomBytes(24).toString('base64url') };
  const env: NodeJS.ProcessEnv = {
    ...base,
    ...dirs,
    OPENCODE_CONFIG: writeDefaults(settings.stateDir, base.OPENCODE_CONFIG),
    // Every OpenCode server of this process asks for it; its own ACP client sends it.
    OPENCODE_SERVER_USERNAME: secret.username,
    OPENCODE_SERVER_PASSWORD: secret.password,
    TMPDIR: '/tmp',
  };
  for (const name of Object.keys(env)) if (/^(https?|no|all)_proxy$/i.test(name)) delete env[name];
  delete env.OPENCODE_CONFIG_CONTENT;
  if (settings.workspacePermissions === 'tighten') {
    const overlay = tighteningOverlay(workspace.root);
    warnings.push(...overlay.warnings.map((w) => `workspace ${workspace.id}: ${w}`));
    if (overlay.content) env.OPENCODE_CONFIG_CONTENT = overlay.content;
  }
  readOnly.push(env.OPENCODE_CONFIG!);

  const unconfined = {
    secret,
    network: null,
    inboundSocket: null,
    reportOrigin: options.network?.report?.origin ?? null,
  };
  if (settings.sandbox === 'off') {
    return { command: program.command, args: [...program.args], cwd: workspace.root, env, warnings, ...unconfined };
  }
  // OpenCode writes into the workspace's .opencode folder (its plugin SDK, a .gitignore): it
  // writes into a layer in the agent's state instead, the workspace's own entries read-only on top.
  const dotOpencode = join(workspace.root, '.opencode');
  const layered = isFolder(dotOpencode) ? [{ path: dotOpencode, storage: join(home, 'workspace-opencode') }] : [];
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

/**
 * Where the workspace's agent may connect to (network/egress-policy.ts): its model providers as
 * the operator's configuration and credentials name them, and the operator's own entries.
 */
export function agentEgress(settings: AgentSettings, workspace: Pick<Workspace, 'id' | 'root'>) {
  const base = withoutSecrets(settings.env);
  const userHome = base.HOME ?? '/nonexistent';
  const operatorConfig = join(base.XDG_CONFIG_HOME ?? join(userHome, '.config'), 'opencode');
  const auth = join(base.XDG_DATA_HOME ?? join(userHome, '.local', 'share'), 'opencode', 'auth.json');
  return egressPolicy({
    operatorFiles: [
      ...['opencode.json', 'opencode.jsonc', 'config.json'].map((name) => join(operatorConfig, name)),
      ...(base.OPENCODE_CONFIG ? [base.OPENCODE_CONFIG] : []),
    ],
    workspaceRoot: workspace.root,
    workspaceWidens: settings.workspacePermissions === 'widen',
    env: base,
    authFile: existsSync(auth) ? auth : null,
    extra: settings.egressHosts ?? [],
  });
}

/**
 * The permission defaults as the `OPENCODE_CONFIG` layer. An operator's own `OPENCODE_CONFIG`
 * file is kept, its `permission` replaced by the defaults (the policy is the server's).
 */
function writeDefaults(stateDir: string, operatorFile: string | undefined): string {
  let operator: Record<string, unknown> = {};
  if (operatorFile) {
    try {
      const parsed = parse(readFileSync(operatorFile, 'utf8')) as unknown;
      if (typeof parsed === 'object' && parsed !== null) operator = parsed as Record<string, unknown>;
    } catch {
      // unreadable: OpenCode would not read it either
    }
  }
  mkdirSync(stateDir, { recursive: true, mode: OWNER_ONLY });
  const path = join(stateDir, 'opencode-defaults.json');
  const body = `${JSON.stringify({ ...operator, permission: DEFAULT_PERMISSION }, null, 2)}\n`;
  if (!existsSync(path) || readFileSync(path, 'utf8') !== body) writeFileSync(path, body);
  return path;
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** What OpenCode writes into its configuration folder itself (plugin installs): never shared. */
const GENERATED = new Set(['.gitignore', 'node_modules', 'package.json', 'package-lock.json', 'bun.lock', 'bun.lockb']);

/**
 * The operator's OpenCode configuration (providers, models, agents), seen through links from the
 * workspace's own configuration folder: OpenCode writes into that folder (a .gitignore, plugin
 * installs), so a shared one would let one workspace's agent plant code for the others.
 */
function linkConfig(operator: string, own: string): void {
  mkdirSync(own, { recursive: true, mode: OWNER_ONLY });
  let names: string[];
  try {
    names = readdirSync(operator);
  } catch {
    return; // no configuration of the operator's
  }
  for (const name of names) {
    if (GENERATED.has(name)) continue;
    const link = join(own, name);
    try {
      lstatSync(link);
    } catch {
      symlinkSync(join(operator, name), link);
    }
  }
}

/** The operator's OpenCode credentials, linked into the workspace's data folder; their real path. */
function linkCredentials(base: NodeJS.ProcessEnv, userHome: string, dataHome: string): string | null {
  const real = join(base.XDG_DATA_HOME ?? join(userHome, '.local', 'share'), 'opencode', 'auth.json');
  if (!existsSync(real)) return null;
  const link = join(dataHome, 'opencode', 'auth.json');
  mkdirSync(join(dataHome, 'opencode'), { recursive: true, mode: OWNER_ONLY });
  try {
    lstatSync(link);
  } catch {
    symlinkSync(real, link);
  }
  return real;
}

export { SandboxError };
