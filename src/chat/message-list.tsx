/**
 * The chat's messages: the timeline's entries, each by its own view, with the history's loading
 * and error lines; the newest entry is scrolled into view, and a streaming reply is followed
 * while the reader stays at the bottom.
 */
import { useCallback, useEffect, useRef, type UIEvent } from 'react';
import { LiveTurnView } from './live-turn-view';
import { LocalMessageView, type TranscriptHandlers } from './local-message-view';
import { PersistedMessage } from './persisted-message';
import type { TimelineEntry } from './use-timeline';

interface Props {
  entries: TimelineEntry[];
  /** The history's state, as its query has it. */
  history: { isPending: boolean; isError: boolean; error: Error | null; empty: boolean };
  /** The agent moved the chat to a session it has only just started: its missing history is no error. */
  newSessionEmpty: boolean;
  /** Turns are under way or shown: the chat is not empty even without a history. */
  hasTurns: boolean;
  onDismissTurn: (key: string) => void;
  handlers: TranscriptHandlers;
}

export function MessageList({ entries, history, newSessionEmpty, hasTurns, onDismissTurn, handlers }: Props) {
  const { endRef, followReply, onScroll } = useFollowBottom(entries.length);
  return (
    <section className="message-list" aria-label="Messages" onScroll={onScroll}>
      {history.isPending && <p role="status">Loading messages…</p>}
      {history.isError && !newSessionEmpty && (
        <p role="alert">Messages could not be loaded: {history.error?.message}</p>
      )}
      {history.empty && !hasTurns && <p className="muted">No messages yet.</p>}
      {entries.map((entry) =>
        entry.persisted ? (
          <PersistedMessage key={entry.persisted.id} message={entry.persisted} />
        ) : entry.live ? (
          <LiveTurnView
            key={entry.live.turn.key}
            turn={entry.live.turn}
            persisted={entry.live.persisted}
            userInHistory={entry.live.userInHistory}
            onDismiss={onDismissTurn}
            onResize={followReply}
          />
        ) : (
          <LocalMessageView key={entry.local.id} entry={entry.local} handlers={handlers} />
        ),
      )}
      <div ref={endRef} />
    </section>
  );
}

/**
 * A new entry is scrolled into view; a streaming reply (`followReply`, on each resize) is followed
 * while the reader stays at the bottom, not once they scroll up.
 */
function useFollowBottom(count: number) {
  const endRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: 'end' });
  }, [count]);
  const atBottom = useRef(true);
  const followReply = useCallback(() => {
    if (atBottom.current) endRef.current?.scrollIntoView?.({ block: 'end' });
  }, []);
  const onScroll = useCallback((event: UIEvent<HTMLElement>) => {
    const list = event.currentTarget;
    atBottom.current = list.scrollHeight - list.scrollTop - list.clientHeight < 48;
  }, []);
  return { endRef, followReply, onScroll };
}
