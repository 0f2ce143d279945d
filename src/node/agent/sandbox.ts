/**
 * The agent's OS sandbox: bubblewrap (`bwrap`, Debian `bubblewrap`), the tool Claude Code uses to
 * confine commands on Linux. The agent process — and every shell command, edit or plugin it runs
 * — sees a file system made of:
 *
 * - the system, read-only (`/usr` and a short list of `/etc` files: DNS, certificates, users);
 * - the agent program itself, read-only (the folder it is installed in), and any folder the
 *   operator names (`INVESTIBOOK_AGENT_SANDBOX_READ`), read-only;
 * - its workspace folder and its own state folder, writable — nothing else is;
 * - a private `/tmp`, `/dev` and `/proc`.
 *
 * investibook's database, token files, the other workspaces and the other agents' state are
 * simply not there. The network is its own too (a network namespace with only a loopback): what
 * leads out is what the server gives it (network/agent-network.ts), through a relay in front of
 * the program. The process dies with the server (`--die-with-parent`), runs in a session of its
 * own (no terminal injection), in new user, PID, IPC, network and UTS namespaces (a host name of
 * its own), with every capability dropped and no way to make user namespaces of its own.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { delimiter, dirname, isAbsolute, join, sep } from 'node:path';
import { folderRefusal, realPath, within } from '../folder-rules';

export type SandboxMode = 'bwrap' | 'off';

export interface SandboxSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  /** Folders the agent may write: its workspace and its own state. */
  writable: readonly string[];
  /** Extra files or folders it may read (its configuration, its credentials). */
  readOnly: readonly string[];
  /** PATH of the agent's environment, to find a bare command name. */
  path: string | undefined;
  /** The bubblewrap program (default: `bwrap` on the server's PATH). */
  bwrap?: string;
  /** What must stay invisible (the database, token files, other workspaces): a bind that shows one is refused. */
  hidden: readonly string[];
  /**
   * Folders inside a writable one that the agent sees through a layer of its own: `storage` (in
   * its state folder) takes the writes, the folder's own entries are shown read-only on top.
   * OpenCode writes into every `.opencode` folder it finds (a .gitignore, an npm install of its
   * plugin SDK): that way it never writes into the workspace's own.
   */
  layered?: readonly { path: string; storage: string }[];
  /**
   * The ways out the server opened for it (network/agent-network.ts): their folder of sockets,
   * bound writable, what the relay needs to run, and the program put behind the relay. Without
   * it the program has no network at all but its own loopback.
   */
  network?: {
    dir: string;
    readOnly: readonly string[];
    wrap: (program: string, args: readonly string[]) => { command: string; args: string[] };
  };
}

/** The sandbox's host name: its own, so that nothing it sets reaches the host's. */
export const SANDBOX_HOSTNAME = 'investibook-agent';

export class SandboxError extends Error {
  readonly code = 'sandbox_unavailable';
  /**
   * `folder`: the workspace's folder may not be given to an agent (folder-rules.ts) — no
   * sandbox setting changes that; `unavailable`: bubblewrap cannot run here.
   */
  constructor(
    message: string,
    readonly reason: 'unavailable' | 'folder' = 'unavailable',
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

/**
 * Refuses a working folder no agent may have, sandbox or not: the file system's root, a system
 * folder, a home, or one that is or holds `secrets` (the database, its folder, the token file,
 * the data folder) — by real path, so a symlink to one is that one.
 */
export function checkWorkingFolder(folder: string, secrets: readonly string[]): void {
  const why = folderRefusal(folder, secrets);
  if (why) throw new SandboxError(`the workspace folder ${folder} ${why}: no agent is started there`, 'folder');
}

/** The system the agent may read: programs and libraries, and the few /etc files a client needs. */
const SYSTEM_READ = [
  '/usr',
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/passwd',
  '/etc/group',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/pki',
  '/etc/localtime',
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/mime.types',
  '/etc/gitconfig',
];
/** Merged-/usr distributions link these; others have them as folders. */
const TOP_LEVEL = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

type Probe = { ok: true; version: string } | { ok: false; why: string };
const probes = new Map<string, Probe>();

/** Whether bubblewrap can make a sandbox here (checked once per process and program). */
export function probeSandbox(bwrap = 'bwrap'): Probe {
  let probed = probes.get(bwrap);
  if (probed) return probed;
  try {
    const version = execFileSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 5000 }).trim();
    const trial = spawnSync(bwrap, [...baseArgs(), '--ro-bind', '/usr', '/usr', ...topLevelArgs(), '--', 'true'], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    probed =
      trial.status === 0
        ? { ok: true, version }
        : {
            ok: false,
            why: `bubblewrap cannot create a sandbox here: ${lastLine(trial.stderr) || `exit ${trial.status}`}`,
          };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    probed = {
      ok: false,
      why:
        code === 'ENOENT'
          ? `bubblewrap (${bwrap}) is not installed (Debian: apt-get install -y bubblewrap)`
          : `bubblewrap does not run: ${(error as Error).message}`,
    };
  }
  probes.set(bwrap, probed);
  return probed;
}

function baseArgs(): string[] {
  return [
    '--die-with-parent',
    '--new-session',
    // User, IPC, PID, network, UTS and cgroup namespaces: the network is the sandbox's own.
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--hostname',
    SANDBOX_HOSTNAME,
    '--cap-drop',
    'ALL',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
  ];
}

function topLevelArgs(): string[] {
  const out: string[] = [];
  for (const path of TOP_LEVEL) {
    const target = safeRealpath(path);
    if (target === null) continue; // not on this system
    // A link into /usr (merged /usr) stays a link; a real folder is bound read-only.
    if (target !== path) out.push('--symlink', target.slice(1), path);
    else out.push('--ro-bind', path, path);
  }
  return out;
}

/** The bwrap command line that runs `spec` confined; throws SandboxError when it cannot. */
export function sandboxed(spec: SandboxSpec): { command: string; args: string[] } {
  const bwrap = spec.bwrap ?? 'bwrap';
  checkWorkingFolder(spec.cwd, spec.hidden);
  const probe = probeSandbox(bwrap);
  if (!probe.ok) throw new SandboxError(probe.why);
  const program = resolveProgram(spec.command, spec.path);
  const args = [...baseArgs(), ...topLevelArgs()];
  const bound = new Set<string>();
  const bind = (flag: '--ro-bind' | '--bind', path: string) => {
    if (bound.has(`${flag}${path}`) || !existsSync(path)) return;
    bound.add(`${flag}${path}`);
    args.push(flag, path, path);
  };
  for (const path of SYSTEM_READ) {
    bind('--ro-bind', path);
    // /etc/resolv.conf may be a link into /run: the file it names must be there too.
    const real = safeRealpath(path);
    if (real && real !== path) bind('--ro-bind', real);
  }
  for (const path of programFolders(program)) bind('--ro-bind', path);
  for (const path of [...spec.readOnly, ...(spec.network?.readOnly ?? [])]) {
    bind('--ro-bind', path);
    const real = safeRealpath(path);
    if (real && real !== path) bind('--ro-bind', real);
  }
  // Writable last: a folder inside a read-only one stays writable.
  for (const path of spec.writable) bind('--bind', realpathSync(path));
  if (spec.network) bind('--bind', realpathSync(spec.network.dir));
  for (const layer of spec.layered ?? []) args.push(...layerArgs(layer.path, layer.storage));
  const shows = [...bound].map((b) => b.replace(/^--(ro-)?bind/, '')).map((b) => ({ b, real: realPath(b) }));
  for (const secret of spec.hidden) {
    const real = realPath(secret);
    // By path logic, not by text: `/` holds everything (a `${b}/` prefix test missed it).
    const shown = shows.find((s) => within(real, s.real))?.b;
    if (shown)
      throw new SandboxError(`the agent's sandbox would show ${secret} (inside ${shown}): refusing to start it`);
  }
  const run = spec.network ? spec.network.wrap(program, spec.args) : { command: program, args: [...spec.args] };
  args.push('--chdir', realpathSync(spec.cwd), '--', run.command, ...run.args);
  return { command: bwrap, args };
}

/** The agent's program is not there. */
export class ProgramNotFound extends Error {
  constructor(readonly command: string) {
    super(`agent command not found: ${command}`);
    this.name = 'ProgramNotFound';
  }
}

/**
 * A folder shown over a writable one of the agent's: each entry bound read-only (a link stays a
 * link: its target is not shown unless bound anyway).
 */
function layerArgs(path: string, storage: string): string[] {
  const args = ['--bind', storage, path];
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const source = join(path, entry.name);
    if (entry.isSymbolicLink()) args.push('--symlink', readlinkSync(source), source);
    else if (entry.isDirectory() || entry.isFile()) args.push('--ro-bind', source, source);
  }
  return args;
}

/** A command as a path: a bare name is looked up in the agent's PATH. */
export function resolveProgram(command: string, path: string | undefined): string {
  if (command.includes('/')) {
    const absolute = isAbsolute(command) ? command : join(process.cwd(), command);
    if (!existsSync(absolute)) throw new ProgramNotFound(command);
    return absolute;
  }
  for (const folder of (path ?? '').split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, command);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  throw new ProgramNotFound(command);
}

/**
 * What the program needs to run, read-only: the folder it is installed in — the whole
 * `node_modules` tree when it is an npm package (OpenCode's launcher finds its platform binary
 * in a sibling package) — and, for a script, the folder of its interpreter.
 */
function programFolders(program: string): string[] {
  const folders: string[] = [];
  for (const path of [program, safeRealpath(program)]) {
    if (!path) continue;
    const modules = path.lastIndexOf(`${sep}node_modules${sep}`);
    folders.push(modules >= 0 ? path.slice(0, modules + '/node_modules'.length) : dirname(path));
  }
  const interpreter = shebang(program);
  if (interpreter) {
    const real = safeRealpath(interpreter);
    if (real) folders.push(dirname(dirname(real)));
  }
  return folders.filter((folder) => !folder.startsWith('/usr/'));
}

function shebang(program: string): string | null {
  try {
    const buffer = Buffer.alloc(200);
    const fd = openSync(program, 'r');
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    closeSync(fd);
    const head = buffer.toString('latin1', 0, length);
    const match = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(head);
    if (!match) return null;
    // `#!/usr/bin/env node`: the program env finds.
    if (match[1]!.endsWith('/env') && match[2]) return resolveProgram(match[2], process.env.PATH);
    return match[1]!;
  } catch {
    return null;
  }
}

function safeRealpath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

const lastLine = (text: string | undefined) => (text ?? '').trim().split('\n').at(-1) ?? '';
