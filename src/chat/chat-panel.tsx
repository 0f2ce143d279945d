/**
 * The workspace chat: header with the context meter, the persisted history merged in time with
 * the local-only transcript, and the composer. Commands never reach appendMessagesToAPI.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import { messageQueries } from '../api/messages';
import { usageQueries } from '../api/usage';
import type { CommandRegistry } from '../commands';
import type { Workspace } from '../shared/wire';
import { Composer, type ComposerHandle } from './composer';
import { ContextMeter } from './context-meter';
import { LocalMessageView, type TranscriptHandlers } from './local-message-view';
import { useTranscript, useTranscriptActions } from './local-messages-store';
import { PersistedMessage } from './persisted-message';
import { useCommandRunner } from './use-command-runner';

interface Props {
  workspace: Workspace;
  registry?: CommandRegistry;
}

export function ChatPanel({ workspace, registry }: Props) {
  const sessionId = workspace.defaultSessionId;
  const history = useQuery(messageQueries.list(workspace.id, sessionId));
  const local = useTranscript(workspace.id);
  const { localMessageDismissed } = useTranscriptActions();
  const runner = useCommandRunner(workspace.id, sessionId, registry);
  const composer = useRef<ComposerHandle>(null);
  const endRef = useRef<HTMLDivElement>(null);
  useMessagesFollowUsage(workspace.id, sessionId);

  const entries = useMemo(() => {
    const persisted = (history.data?.messages ?? []).map((m) => ({ at: m.timeCreated, persisted: m, local: null }));
    const locals = local.map((m) => ({ at: m.createdAt, persisted: null, local: m }));
    return [...persisted, ...locals].sort((a, b) => a.at - b.at);
  }, [history.data, local]);

  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: 'end' });
  }, [entries.length]);

  const { rerun, submit } = runner;
  const handlers = useMemo<TranscriptHandlers>(
    () => ({
      dismiss: localMessageDismissed,
      rerun,
      draft: (text) => composer.current?.draft(text),
    }),
    [localMessageDismissed, rerun],
  );

  return (
    <main className="chat-panel">
      <header className="chat-header">
        <h1 title={workspace.name}>{workspace.name}</h1>
        <ContextMeter workspaceId={workspace.id} sessionId={sessionId} onOpen={() => void submit('/debug')} />
      </header>
      <section className="message-list" aria-label="Messages">
        {history.isPending && <p role="status">Loading messages…</p>}
        {history.isError && <p role="alert">Messages could not be loaded: {history.error.message}</p>}
        {history.isSuccess && history.data.messages.length === 0 && <p className="muted">No messages yet.</p>}
        {entries.map((entry) =>
          entry.persisted ? (
            <PersistedMessage key={entry.persisted.id} message={entry.persisted} />
          ) : (
            <LocalMessageView key={entry.local!.id} entry={entry.local!} handlers={handlers} />
          ),
        )}
        <div ref={endRef} />
      </section>
      <Composer ref={composer} registry={runner.registry} onSubmit={submit} disabled={runner.sending} />
    </main>
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
