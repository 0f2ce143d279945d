/**
 * The workspace chat: header with the context meter, the persisted history merged in time with
 * local-only messages, and the composer. Commands never reach appendMessagesToAPI.
 */
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { messageQueries } from '../api/messages';
import type { CommandRegistry, LocalMessage } from '../commands';
import type { Workspace } from '../shared/wire';
import { Composer } from './composer';
import { ContextMeter } from './context-meter';
import { LocalMessageView } from './local-message-view';
import { useLocalMessageActions, useLocalMessages } from './local-messages-store';
import { PersistedMessage } from './persisted-message';
import { useCommandRunner } from './use-command-runner';

interface Props {
  workspace: Workspace;
  registry?: CommandRegistry;
}

export function ChatPanel({ workspace, registry }: Props) {
  const sessionId = workspace.defaultSessionId;
  const history = useQuery(messageQueries.list(workspace.id, sessionId));
  const local = useLocalMessages(workspace.id);
  const { localMessageDismissed } = useLocalMessageActions();
  const runner = useCommandRunner(workspace.id, sessionId, registry);
  const endRef = useRef<HTMLDivElement>(null);

  const entries = useMemo(() => {
    const persisted = (history.data?.messages ?? []).map((m) => ({ at: m.timeCreated, persisted: m, local: null }));
    const locals = local.map((m) => ({ at: m.createdAt, persisted: null, local: m }));
    return [...persisted, ...locals].sort((a, b) => a.at - b.at);
  }, [history.data, local]);

  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: 'end' });
  }, [entries.length]);

  const { retry: rerun } = runner;
  const retry = useCallback(
    (message: LocalMessage & { kind: 'context-report' }) => {
      localMessageDismissed(message.id);
      rerun(message.commandLine);
    },
    [localMessageDismissed, rerun],
  );

  return (
    <main className="chat-panel">
      <header className="chat-header">
        <h1>{workspace.name}</h1>
        <ContextMeter workspaceId={workspace.id} sessionId={sessionId} />
      </header>
      <section className="message-list" aria-label="Messages" aria-live="polite">
        {history.isPending && <p role="status">Loading messages…</p>}
        {history.isError && <p role="alert">Messages could not be loaded: {history.error.message}</p>}
        {history.isSuccess && history.data.messages.length === 0 && <p className="muted">No messages yet.</p>}
        {entries.map((entry) =>
          entry.persisted ? (
            <PersistedMessage key={entry.persisted.id} message={entry.persisted} />
          ) : (
            <LocalMessageView
              key={entry.local!.id}
              message={entry.local!}
              onDismiss={localMessageDismissed}
              onRetry={retry}
            />
          ),
        )}
        <div ref={endRef} />
      </section>
      <Composer registry={runner.registry} onSubmit={runner.submit} disabled={runner.sending} />
    </main>
  );
}
