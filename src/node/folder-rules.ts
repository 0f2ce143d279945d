/**
 * Which folders may become a workspace's folder — the folder a live agent is started in, read
 * and written with the agent's rights (docs/security.md). One rule for every door: an import's
 * `info.directory`, `--root`, `--from-opencode DIR`, and the sandbox at every agent start.
 *
 * Refused, always by real path (symlinks resolved, so a link to `/etc` is `/etc`):
 * - the file system's root, and anything inside the system's own folders (`/etc`, `/usr`, `/bin`,
 *   `/sbin`, `/lib*`, `/boot`, `/dev`, `/proc`, `/sys`, `/run`, and `/var`'s system parts);
 * - folders that hold much more than a project: `/home`, `/var`, `/tmp`, `/root`, `/opt`, …,
 *   and a user's home itself (a project inside a home is fine);
 * - a folder that is or holds one of `secrets`: investibook's data folder, the database, its
 *   folder, the token file (an agent there would read every message and sign in as anyone).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Nothing inside these is a project. */
const SYSTEM_TREES = [
  '/etc',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/boot',
  '/dev',
  '/proc',
  '/sys',
  '/run',
  '/var/lib',
  '/var/log',
  '/var/cache',
  '/var/spool',
  '/var/mail',
  '/var/run',
];
/** These themselves hold far more than one project (their subfolders may be projects). */
const SHARED_FOLDERS = ['/', '/home', '/var', '/tmp', '/var/tmp', '/root', '/opt', '/srv', '/mnt', '/media'];

/** Whether `path` is `folder` or inside it (both absolute). `/` holds everything. */
export function within(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** A path with its symlinks resolved as far as it exists (a database's `-wal` may not yet). */
export function realPath(path: string): string {
  const rest: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(current), ...rest);
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      rest.unshift(basename(current));
      current = parent;
    }
  }
}

/** The fixed folders as real paths, and the homes: read once per process (every agent start asks). */
let known: { trees: string[]; shared: string[]; homes: Set<string> } | null = null;
const knownFolders = () =>
  (known ??= { trees: SYSTEM_TREES.map(realPath), shared: SHARED_FOLDERS.map(realPath), homes: homes() });

/** Every user's home on this machine (`/etc/passwd`), and the current user's. */
function homes(): Set<string> {
  const found = new Set<string>([realPath(homedir())]);
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const home = line.split(':')[5];
      if (home && isAbsolute(home)) found.add(realPath(home));
    }
  } catch {
    // no passwd file: the current user's home is still known
  }
  return found;
}

/**
 * Why `folder` may not be a workspace's folder, in words ("is the file system's root"), or null
 * when it may. `secrets` are the paths the folder must neither be nor hold.
 */
export function folderRefusal(folder: string, secrets: readonly string[]): string | null {
  const real = realPath(folder);
  const shown = real === resolve(folder) ? '' : ` (${real})`;
  if (real === '/') return `is the file system's root${shown}`;
  const { trees, shared, homes: userHomes } = knownFolders();
  const tree = trees.find((system) => within(real, system));
  if (tree) return `is ${real === tree ? 'the system folder' : 'inside the system folder'} ${tree}${shown}`;
  if (shared.includes(real)) return `is ${real}, a folder shared by far more than one project`;
  if (userHomes.has(real)) return `is a user's home folder${shown}`;
  for (const secret of secrets) {
    const its = realPath(secret);
    if (within(its, real))
      return `${its === real ? 'is' : 'holds'} ${secret}, which stays out of an agent's reach${shown}`;
  }
  return null;
}

/**
 * What a workspace's folder must never hold: the database file (and its companions), its
 * folder, and investibook's data folder. For a database server, the data folder alone.
 */
export function dataSecrets(database: string | null, dataDir: string): string[] {
  if (!database) return [dataDir];
  return [dataDir, dirname(database), database];
}
