/**
 * How the chat names a session: by its title (the workspace's session list carries it: the
 * first thing said in it, cut), never by its raw id.
 */
import type { Workspace } from '../shared/wire';

export const NEW_SESSION_TITLE = 'New conversation';

export function sessionTitleOf(workspace: Workspace | undefined, sessionId: string | null): string | null {
  if (!sessionId) return null;
  const session = workspace?.sessions.find((s) => s.id === sessionId);
  if (!session) return NEW_SESSION_TITLE;
  return session.title ?? 'Untitled conversation';
}
