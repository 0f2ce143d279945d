/**
 * A turn while it streams: the user's message at once, then the agent's reply as it arrives —
 * text as Markdown (like a persisted reply), reasoning collapsed, tool calls as compact rows with
 * their latest status, permission answers as a line. The article is aria-busy while the turn runs,
 * so assistive technology does not re-read it on every chunk; the status line near the composer
 * says where the turn is. Once the history has the turn this view steps aside; a failure stays.
 */
import { memo, useDeferredValue, useEffect, useRef } from 'react';
import { liveToolCall } from '../shared/tool-calls';
import { LazyMarkdown } from './lazy-markdown';
import { isActive, phaseText, type LiveTurn } from './live-turns';
import { ToolCallRow } from './tool-call-row';
import { useWorkspaceRoot } from './workspace-root';

export const LIVE_REPLY_LABEL = 'Agent (live reply)';

interface Props {
  turn: LiveTurn;
  /** The history has the turn's messages (fetched after they were saved). */
  persisted: boolean;
  /** The history has the user's message (the server keeps it, even when the turn fails). */
  userInHistory: boolean;
  onDismiss: (key: string) => void;
  /** The reply changed size (a chunk, a tool row, the Markdown renderer arriving). */
  onResize?: () => void;
}

export const LiveTurnView = memo(function LiveTurnView({ turn, persisted, userInHistory, onDismiss, onResize }: Props) {
  const active = isActive(turn);
  const article = useRef<HTMLElement>(null);
  const showReply = !persisted || turn.phase === 'failed';
  useEffect(() => {
    const element = article.current;
    if (!element || !onResize || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => onResize());
    observer.observe(element);
    return () => observer.disconnect();
  }, [onResize, showReply]);
  const failed = turn.phase === 'failed';
  // The history has the turn: only a failure is left to show (the server's error is not a message).
  if (!showReply && userInHistory) return null;
  const ended = !active;
  return (
    <>
      {!userInHistory && (
        <article className="message message-user" aria-label="You">
          <header className="message-meta">
            <span className="message-author">You</span>
            <span>{turn.phase === 'sending' ? 'sending…' : 'sent'}</span>
          </header>
          <div className="message-text">{turn.text}</div>
        </article>
      )}
      {showReply && (
        <article
          ref={article}
          className={`message message-assistant live-reply${failed ? ' live-failed' : ''}`}
          aria-label={LIVE_REPLY_LABEL}
          aria-busy={active}
        >
          <header className="message-meta">
            <span className="message-author">Agent</span>
            {ended && (
              <button type="button" className="dismiss" aria-label="Dismiss" onClick={() => onDismiss(turn.key)}>
                ×
              </button>
            )}
          </header>
          {!persisted && <ReplyBody turn={turn} />}
          {/* Stopping is said once, in the status line above the composer; the outcome stays here. */}
          {turn.phase !== 'stopping' && (
            <p className={`live-phase${failed ? ' live-error' : ''}`}>
              {active && <span className="spinner" aria-hidden="true" />}
              {phaseText(turn)}
            </p>
          )}
        </article>
      )}
    </>
  );
});

function ReplyBody({ turn }: { turn: LiveTurn }) {
  // Chunks can come faster than Markdown renders: let React skip to the latest text.
  const reply = useDeferredValue(turn.reply);
  const root = useWorkspaceRoot();
  const calls = turn.tools.map((tool) => ({ id: tool.toolCallId, call: liveToolCall(tool, root) }));
  // A refusal is on its tool's row, as in the saved turn; an answer no row shows gets a line.
  const rowsSayIt = calls.some(({ call }) => call.outcome === 'refused');
  return (
    <>
      {turn.reasoning && (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <div className="message-text">{turn.reasoning}</div>
        </details>
      )}
      {calls.length > 0 && (
        <ul className="live-tools" aria-label="Tool calls">
          {calls.map(({ id, call }) => (
            <ToolCallRow key={id} call={call} as="li" />
          ))}
        </ul>
      )}
      {!rowsSayIt &&
        turn.permissions.map((permission, index) => (
          <p key={index} className="tool-reason">
            {permission.allowed ? 'Allowed by the server’s policy' : 'Refused by the server’s policy'}:{' '}
            {relativeTitle(permission.title, root)}
          </p>
        ))}
      {reply && <LazyMarkdown text={reply} />}
    </>
  );
}

const relativeTitle = (title: string, root: string | undefined): string =>
  root ? title.replaceAll(`${root}/`, '') : title;
