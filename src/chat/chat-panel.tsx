/**
 * The workspace chat: header with the context meter, the persisted history merged in time with
 * the local-only transcript and the agent's live turns, the turn's status line with Stop, and the
 * composer. Commands never reach the agent or appendMessagesToAPI.
 */
import { useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isApiError } from '../api/http';
import { messageQueries } from '../api/messages';
import { usageQueries } from '../api/usage';
import type { CommandRegistry } from '../commands';
import type { AgentStatus } from '../shared/agent';
import type { MessagesResponse, SessionSummary, Workspace } from '../shared/wire';
import { Composer, type ComposerHandle } from './composer';
import { preloadMarkdown } from './lazy-markdown';
import { noLiveAgentText } from './session-origin';
import { SessionSwitcher } from './session-switcher';
import { WorkspaceRoot } from './workspace-root';
import { ContextMeter } from './context-meter';
import type { TranscriptHandlers } from './local-message-view';
import { useTranscript, useTranscriptActions } from './local-messages-store';
import { MessageList } from './message-list';
import { TurnBar } from './turn-bar';
import { useAgentTurns } from './use-agent-turns';
import { useCommandRunner, type AgentInbox } from './use-command-runner';
import { useTimeline } from './use-timeline';

interface Props {
  workspace: Workspace;
  registry?: CommandRegistry;
}

export function ChatPanel({ workspace, registry }: Props) {
  // The agent may move the chat to a new session (it could not continue this one).
  const [sessionId, setSessionId] = useState(workspace.defaultSessionId);
  const history = useQuery(messageQueries.list(workspace.id, sessionId));
  const allLocal = useTranscript(workspace.id);
  // A command's output belongs to the session it was run in; notices to the whole chat.
  const local = useMemo(
    () => allLocal.filter((e) => e.sessionId === undefined || e.sessionId === sessionId),
    [allLocal, sessionId],
  );
  const debugRun = allLocal.some((e) => e.kind === 'output' && e.command === 'debug');
  useEffect(preloadMarkdown, []);
  const { localMessageDismissed } = useTranscriptActions();
  const agent = useAgentTurns({ workspaceId: workspace.id, sessionId, onSession: setSessionId });
  const busy = agent.active !== null || agent.runningElsewhere;
  const { prompt } = agent;
  const inbox = useMemo<AgentInbox>(() => ({ busy, prompt }), [busy, prompt]);
  const runner = useCommandRunner(workspace.id, sessionId, registry, inbox);
  const composer = useRef<ComposerHandle>(null);
  useMessagesFollowUsage(workspace.id, sessionId);
  const entries = useTimeline(
    { messages: history.data?.messages, updatedAt: history.dataUpdatedAt },
    local,
    agent.turns,
    sessionId,
  );

  const { rerun, submit } = runner;
  const handlers = useMemo<TranscriptHandlers>(
    () => ({
      dismiss: localMessageDismissed,
      rerun,
      draft: (text) => composer.current?.draft(text),
    }),
    [localMessageDismissed, rerun],
  );
  // The agent moved the chat to a session it has only just started: nothing of it is stored yet.
  const newSessionEmpty =
    history.isError &&
    isApiError(history.error, 'session_not_found') &&
    agent.turns.some((t) => t.sessionId === sessionId);
  const focusComposer = useCallback(() => composer.current?.focus(), []);
  const latestHere = agent.turns.findLast((t) => t.sessionId === sessionId) ?? null;
  const origin = workspace.sessions.find((s) => s.id === sessionId)?.origin;

  return (
    <WorkspaceRoot.Provider value={workspace.root}>
      <main className="chat-panel">
        <header className="chat-header">
          <div className="chat-title">
            <h1 title={workspace.name}>{workspace.name}</h1>
            <SessionSwitcher workspace={workspace} sessionId={sessionId} onOpen={setSessionId} />
          </div>
          <ContextMeter workspaceId={workspace.id} sessionId={sessionId} onOpen={() => void submit('/debug')} />
        </header>
        <SessionNote status={agent.status} origin={origin} />
        <MessageList
          entries={entries}
          history={historyState(history)}
          newSessionEmpty={newSessionEmpty}
          hasTurns={agent.turns.length > 0}
          onDismissTurn={agent.dismiss}
          handlers={handlers}
        />
        {agent.status?.configured && (
          <TurnBar
            latest={latestHere}
            runningElsewhere={agent.runningElsewhere}
            stoppingElsewhere={agent.stoppingElsewhere}
            onStop={agent.stop}
            onStopGone={focusComposer}
          />
        )}
        <Composer
          ref={composer}
          registry={runner.registry}
          onSubmit={submit}
          disabled={runner.sending}
          firstRunHint={!debugRun}
        />
      </main>
    </WorkspaceRoot.Provider>
  );
}

/** What the message list says of the history's query: loading, failed, or empty. */
function historyState(history: UseQueryResult<MessagesResponse>) {
  return {
    isPending: history.isPending,
    isError: history.isError,
    error: history.error,
    empty: history.isSuccess && history.data.messages.length === 0,
  };
}

/**
 * Said before anything is typed: no agent runs in this workspace (its folder came from a file),
 * or the shown session was imported and the live agent does not continue it.
 */
function SessionNote({ status, origin }: { status: AgentStatus | undefined; origin: SessionSummary['origin'] }) {
  if (status?.unavailable)
    return (
      <p className="session-origin-note" role="note">
        {status.unavailable}
      </p>
    );
  if (!origin) return null;
  return (
    <p className="session-origin-note" role="note">
      {noLiveAgentText(origin, status?.configured === true)}
    </p>
  );
}

/**
 * The history is refetched when the agent's usage moves (a new model call was recorded), so new
 * messages arrive — and reports made before them show as outdated — without polling the history.
 */
function useMessagesFollowUsage(workspaceId: string, sessionId: string | null) {
  const queryClient = useQueryClient();
  const recordedAt = useQuery({
    ...usageQueries.latest(workspaceId, sessionId),
    select: (usage) => usage.latest?.recordedAt ?? null,
  }).data;
  const seen = useRef<string | null | undefined>(undefined);
  useEffect(() => {
    if (recordedAt === undefined) return;
    if (seen.current !== undefined && seen.current !== recordedAt)
      void queryClient.invalidateQueries({ queryKey: messageQueries.list(workspaceId, sessionId).queryKey });
    seen.current = recordedAt;
  }, [recordedAt, queryClient, workspaceId, sessionId]);
}
