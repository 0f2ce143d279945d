/**
 * Which session a request is about (contract §5): the one asked for, which must exist, else the
 * workspace's most recently active one (null when it has none). One rule for every route, the
 * report and the CLI.
 */
import { notFound } from './errors';
import type { ReadSnapshot } from './storage/store';

export async function resolveSession(
  read: Pick<ReadSnapshot, 'listSessions' | 'sessionExists'>,
  workspaceId: string,
  requested: string | undefined,
  /** Sessions that exist though nothing is stored yet (the live agent's, mid-turn). */
  live: (workspaceId: string, sessionId: string) => boolean = () => false,
): Promise<string | null> {
  if (requested !== undefined && requested !== '') {
    if (!live(workspaceId, requested) && !(await read.sessionExists(workspaceId, requested))) {
      throw notFound('session_not_found', `session not found in workspace ${workspaceId}: ${requested}`);
    }
    return requested;
  }
  return (await read.listSessions(workspaceId))[0]?.session_id ?? null;
}
