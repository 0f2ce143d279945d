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
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { DEFAULT_PERMISSION, tighteningOverlay } from './permissions';
import { sandboxed, SandboxError } from './sandbox';
import type { AgentSettings } from './settings';

export interface Launch {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Said once when the agent starts (a workspace config that could not be read, say). */
  warnings: string[];
}

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
 * `DATABASE_URL`. The sandbox shares the network (the model's provider, the report grant's
 * loopback API), so a PostgreSQL server stays reachable over TCP: without credentials.
 */
const SECRET = /^(INVESTIBOOK_|PG[A-Z]|DATABASE_URL$)/;

/** The agent's environment, minus what would give it investibook's own data. */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !SECRET.test(key)));
}

/** The command line, folder and environment for running `program` as this workspace's agent. */
export function launch(
  settings: AgentSettings,
  workspace: Workspace,
  program: { command: string; args: readonly string[] },
  /** More files or folders the program may read (what the MCP servers it starts run from). */
  extraRead: readonly string[] = [],
): Launch {
  const base = withoutSecrets(settings.env);
  const home = join(settings.stateDir, 'workspaces', workspaceKey(workspace.id));
  const dirs = {
    HOME: join(home, 'home'),
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
    XDG_CACHE_HOME: join(home, 'cache'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const userHome = base.HOME ?? '/nonexistent';
  const operatorConfig = join(base.XDG_CONFIG_HOME ?? join(userHome, '.config'), 'opencode');
  linkConfig(operatorConfig, join(dirs.XDG_CONFIG_HOME, 'opencode'));
  const readOnly = [operatorConfig, ...settings.sandboxRead, ...extraRead];
  const credentials = linkCredentials(base, userHome, dirs.XDG_DATA_HOME);
  if (credentials) readOnly.push(credentials);

  const warnings: string[] = [];
  const env: NodeJS.ProcessEnv = {
    ...base,
    ...dirs,
    OPENCODE_CONFIG: writeDefaults(settings.stateDir, base.OPENCODE_CONFIG),
    TMPDIR: '/tmp',
  };
  delete env.OPENCODE_CONFIG_CONTENT;
  if (settings.workspacePermissions === 'tighten') {
    const overlay = tighteningOverlay(workspace.root);
    warnings.push(...overlay.warnings.map((w) => `workspace ${workspace.id}: ${w}`));
    if (overlay.content) env.OPENCODE_CONFIG_CONTENT = overlay.content;
  }
  readOnly.push(env.OPENCODE_CONFIG!);

  if (settings.sandbox === 'off') {
    return { command: program.command, args: [...program.args], cwd: workspace.root, env, warnings };
  }
  // OpenCode writes into the workspace's .opencode folder (its plugin SDK, a .gitignore): it
  // writes into a layer in the agent's state instead, the workspace's own entries read-only on top.
  const dotOpencode = join(workspace.root, '.opencode');
  const layered = isFolder(dotOpencode) ? [{ path: dotOpencode, storage: join(home, 'workspace-opencode') }] : [];
  for (const layer of layered) mkdirSync(layer.storage, { recursive: true });
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
  });
  return { ...confined, cwd: workspace.root, env, warnings };
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
  mkdirSync(stateDir, { recursive: true });
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
  mkdirSync(own, { recursive: true });
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
  mkdirSync(join(dataHome, 'opencode'), { recursive: true });
  try {
    lstatSync(link);
  } catch {
    symlinkSync(real, link);
  }
  return real;
}

export { SandboxError };
