/**
 * Which session a request is about (contract §5): the one asked for, which must exist, else the
 * workspace's most recently active one (null when it has none). One rule for every route, the
 * report and the CLI.
 *
 * A session belongs to the workspace whose rows named it first (Store.sessionOwner): rows of
 * another workspace that name it later do not make it theirs, and asking for a session of
 * another workspace answers exactly like asking for one that does not exist.
 */
import { notFound } from './errors';
import type { ReadSnapshot } from './storage/store';

const sessionNotFound = (workspaceId: string, sessionId: string) =>
  notFound('session_not_found', `session not found in workspace ${workspaceId}: ${sessionId}`);

export async function resolveSession(
  read: Pick<ReadSnapshot, 'listSessions' | 'sessionOwner'>,
  workspaceId: string,
  requested: string | undefined,
  /** Sessions that exist though nothing is stored yet (the live agent's, mid-turn). */
  live: (workspaceId: string, sessionId: string) => boolean = () => false,
): Promise<string | null> {
  if (requested !== undefined && requested !== '') {
    if (!live(workspaceId, requested) && (await read.sessionOwner(requested)) !== workspaceId) {
      throw sessionNotFound(workspaceId, requested);
    }
    return requested;
  }
  return (await read.listSessions(workspaceId))[0]?.session_id ?? null;
}

/**
 * A session a write may name: this workspace's own, or one no row names yet (a new session,
 * which becomes this workspace's). Another workspace's answers as not found.
 */
export async function claimSession(
  read: Pick<ReadSnapshot, 'sessionOwner'>,
  workspaceId: string,
  sessionId: string,
): Promise<void> {
  const owner = await read.sessionOwner(sessionId);
  if (owner !== null && owner !== workspaceId) throw sessionNotFound(workspaceId, sessionId);
}
