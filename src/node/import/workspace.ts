/**
 * Which workspace an imported session goes to (docs/import.md), first rule that applies:
 * `--workspace ID`; the workspace the session is already in (a second import of it); its parent
 * session's (a subagent's session goes with the session whose task call made it); the workspace
 * whose folder is the session's folder (`--root`, else the export's `info.directory`), or holds
 * it; else a new workspace named after that folder, which must exist on this machine — else the
 * import is refused in words and nothing is written.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { DEMO_USER_ID } from '../demo/demo-ids';
import { AppError } from '../errors';
import { folderRefusal } from '../folder-rules';
import type { Store, WorkspaceRow } from '../storage/store';

export interface WorkspaceRequest {
  /** --workspace */
  workspaceId?: string | undefined;
  /** --root, absolute */
  root?: string | undefined;
  /** --user */
  user?: string | undefined;
  /** What a workspace's folder must neither be nor hold (folder-rules.ts): the data folder, the database. */
  secrets?: readonly string[] | undefined;
}

export interface SessionPlace {
  sessionId: string;
  parentId: string | null;
  /** The export's info.directory, as OpenCode recorded it. */
  directory: string | null;
}

export interface ChosenWorkspace {
  workspace: WorkspaceRow;
  /** Created by this import (with its member, if any). */
  created: { member: string | null } | null;
  /** Its folder, which had come from an export, is now the operator's (--workspace with --root). */
  given?: boolean;
}

const refused = (message: string) => new AppError('invalid', 'import_refused', message);

/** A folder on this machine, as its real path; null when it is not one. */
export function folderHere(path: string | null | undefined): string | null {
  if (!path) return null;
  try {
    return statSync(path).isDirectory() ? realpathSync(path) : null;
  } catch {
    return null;
  }
}

const inside = (folder: string, root: string) => {
  const rel = relative(root, folder);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep));
};

/** A workspace id from a folder's name: lower case letters, digits and dashes. */
export function idFromFolder(folder: string): string {
  const slug = basename(folder)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return slug || 'imported';
}

/** The workspace for one session, created (with its root and member) when there is none. */
export async function chooseWorkspace(
  tx: Store,
  place: SessionPlace,
  request: WorkspaceRequest,
  now: number,
): Promise<ChosenWorkspace> {
  const owner = await tx.sessionOwner(place.sessionId);
  if (request.workspaceId) {
    if (owner && owner !== request.workspaceId)
      throw refused(
        `session ${place.sessionId} is already in workspace ${owner}: import it there (--workspace ${owner}) or leave out --workspace`,
      );
    const found = await tx.getWorkspace(request.workspaceId);
    if (found) {
      checkRoot(tx, found, request.root);
      // --workspace with --root naming its folder: the operator gives that folder, an agent may start there.
      if (request.root && found.root_origin) {
        await tx.setRootOrigin(found.id, null);
        return { workspace: { ...found, root_origin: null }, created: null, given: true };
      }
      return { workspace: found, created: null };
    }
    return create(tx, request.workspaceId, rootFor(place, request), request, now);
  }
  for (const id of [owner, place.parentId ? await tx.sessionOwner(place.parentId) : null]) {
    const found = id ? await tx.getWorkspace(id) : null;
    if (found) return { workspace: found, created: null };
  }
  // A relative info.directory names nothing here (it would be read from wherever the CLI runs).
  const folder = request.root ?? (place.directory && isAbsolute(place.directory) ? folderHere(place.directory) : null);
  const workspaces = await tx.listWorkspaces();
  if (folder) {
    // The workspace whose folder holds the session's, the nearest first.
    const holding = workspaces
      .map((w) => ({ w, root: folderHere(tx.resolveRoot(w.root_path)) }))
      .filter((x): x is { w: WorkspaceRow; root: string } => x.root !== null && inside(folder, x.root))
      .sort((a, b) => b.root.length - a.root.length);
    if (holding[0]) return { workspace: holding[0].w, created: null };
  }
  const root = rootFor(place, request);
  const taken = new Set(workspaces.map((w) => w.id));
  const base = idFromFolder(root);
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return create(tx, id, root, request, now);
}

/**
 * The folder a new workspace gets: `--root` (checked already), else the export's own
 * `info.directory` — a suggestion, taken only when it is an absolute path to a folder here that
 * folder-rules.ts allows (never `/`, a system folder, a home, investibook's data).
 */
export function rootFor(place: SessionPlace, request: WorkspaceRequest): string {
  if (request.root) return request.root;
  const { sessionId, directory } = place;
  const give = 'give --root DIR (the workspace folder to report with) or --workspace ID (an existing workspace)';
  if (!directory) throw refused(`session ${sessionId} names no folder (info.directory): ${give}`);
  if (!isAbsolute(directory))
    throw refused(
      `session ${sessionId} names the relative folder ${directory} (info.directory), which is refused: ${give}`,
    );
  const here = folderHere(directory);
  if (!here) throw refused(`session ${sessionId} ran in ${directory}, which is not a folder on this machine: ${give}`);
  const why = folderRefusal(here, request.secrets ?? []);
  if (why)
    throw refused(
      `session ${sessionId} ran in ${directory}, which ${why}: an import never makes it a workspace; ${give}`,
    );
  return here;
}

function checkRoot(tx: Store, workspace: WorkspaceRow, root: string | undefined): void {
  if (!root) return;
  const its = folderHere(tx.resolveRoot(workspace.root_path)) ?? resolve(tx.resolveRoot(workspace.root_path));
  if (its !== root)
    throw refused(`workspace ${workspace.id} already has its folder at ${its}, not ${root}: leave out --root`);
}

async function create(
  tx: Store,
  id: string,
  root: string,
  request: WorkspaceRequest,
  now: number,
): Promise<ChosenWorkspace> {
  const member = await memberFor(tx, request.user);
  const workspace: WorkspaceRow = {
    id,
    name: basename(root) || id,
    root_path: root,
    created_at: now,
    // A folder only the file named: no live agent starts there until someone gives it (docs/import.md).
    root_origin: request.root ? null : 'export',
  };
  await tx.insertWorkspace(workspace);
  if (member) await tx.addMember(id, member);
  return { workspace, created: { member } };
}

/**
 * Who may see a workspace the import creates in the web app: `--user ID`, else the demo user
 * when the database has it (npm start made it), else the only user there is; none otherwise
 * (the CLI still reports on it, and says so).
 */
async function memberFor(tx: Store, user: string | undefined): Promise<string | null> {
  const users = await tx.listUsers();
  if (user) {
    if (!users.some((u) => u.id === user)) throw refused(`there is no user ${user} in this database (--user)`);
    return user;
  }
  if (users.some((u) => u.id === DEMO_USER_ID)) return DEMO_USER_ID;
  return users.length === 1 ? users[0]!.id : null;
}

/** Makes --user a member of a workspace that exists already (nothing written when it is one). */
export async function ensureMember(tx: Store, workspaceId: string, user: string | undefined): Promise<boolean> {
  if (!user) return false;
  if (!(await tx.listUsers()).some((u) => u.id === user))
    throw refused(`there is no user ${user} in this database (--user)`);
  if (await tx.workspaceForMember(workspaceId, user)) return false;
  await tx.addMember(workspaceId, user);
  return true;
}

export const rootExists = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();
