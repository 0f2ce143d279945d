/**
 * A local-only message: marked as such, dismissible, never persisted. The context report's
 * renderer is its own lazily loaded chunk.
 */
import { lazy, memo, Suspense, type ReactNode } from 'react';
import type { LocalMessage } from '../commands';

const ContextReportView = lazy(() => import('./report/context-report-view'));

export const LOCAL_ONLY_MARK = 'Only visible to you · disappears on refresh';

interface Props {
  message: LocalMessage;
  onDismiss: (id: string) => void;
  onRetry: (message: LocalMessage & { kind: 'context-report' }) => void;
}

export const LocalMessageView = memo(function LocalMessageView({ message, onDismiss, onRetry }: Props) {
  if (message.kind === 'command-echo') {
    return (
      <Frame message={message} onDismiss={onDismiss} className="local-echo" label="Your command">
        <code>{message.text}</code>
      </Frame>
    );
  }
  if (message.kind === 'notice') {
    return (
      <Frame
        message={message}
        onDismiss={onDismiss}
        className={`local-notice tone-${message.tone}`}
        label={message.title}
      >
        <strong>{message.title}</strong>
        <p>{message.text}</p>
      </Frame>
    );
  }
  if (message.kind === 'help') {
    return (
      <Frame message={message} onDismiss={onDismiss} className="local-help" label="Commands">
        <strong>Commands</strong>
        <dl>
          {message.commands.map((c) => (
            <div key={c.name}>
              <dt>
                <code>{c.usage}</code>
              </dt>
              <dd>{c.description}</dd>
            </div>
          ))}
        </dl>
        <p className="hint">Start a message with // to send it with a leading slash.</p>
      </Frame>
    );
  }
  const { state } = message;
  return (
    <Frame message={message} onDismiss={onDismiss} className="local-report" label="Context report">
      {state.status === 'pending' && (
        <p role="status" className="pending">
          <span className="spinner" aria-hidden="true" /> Collecting context breakdown…
        </p>
      )}
      {state.status === 'error' && (
        <div role="alert" className="report-error">
          <strong>Context report failed</strong>
          <p>{state.message}</p>
          <button type="button" onClick={() => onRetry(message)}>
            Retry
          </button>
        </div>
      )}
      {state.status === 'ready' && (
        <Suspense fallback={<p role="status">Loading the report view…</p>}>
          <ContextReportView report={state.report} previous={state.previous} onDismiss={() => onDismiss(message.id)} />
        </Suspense>
      )}
    </Frame>
  );
});

function Frame({
  message,
  onDismiss,
  className,
  label,
  children,
}: {
  message: LocalMessage;
  onDismiss: (id: string) => void;
  className: string;
  label: string;
  children: ReactNode;
}) {
  return (
    <article
      className={`message local-message ${className}`}
      aria-label={`${label} (only visible to you)`}
      data-local-only="true"
    >
      <header className="message-meta">
        <span className="local-mark">{LOCAL_ONLY_MARK}</span>
        <button type="button" className="dismiss" aria-label="Dismiss" onClick={() => onDismiss(message.id)}>
          ×
        </button>
      </header>
      {children}
    </article>
  );
}
