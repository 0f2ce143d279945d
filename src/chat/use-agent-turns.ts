/**
 * The chat's side of the live agent: sends a prompt, folds the streamed events into live turns,
 * keeps the header's meter and the history in step (usage → refetch usage; saved / done → refetch
 * the history), follows the agent into a new session, and stops a turn. Leaving the workspace
 * stops listening, not the turn: the server finishes it and the history shows it on return.
 */
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useReducer, useRef, useState, type Dispatch } from 'react';
import { agentQueries, cancelTurn } from '../api/agent';
import type { AgentStatus } from '../shared/agent';
import { isActive, reduceTurns, type LiveTurn, type TurnAction } from './live-turns';
import { useAgentPrompt } from './use-agent-prompt';
import { useTurnActions, type TurnActions } from './use-turn-actions';

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
  const actions = useTurnActions(workspaceId);
  const { notice, inWords, refetchStatus } = actions;
  const status = useQuery(agentQueries.status(workspaceId));
  const [turns, dispatch] = useReducer(reduceTurns, []);
  const [stopping, setStopping] = useState<string | null>(null);
  const prompt = useAgentPrompt({ workspaceId, sessionId, onSession, dispatch, actions });

  const active = turns.find((t) => isActive(t) && t.sessionId === sessionId) ?? null;
  const runningHere = status.data?.running.find((r) => r.sessionId === sessionId);
  const running = runningHere !== undefined;
  const statusAt = status.dataUpdatedAt;
  // A status fetched before this page's own turn ended may still list it: trust only newer ones.
  const lastEnded = Math.max(0, ...turns.filter((t) => t.sessionId === sessionId).map((t) => t.endedAt ?? 0));
  const runningElsewhere = !active && running && statusAt > lastEnded;
  useCatchUp({ turns, dispatch, sessionId, running, statusAt, actions });

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

/** Turns that ended without this page listening (or with the connection lost): the history has them now. */
function useCatchUp({
  turns,
  dispatch,
  sessionId,
  running,
  statusAt,
  actions,
}: {
  turns: LiveTurn[];
  dispatch: Dispatch<TurnAction>;
  sessionId: string | null;
  running: boolean;
  statusAt: number;
  actions: TurnActions;
}) {
  const { refetchHistory, refetchUsage } = actions;
  // A turn that ran without this page listening has ended: its messages and usage are new.
  const wasRunning = useRef(false);
  useEffect(() => {
    if (!statusAt) return;
    if (wasRunning.current && !running) {
      refetchHistory(sessionId);
      refetchUsage(sessionId);
    }
    wasRunning.current = running;
  }, [running, statusAt, sessionId, refetchHistory, refetchUsage]);

  // The connection to a turn was lost, and the server no longer runs it: the history has it now.
  const unsettled = turns.some(
    (t) => t.lost && t.savedAt === null && t.sessionId === sessionId && (t.endedAt ?? 0) < statusAt,
  );
  useEffect(() => {
    if (!unsettled || running) return;
    dispatch({ type: 'settled', sessionId, at: Date.now() });
    refetchHistory(sessionId);
  }, [unsettled, running, sessionId, refetchHistory, dispatch]);
}
