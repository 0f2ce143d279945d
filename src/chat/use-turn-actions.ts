/**
 * What a live turn does to the rest of the chat, as stable callbacks: refetch the status, the
 * session list, a session's history and usage; show a new session empty at once; say a server's
 * error in the chat's words; and add a local-only notice.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { agentQueries } from '../api/agent';
import { ApiError } from '../api/http';
import { messageQueries } from '../api/messages';
import { usageQueries } from '../api/usage';
import { workspaceQueries } from '../api/workspace';
import { useTranscriptActions } from './local-messages-store';
import { sessionTitleOf } from './session-title';

export type TurnActions = ReturnType<typeof useTurnActions>;

export function useTurnActions(workspaceId: string) {
  const queryClient = useQueryClient();
  const { localMessageAdded } = useTranscriptActions();
  const invalidate = useCallback(
    (queryKey: readonly unknown[]) => void queryClient.invalidateQueries({ queryKey }),
    [queryClient],
  );
  // Local-only notices: a new session's note, a refused prompt, a Stop that failed.
  const notice = useCallback(
    (tone: 'info' | 'error', title: string, text: string) =>
      localMessageAdded(workspaceId, { kind: 'notice', tone, title, text }),
    [localMessageAdded, workspaceId],
  );
  /** A server's words, with any session named by its title instead of its id. */
  const inWords = useCallback(
    (error: unknown): string => {
      if (error instanceof ApiError && error.code === 'turn_in_progress')
        return 'The agent is still replying in this conversation: wait for it, or press Stop.';
      const message = error instanceof Error ? error.message : String(error);
      const workspace = queryClient.getQueryData(workspaceQueries.detail(workspaceId).queryKey);
      return message.replace(/\bses_[A-Za-z0-9]+/g, (id) => `“${sessionTitleOf(workspace, id)}”`);
    },
    [queryClient, workspaceId],
  );
  const seedEmptySession = useCallback(
    (session: string) => {
      queryClient.setQueryData(
        messageQueries.list(workspaceId, session).queryKey,
        (old) => old ?? { sessionId: session, messages: [] },
      );
      queryClient.setQueryData(
        usageQueries.latest(workspaceId, session).queryKey,
        (old) => old ?? { sessionId: session, latest: null },
      );
    },
    [queryClient, workspaceId],
  );
  return useMemo(
    () => ({
      notice,
      inWords,
      seedEmptySession,
      refetchStatus: () => invalidate(agentQueries.status(workspaceId).queryKey),
      // The session list (titles, context used) changes with every turn.
      refetchSessions: () => invalidate(workspaceQueries.detail(workspaceId).queryKey),
      refetchHistory: (session: string | null) => invalidate(messageQueries.list(workspaceId, session).queryKey),
      refetchUsage: (session: string | null) => invalidate(usageQueries.latest(workspaceId, session).queryKey),
      historyOf: (session: string | null) =>
        queryClient.getQueryData(messageQueries.list(workspaceId, session).queryKey),
    }),
    [notice, inWords, seedEmptySession, invalidate, workspaceId, queryClient],
  );
}
