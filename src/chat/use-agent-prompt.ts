/**
 * Sending a prompt: the turn starts locally, the streamed events are folded into it and keep the
 * history, usage and session list in step, and the chat follows the agent into a new session.
 * A refusal before the turn began gives the text back; a lost connection says so in place.
 */
import { useCallback, useEffect, useRef, type Dispatch } from 'react';
import { streamPrompt } from '../api/agent';
import { ApiError } from '../api/http';
import type { AgentEvent } from '../shared/agent';
import type { TurnAction } from './live-turns';
import type { TurnActions } from './use-turn-actions';

let counter = 0;

const LOST = 'The connection to the server was lost during the reply; the agent may still be working.';

interface PromptOptions {
  workspaceId: string;
  sessionId: string | null;
  onSession: (sessionId: string) => void;
  dispatch: Dispatch<TurnAction>;
  actions: TurnActions;
}

/** Where one turn stands while it streams. */
interface TurnRun {
  key: string;
  session: string | null;
  opened: boolean;
  saved: boolean;
}

export function useAgentPrompt({ workspaceId, sessionId, onSession, dispatch, actions }: PromptOptions) {
  const listening = useRef(new Set<AbortController>());
  // Leaving the workspace stops listening, not the turn.
  useEffect(() => {
    const controllers = listening.current;
    return () => {
      for (const controller of controllers) controller.abort();
    };
  }, []);
  return useCallback(
    (text: string): Promise<boolean> => {
      const run: TurnRun = { key: `turn-${++counter}`, session: sessionId, opened: false, saved: false };
      const history = actions.historyOf(sessionId);
      const baseline = history?.messages.map((m) => m.id) ?? [];
      dispatch({ type: 'started', key: run.key, text, sessionId, baseline, at: Date.now() });
      const controller = new AbortController();
      listening.current.add(controller);
      let answer: (taken: boolean) => void = () => {};
      const taken = new Promise<boolean>((resolve) => (answer = resolve));
      const onEvent = (event: AgentEvent) => onTurnEvent(event, run, { onSession, dispatch, actions });
      const onOpen = () => {
        run.opened = true;
        answer(true);
      };
      streamPrompt(
        workspaceId,
        { text, ...(sessionId ? { sessionId } : {}) },
        { signal: controller.signal, onOpen, onEvent },
      )
        .then((end) => {
          if (end !== 'closed') return;
          dispatch({ type: 'failed', key: run.key, message: LOST, lost: true, at: Date.now() });
          actions.refetchStatus();
        })
        .catch((error: unknown) => {
          if (!controller.signal.aborted) answer(onTurnFailed(error, run, { dispatch, actions }));
        })
        .finally(() => listening.current.delete(controller));
      return taken;
    },
    [workspaceId, sessionId, onSession, dispatch, actions],
  );
}

/** One streamed event: folded into the turn, then what it changes elsewhere. */
function onTurnEvent(
  event: AgentEvent,
  run: TurnRun,
  { onSession, dispatch, actions }: Pick<PromptOptions, 'onSession' | 'dispatch' | 'actions'>,
) {
  // The state first: `saved` stamps the time the refetch below must come after.
  dispatch({ type: 'event', key: run.key, event, at: Date.now() });
  switch (event.type) {
    case 'turn':
      if (event.sessionId !== run.session) {
        run.session = event.sessionId;
        // A new session has nothing stored yet: show it empty at once, not "loading".
        if (event.newSession) actions.seedEmptySession(event.sessionId);
        onSession(event.sessionId);
      }
      if (event.newSession) actions.refetchSessions();
      if (event.newSession)
        actions.notice(
          'info',
          'New session',
          event.note ?? 'The agent could not continue the session and started a new one.',
        );
      break;
    case 'usage':
      actions.refetchUsage(run.session);
      break;
    case 'saved':
      run.saved = true;
      actions.refetchHistory(run.session);
      actions.refetchSessions();
      break;
    case 'done':
    case 'error':
      // Without `saved` the history may still have changed (the user's message is kept).
      if (!run.saved) actions.refetchHistory(run.session);
      actions.refetchStatus();
      break;
  }
}

/** The stream failed: refused before the turn began (false: the text goes back), or cut off (true). */
function onTurnFailed(
  error: unknown,
  run: TurnRun,
  { dispatch, actions }: Pick<PromptOptions, 'dispatch' | 'actions'>,
): boolean {
  const message = actions.inWords(error);
  const refused =
    error instanceof ApiError && ((error.status >= 400 && error.status < 500) || error.code === 'agents_busy');
  if (!run.opened && refused) {
    // Refused before the turn began (400, 409, every agent busy, …): nothing was kept, the
    // text goes back to the composer. A server failure (5xx) or no answer may have kept
    // it: shown in place.
    dispatch({ type: 'refused', key: run.key });
    actions.notice('error', 'Message not sent', message);
    if (['agent_not_configured', 'agent_unavailable', 'turn_in_progress'].includes(error.code)) actions.refetchStatus();
    return false;
  }
  // Cut off mid-turn, the server goes on; refused by a failing server, there is nothing to wait for.
  dispatch({ type: 'failed', key: run.key, message: run.opened ? LOST : message, lost: run.opened, at: Date.now() });
  actions.refetchStatus();
  actions.refetchHistory(run.session);
  return true;
}
