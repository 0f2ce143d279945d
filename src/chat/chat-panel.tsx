/**
 * The workspace chat: header with the context meter, the persisted history merged in time with
 * the local-only transcript and the agent's live turns, the turn's status line with Stop, and the
 * composer. Commands never reach the agent or appendMessagesToAPI.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isApiError } from '../api/http';
import { messageQueries } from '../api/messages';
import { usageQueries } from '../api/usage';
import type { CommandRegistry } from '../commands';
import type { Workspace } from '../shared/wire';
import { Composer, type ComposerHandle } from './composer';
import { preloadMarkdown } from './lazy-markdown';
import { noLiveAgentText } from './session-origin';
import { SessionSwitcher } from './session-switcher';
import { WorkspaceRoot } from './workspace-root';
import { ContextMeter } from './context-meter';
import { coverage } from './live-turns';
import { LiveTurnView } from './live-turn-view';
import { LocalMessageView, type TranscriptHandlers } from './local-message-view';
import { useTranscript, useTranscriptActions } from './local-messages-store';
import { PersistedMessage } from './persisted-message';
import { TurnBar } from './turn-bar';
import { useAgentTurns } from './use-agent-turns';
import { useCommandRunner, type AgentInbox } from './use-command-runner';

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
  const endRef = useRef<HTMLDivElement>(null);
  useMessagesFollowUsage(workspace.id, sessionId);

  const entries = useMemo(() => {
    const messages = history.data?.messages;
    const persisted = (messages ?? []).map((m) => ({ at: m.timeCreated, persisted: m, local: null, live: null }));
    const locals = local.map((m) => ({ at: m.createdAt, persisted: null, local: m, live: null }));
    const live = agent.turns
      .filter((turn) => turn.sessionId === sessionId)
      .map((turn) => {
        const { persisted, userMessage } = coverage(turn, messages, history.dataUpdatedAt);
        // Never above the user's message the history already shows, whatever the clocks say; a
        // failure the history cannot show comes after the turn's messages.
        const at = Math.max(turn.startedAt, (userMessage?.timeCreated ?? 0) + 0.5, persisted ? (turn.endedAt ?? 0) : 0);
        return { at, persisted: null, local: null, live: { turn, persisted, userInHistory: userMessage !== null } };
      });
    return [...persisted, ...locals, ...live].sort((a, b) => a.at - b.at);
  }, [history.data, history.dataUpdatedAt, local, agent.turns, sessionId]);

  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: 'end' });
  }, [entries.length]);
  // A streaming reply is followed while the reader stays at the bottom, not once they scroll up.
  const atBottom = useRef(true);
  const followReply = useCallback(() => {
    if (atBottom.current) endRef.current?.scrollIntoView?.({ block: 'end' });
  }, []);

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
        {agent.status?.unavailable ? (
          // Said before anything is typed: this workspace's folder came from a file, no agent runs here.
          <p className="session-origin-note" role="note">
            {agent.status.unavailable}
          </p>
        ) : (
          origin && (
            <p className="session-origin-note" role="note">
              {noLiveAgentText(origin, agent.status?.configured === true)}
            </p>
          )
        )}
        <section
          className="message-list"
          aria-label="Messages"
          onScroll={(event) => {
            const list = event.currentTarget;
            atBottom.current = list.scrollHeight - list.scrollTop - list.clientHeight < 48;
          }}
        >
          {history.isPending && <p role="status">Loading messages…</p>}
          {history.isError && !newSessionEmpty && (
            <p role="alert">Messages could not be loaded: {history.error.message}</p>
          )}
          {history.isSuccess && history.data.messages.length === 0 && agent.turns.length === 0 && (
            <p className="muted">No messages yet.</p>
          )}
          {entries.map((entry) =>
            entry.persisted ? (
              <PersistedMessage key={entry.persisted.id} message={entry.persisted} />
            ) : entry.live ? (
              <LiveTurnView
                key={entry.live.turn.key}
                turn={entry.live.turn}
                persisted={entry.live.persisted}
                userInHistory={entry.live.userInHistory}
                onDismiss={agent.dismiss}
                onResize={followReply}
              />
            ) : (
              <LocalMessageView key={entry.local!.id} entry={entry.local!} handlers={handlers} />
            ),
          )}
          <div ref={endRef} />
        </section>
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
