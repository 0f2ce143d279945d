/**
 * The message composer: multi-line, Enter sends, Shift+Enter breaks the line, and an accessible
 * command autocomplete (a combobox with a listbox) while a `/name` is being typed; when nothing
 * matches, a line says why the list closed. It takes focus on load, and a view may put a draft
 * in it (never sent without the user).
 */
import { useId, useImperativeHandle, useRef, useState, type KeyboardEvent, type Ref } from 'react';
import { commandPrefix, type CommandRegistry } from '../commands';
import { prefetchViews } from './command-views';

export interface ComposerHandle {
  /** Replaces the text with a draft and focuses the composer. */
  draft: (text: string) => void;
  focus: () => void;
}

interface ComposerProps {
  registry: CommandRegistry;
  onSubmit: (text: string) => Promise<boolean> | boolean;
  disabled?: boolean;
  /** No /debug has run on this page yet: say what it does. */
  firstRunHint?: boolean;
  ref?: Ref<ComposerHandle>;
}

export function Composer({ registry, onSubmit, disabled = false, firstRunHint = false, ref }: ComposerProps) {
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [drafted, setDrafted] = useState(false);
  const listId = useId();
  const hintId = useId();
  const tipId = useId();
  const input = useRef<HTMLTextAreaElement>(null);

  useImperativeHandle(ref, () => ({
    draft: (draft: string) => {
      setText(draft);
      setDrafted(true);
      input.current?.focus();
    },
    focus: () => input.current?.focus(),
  }));

  const prefix = commandPrefix(text);
  const matches = prefix === null ? [] : registry.match(prefix);
  const open = matches.length > 0 && dismissed !== text;
  const unmatched = prefix !== null && prefix !== '' && matches.length === 0;
  const meant = unmatched ? registry.suggest(prefix) : undefined;
  const activeIndex = Math.min(active, Math.max(0, matches.length - 1));

  const complete = (index: number) => {
    const command = matches[index];
    if (command) setText(`/${command.name} `);
    setActive(0);
    setDismissed(null);
  };

  const send = async () => {
    if (text.trim() === '') return;
    const sent = text;
    setText('');
    setDismissed(null);
    setDrafted(false);
    const ok = await onSubmit(sent);
    if (!ok) setText((current) => current || sent);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (open) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive((activeIndex + step + matches.length) % matches.length);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setDismissed(text);
        return;
      }
      if (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && matches[activeIndex]?.name !== prefix)) {
        event.preventDefault();
        complete(activeIndex);
        return;
      }
    }
    if (event.key === 'Tab' && !event.shiftKey && meant) {
      event.preventDefault();
      setText(`/${meant.name} `);
      return;
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      {open && (
        <ul className="autocomplete" id={listId} role="listbox" aria-label="Commands">
          {matches.map((command, index) => (
            <li
              key={command.name}
              id={`${listId}-${command.name}`}
              role="option"
              aria-selected={index === activeIndex}
              className={index === activeIndex ? 'active' : undefined}
              onMouseDown={(event) => {
                event.preventDefault();
                complete(index);
              }}
            >
              <span className="autocomplete-usage">{command.usage}</span>
              <span className="autocomplete-description">{command.description}</span>
            </li>
          ))}
        </ul>
      )}
      <div className="composer-row">
        <textarea
          ref={input}
          aria-label="Message"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={open ? listId : undefined}
          aria-activedescendant={open && matches[activeIndex] ? `${listId}-${matches[activeIndex].name}` : undefined}
          aria-describedby={unmatched || drafted ? hintId : firstRunHint ? tipId : undefined}
          placeholder="Message the workspace · / for commands"
          rows={2}
          value={text}
          disabled={disabled}
          // The chat is a single-purpose page: typing is what the user came to do.
          autoFocus
          onChange={(event) => {
            setText(event.target.value);
            const typed = commandPrefix(event.target.value);
            if (typed !== null) prefetchViews(typed);
            setActive(0);
            setDismissed(null);
            if (event.target.value === '') setDrafted(false);
          }}
          onKeyDown={onKeyDown}
        />
        <button type="submit" className="primary" disabled={disabled || text.trim() === ''}>
          Send
        </button>
      </div>
      {firstRunHint && (
        <p className="composer-tip" id={tipId}>
          Tip: <code>/debug</code> shows what fills the agent’s context — only you see it.
        </p>
      )}
      <p className="composer-hint" id={hintId} role="status">
        {unmatched ? (
          meant ? (
            <>
              No command /{prefix}. Did you mean <code>/{meant.name}</code>? Tab puts it in; /help lists the commands.
            </>
          ) : (
            `No command starts with /${prefix}. /help lists the commands; start with // to send text that begins with a slash.`
          )
        ) : drafted ? (
          'Draft from the report — edit it, then press Enter to send it to the workspace. Nothing was sent.'
        ) : (
          ''
        )}
      </p>
    </form>
  );
}
