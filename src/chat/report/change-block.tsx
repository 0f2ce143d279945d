/**
 * A suggestion's change, as the user takes it: what to do with it, the text itself (the JSON
 * fragment, the sentence for the agent, what to do with the file) and a copy button — the
 * clipboard where the browser gives one, with a visible "Copied"; where it does not (an insecure
 * origin, a refusal), the text is selected for the user to copy. A sentence for the agent can
 * also be put in the composer (never sent from here). A long text (a new session's hand-off) can
 * be folded where room is short (the verdict): shown on request, copied whole either way.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { changeLead } from '../../shared/advice-text';
import { changeHeading } from '../../shared/report-text';
import type { Change } from '../../shared/wire';

type CopyState = 'idle' | 'copied' | 'selected';

/** Selects an element's text, for the user to copy by hand. */
function selectText(element: HTMLElement): void {
  const selection = window.getSelection();
  if (!selection) return;
  const range = document.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
}

/** Above this many lines a folded change shows its text only on request. */
const FOLD_LINES = 3;

export function ChangeBlock({
  change,
  runtime,
  onDraft,
  fold = false,
  live = null,
}: {
  change: Change;
  /** The report's runtime in words ("Claude Code"): a configuration change is its configuration. */
  runtime: string;
  onDraft?: (text: string) => void;
  fold?: boolean;
  /** The button that makes the change on the live agent, on the actions' line (live-change.tsx). */
  live?: ReactNode;
}) {
  const [state, setState] = useState<CopyState>('idle');
  const lines = change.text.split('\n').length;
  const [open, setOpen] = useState(!fold || lines <= FOLD_LINES);
  const textRef = useRef<HTMLElement | null>(null);
  const keep = (element: HTMLElement | null) => {
    textRef.current = element;
  };
  useEffect(() => {
    if (state === 'selected' && textRef.current) selectText(textRef.current);
  }, [state, open]);
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2500);
    return () => clearTimeout(timer);
  }, [state]);

  const copy = async () => {
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(change.text);
      setState('copied');
    } catch {
      // A folded text is shown first, then selected once it is there (the effect below).
      setOpen(true);
      setState('selected');
    }
  };

  const label = changeHeading(change, runtime);
  return (
    <div
      className={`change change-${change.kind}${state === 'selected' ? ' change-selected' : ''}`}
      role="group"
      aria-label={`The change: ${label}`}
    >
      <span className="change-lead">{changeLead(change)}:</span>
      {!open ? (
        <button type="button" className="link" aria-expanded={false} onClick={() => setOpen(true)}>
          Show the text ({lines} lines)
        </button>
      ) : change.kind === 'opencode_config' || change.kind === 'new_session' ? (
        <pre className="change-text">
          <code ref={keep}>{change.text}</code>
        </pre>
      ) : (
        <blockquote className="change-text" ref={keep}>
          {change.text}
        </blockquote>
      )}
      <span className="change-actions">
        <button type="button" className="link" onClick={() => void copy()}>
          {state === 'copied' ? 'Copied' : 'Copy'}
        </button>
        {change.kind === 'ask_agent' && onDraft && (
          <button type="button" className="link" onClick={() => onDraft(change.text)}>
            Ask the agent
          </button>
        )}
        {live}
        <span className="change-status" role="status">
          {state === 'copied'
            ? 'Copied to the clipboard.'
            : state === 'selected'
              ? 'The clipboard is not available here: the text is selected, copy it with Ctrl+C (⌘C).'
              : ''}
        </span>
      </span>
    </div>
  );
}
