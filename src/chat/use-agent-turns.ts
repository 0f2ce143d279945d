/**
 * The chat's side of the live agent: sends a prompt, folds the streamed events into live turns,
 * keeps the header's meter and the history in step (usage → refetch usage; saved / done → refetch
 * the history), follows the agent into a new session, and stops a turn. Leaving the workspace
 * stops listening, not the turn: the server finishes it and the history shows it on return.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { agentQueries, cancelTurn, streamPrompt } from '../api/agent';
import { ApiError } from '../api/http';
import { messageQueries } from '../api/messages';
import { usageQueries } from '../api/usage';
import { workspaceQueries } from '../api/workspace';
import type { AgentEvent, AgentStatus } from '../shared/agent';
import { isActive, reduceTurns, type LiveTurn } from './live-turns';
import { useTranscriptActions } from './local-messages-store';
import { sessionTitleOf } from './session-title';

let counter = 0;

const LOST = 'The connection to the server was lost during the reply; the agent may still be working.';

export interface AgentTurns {
  status: AgentStatus | undefined;
  turns: LiveTurn[];
  /** The turn of the shown session that is running here, if any. */
  active: LiveTurn | null;
  /** The server runs a turn in the shown session that this page is not listening to (a reload, another tab). */
  runningElsewhere: boolean;
  /** Stop was pressed for the turn running elsewhere (known by when it started). */
  stoppingElsewhere: boolean;
  /** Sends text to the agent: true once the server took it, false when it refused (nothing sent). */
  prompt: (text: string) => Promise<boolean>;
  stop: () => void;
  dismiss: (key: string) => void;
}

interface Options {
  workspaceId: string;
  sessionId: string | null;
  /** The agent runs the turn in another session: the chat follows it. */
  onSession: (sessionId: string) => void;
}

export function useAgentTurns({ workspaceId, sessionId, onSession }: Options): AgentTurns {
  const queryClient = useQueryClient();
  const { localMessageAdded } = useTranscriptActions();
  // Local-only notices: a new session's note, a refused prompt, a Stop that failed.
  const notice = useCallback(
    (tone: 'info' | 'error', title: string, text: string) =>
      localMessageAdded(workspaceId, { kind: 'notice', tone, title, text }),
    [localMessageAdded, workspaceId],
  );
  const status = useQuery(agentQueries.status(workspaceId));
  const [turns, dispatch] = useReducer(reduceTurns, []);
  const [stopping, setStopping] = useState<string | null>(null);
  const listening = useRef(new Set<AbortController>());

  useEffect(() => {
    const controllers = listening.current;
    return () => {
      for (const controller of controllers) controller.abort();
    };
  }, []);

  const refetchStatus = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: agentQueries.status(workspaceId).queryKey }),
    [queryClient, workspaceId],
  );
  // The session list (titles, context used) changes with every turn.
  const refetchSessions = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: workspaceQueries.detail(workspaceId).queryKey }),
    [queryClient, workspaceId],
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
  const refetchHistory = useCallback(
    (session: string | null) =>
      void queryClient.invalidateQueries({ queryKey: messageQueries.list(workspaceId, session).queryKey }),
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

  const prompt = useCallback(
    (text: string): Promise<boolean> => {
      const key = `turn-${++counter}`;
      const history = queryClient.getQueryData(messageQueries.list(workspaceId, sessionId).queryKey);
      dispatch({
        type: 'started',
        key,
        text,
        sessionId,
        baseline: history?.messages.map((m) => m.id) ?? [],
        at: Date.now(),
      });
      const controller = new AbortController();
      listening.current.add(controller);
      let session = sessionId;
      let opened = false;
      let saved = false;
      let answer: (taken: boolean) => void = () => {};
      const taken = new Promise<boolean>((resolve) => (answer = resolve));

      const onEvent = (event: AgentEvent) => {
        // The state first: `saved` stamps the time the refetch below must come after.
        dispatch({ type: 'event', key, event, at: Date.now() });
        switch (event.type) {
          case 'turn':
            if (event.sessionId !== session) {
              session = event.sessionId;
              // A new session has nothing stored yet: show it empty at once, not "loading".
              if (event.newSession) seedEmptySession(event.sessionId);
              onSession(event.sessionId);
            }
            if (event.newSession) refetchSessions();
            if (event.newSession)
              notice(
                'info',
                'New session',
                event.note ?? 'The agent could not continue the session and started a new one.',
              );
            break;
          case 'usage':
            void queryClient.invalidateQueries({ queryKey: usageQueries.latest(workspaceId, session).queryKey });
            break;
          case 'saved':
            saved = true;
            refetchHistory(session);
            refetchSessions();
            break;
          case 'done':
          case 'error':
            // Without `saved` the history may still have changed (the user's message is kept).
            if (!saved) refetchHistory(session);
            refetchStatus();
            break;
        }
      };

      streamPrompt(
        workspaceId,
        { text, ...(sessionId ? { sessionId } : {}) },
        {
          signal: controller.signal,
          onOpen: () => {
            opened = true;
            answer(true);
          },
          onEvent,
        },
      )
        .then((end) => {
          if (end === 'closed') {
            dispatch({
              type: 'failed',
              key,
              message: LOST,
              lost: true,
              at: Date.now(),
            });
            refetchStatus();
          }
        })
        .catch((error: unknown) => {
          if (controller.signal.aborted) return;
          const message = inWords(error);
          const refused =
            error instanceof ApiError && ((error.status >= 400 && error.status < 500) || error.code === 'agents_busy');
          if (!opened && refused) {
            // Refused before the turn began (400, 409, every agent busy, …): nothing was kept, the
            // text goes back to the composer. A server failure (5xx) or no answer may have kept
            // it: shown in place.
            dispatch({ type: 'refused', key });
            notice('error', 'Message not sent', message);
            if (['agent_not_configured', 'agent_unavailable', 'turn_in_progress'].includes(error.code)) refetchStatus();
            answer(false);
            return;
          }
          // Cut off mid-turn, the server goes on; refused by a failing server, there is nothing to wait for.
          dispatch({ type: 'failed', key, message: opened ? LOST : message, lost: opened, at: Date.now() });
          refetchStatus();
          refetchHistory(session);
          answer(true);
        })
        .finally(() => listening.current.delete(controller));
      return taken;
    },
    [
      queryClient,
      workspaceId,
      sessionId,
      onSession,
      notice,
      refetchHistory,
      refetchStatus,
      refetchSessions,
      seedEmptySession,
      inWords,
    ],
  );

  const active = turns.find((t) => isActive(t) && t.sessionId === sessionId) ?? null;
  const runningHere = status.data?.running.find((r) => r.sessionId === sessionId);
  const running = runningHere !== undefined;
  const statusAt = status.dataUpdatedAt;
  // A status fetched before this page's own turn ended may still list it: trust only newer ones.
  const lastEnded = Math.max(0, ...turns.filter((t) => t.sessionId === sessionId).map((t) => t.endedAt ?? 0));
  const runningElsewhere = !active && running && statusAt > lastEnded;

  // A turn that ran without this page listening has ended: its messages and usage are new.
  const wasRunning = useRef(false);
  useEffect(() => {
    if (!statusAt) return;
    if (wasRunning.current && !running) {
      refetchHistory(sessionId);
      void queryClient.invalidateQueries({ queryKey: usageQueries.latest(workspaceId, sessionId).queryKey });
    }
    wasRunning.current = running;
  }, [running, statusAt, sessionId, workspaceId, queryClient, refetchHistory]);

  // The connection to a turn was lost, and the server no longer runs it: the history has it now.
  const unsettled = turns.some(
    (t) => t.lost && t.savedAt === null && t.sessionId === sessionId && (t.endedAt ?? 0) < statusAt,
  );
  useEffect(() => {
    if (!unsettled || running) return;
    dispatch({ type: 'settled', sessionId, at: Date.now() });
    refetchHistory(sessionId);
  }, [unsettled, running, sessionId, refetchHistory]);

  const stop = useCallback(() => {
    const target = active?.sessionId ?? (runningElsewhere ? sessionId : null);
    if (!target) return;
    if (active) dispatch({ type: 'stopping', key: active.key });
    else setStopping(runningHere?.startedAt ?? null);
    cancelTurn(workspaceId, target)
      .catch((error: unknown) => {
        if (active) dispatch({ type: 'stop-failed', key: active.key });
        setStopping(null);
        notice('error', 'Could not stop the turn', inWords(error));
      })
      .finally(refetchStatus);
  }, [active, runningElsewhere, runningHere, sessionId, workspaceId, notice, refetchStatus, inWords]);

  const dismiss = useCallback((key: string) => dispatch({ type: 'dismissed', key }), []);

  return {
    status: status.data,
    turns,
    active,
    runningElsewhere,
    stoppingElsewhere: runningElsewhere && stopping !== null && stopping === runningHere?.startedAt,
    prompt,
    stop,
    dismiss,
  };
}
