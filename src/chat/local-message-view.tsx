/**
 * A local-only transcript entry: marked as such, dismissible, never persisted. Echoes and
 * notices are drawn here; a command's output by the view registered for its command, loaded
 * lazily.
 */
import { memo, Suspense, useEffect, useMemo, useRef, type ReactNode } from 'react';
import type { TranscriptEntry } from '../commands';
import { viewFor, type CommandViewActions } from './command-views';

export const LOCAL_ONLY_MARK = 'Only visible to you · disappears on refresh';

export interface TranscriptHandlers {
  dismiss: (id: string) => void;
  rerun: (commandLine: string) => void;
  draft: (text: string) => void;
}

interface Props {
  entry: TranscriptEntry;
  handlers: TranscriptHandlers;
}

export const LocalMessageView = memo(function LocalMessageView({ entry, handlers }: Props) {
  const actions = useMemo<CommandViewActions | null>(() => {
    if (entry.kind !== 'output') return null;
    return {
      dismiss: () => handlers.dismiss(entry.id),
      retry: () => {
        handlers.dismiss(entry.id);
        handlers.rerun(entry.commandLine);
      },
      rerun: () => handlers.rerun(entry.commandLine),
      run: handlers.rerun,
      draft: handlers.draft,
    };
  }, [entry, handlers]);

  if (entry.kind === 'command-echo') {
    return (
      <Frame id={entry.id} onDismiss={handlers.dismiss} className="local-echo" label="Your command">
        <code>{entry.text}</code>
      </Frame>
    );
  }
  if (entry.kind === 'notice') {
    return (
      <Frame
        id={entry.id}
        onDismiss={handlers.dismiss}
        className={`local-notice tone-${entry.tone}`}
        label={entry.title}
      >
        <div role="status">
          <strong>{entry.title}</strong>
          <p>{withCode(entry.text)}</p>
        </div>
      </Frame>
    );
  }
  const view = viewFor(entry.command);
  return (
    <Frame
      id={entry.id}
      onDismiss={handlers.dismiss}
      className={`local-output output-${entry.command}`}
      label={view?.title ?? `/${entry.command}`}
    >
      {view && actions ? (
        <Suspense
          fallback={
            <p role="status" className="pending">
              <span className="spinner" aria-hidden="true" /> Loading…
            </p>
          }
        >
          <IntoView>
            <view.View entry={entry} actions={actions} />
          </IntoView>
        </Suspense>
      ) : (
        <p>/{entry.command} has no view in this version of the app.</p>
      )}
    </Frame>
  );
});

function Frame({
  id,
  onDismiss,
  className,
  label,
  children,
}: {
  id: string;
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
        <button type="button" className="dismiss" aria-label="Dismiss" onClick={() => onDismiss(id)}>
          ×
        </button>
      </header>
      {children}
    </article>
  );
}

/** A view arrives after its chunk loads: bring its message into view then, not only when it was added. */
function IntoView({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.closest('article')?.scrollIntoView?.({ block: 'nearest' });
  }, []);
  return (
    <div ref={ref} className="output-body">
      {children}
    </div>
  );
}

/** `code` in a notice's words as code, never as raw backticks. */
export function withCode(text: string): ReactNode[] {
  return text.split(/`([^`]+)`/).map((piece, index) => (index % 2 ? <code key={index}>{piece}</code> : piece));
}
