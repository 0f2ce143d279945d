/**
 * OpenCode run as a workspace's agent: the operator's configuration (providers, models) and
 * credentials (`auth.json`) linked into the workspace agent's own folders and bound read-only,
 * the server's permission defaults as the `OPENCODE_CONFIG` layer, a workspace's opencode.json
 * only tightening them unless the operator lets it widen (permissions.ts), its servers' password,
 * and its writes into the workspace's `.opencode` folder kept in the agent's state instead.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { egressPolicy } from '../network/egress-policy';
import { OWNER_ONLY, type RuntimeHome, type RuntimeLaunch } from '../runtime-seam';
import type { AgentSettings } from '../settings';
import { CONFIG_FILES } from '../../../shared/opencode/runtime';
import { DEFAULT_PERMISSION, tighteningOverlay } from './permissions';

/** OpenCode's server login (its `ServerAuth`): the user name is fixed, the password is the secret. */
export const SERVER_USER = 'opencode';

export function prepareOpencode(made: RuntimeHome): RuntimeLaunch {
  const { settings, workspace, home, dirs, base, secret } = made;
  const userHome = base.HOME ?? '/nonexistent';
  const operatorConfig = join(base.XDG_CONFIG_HOME ?? join(userHome, '.config'), 'opencode');
  linkConfig(operatorConfig, join(dirs.XDG_CONFIG_HOME, 'opencode'));
  const readOnly = [operatorConfig];
  const credentials = linkCredentials(base, userHome, dirs.XDG_DATA_HOME);
  if (credentials) readOnly.push(credentials);
  const env: NodeJS.ProcessEnv = {
    OPENCODE_CONFIG: writeDefaults(settings.stateDir, base.OPENCODE_CONFIG),
    // Every OpenCode server of this process asks for it; its own ACP client sends it.
    OPENCODE_SERVER_USERNAME: secret.username,
    OPENCODE_SERVER_PASSWORD: secret.password,
  };
  const warnings: string[] = [];
  if (settings.workspacePermissions === 'tighten') {
    const overlay = tighteningOverlay(workspace.root);
    warnings.push(...overlay.warnings.map((w) => `workspace ${workspace.id}: ${w}`));
    if (overlay.content) env.OPENCODE_CONFIG_CONTENT = overlay.content;
  }
  readOnly.push(env.OPENCODE_CONFIG!);
  // OpenCode writes into the workspace's .opencode folder (its plugin SDK, a .gitignore): it
  // writes into a layer in the agent's state instead, the workspace's own entries read-only on top.
  const dotOpencode = join(workspace.root, '.opencode');
  const layered = isFolder(dotOpencode) ? [{ path: dotOpencode, storage: join(home, 'workspace-opencode') }] : [];
  return { env, unset: ['OPENCODE_CONFIG_CONTENT'], readOnly, layered, warnings };
}

/**
 * Where the workspace's agent may connect to (network/egress-policy.ts): its model providers as
 * the operator's configuration and credentials name them, and the operator's own entries.
 */
export function opencodeEgress(settings: AgentSettings, workspace: { id: string; root: string }) {
  const base = settings.env;
  const userHome = base.HOME ?? '/nonexistent';
  const operatorConfig = join(base.XDG_CONFIG_HOME ?? join(userHome, '.config'), 'opencode');
  const auth = join(base.XDG_DATA_HOME ?? join(userHome, '.local', 'share'), 'opencode', 'auth.json');
  return egressPolicy({
    operatorFiles: [
      ...['opencode.json', 'opencode.jsonc', 'config.json'].map((name) => join(operatorConfig, name)),
      ...(base.OPENCODE_CONFIG ? [base.OPENCODE_CONFIG] : []),
    ],
    workspaceFiles: CONFIG_FILES.map((name) => join(workspace.root, name)),
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
