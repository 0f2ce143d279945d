/**
 * The message composer: multi-line, Enter sends, Shift+Enter breaks the line, and an accessible
 * command autocomplete (a combobox with a listbox) while a `/name` is being typed; when nothing
 * matches, a line says why the list closed. It takes focus on load, and a view may put a draft
 * in it (never sent without the user).
 */
import { useId, useImperativeHandle, useRef, useState, type KeyboardEvent, type Ref } from 'react';
import { commandPrefix, type CommandRegistry } from '../commands';
import { prefetchViews } from './command-views';
import { useCommandCompletion, type CommandCompletion } from './use-command-completion';

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
  const [drafted, setDrafted] = useState(false);
  const listId = useId();
  const hintId = useId();
  const tipId = useId();
  const input = useRef<HTMLTextAreaElement>(null);
  const completion = useCommandCompletion(registry, text, setText);
  const { open, matches, activeIndex } = completion;

  useImperativeHandle(ref, () => ({
    draft: (draft: string) => {
      setText(draft);
      setDrafted(true);
      input.current?.focus();
    },
    focus: () => input.current?.focus(),
  }));

  const send = async () => {
    if (text.trim() === '') return;
    const sent = text;
    setText('');
    completion.sent();
    setDrafted(false);
    const ok = await onSubmit(sent);
    if (!ok) setText((current) => current || sent);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (completion.handleKey(event)) return;
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
      {open && <CommandList id={listId} completion={completion} />}
      <div className="composer-row">
        <textarea
          ref={input}
          aria-label="Message"
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={open ? listId : undefined}
          aria-activedescendant={open && matches[activeIndex] ? `${listId}-${matches[activeIndex].name}` : undefined}
          aria-describedby={completion.unmatched || drafted ? hintId : firstRunHint ? tipId : undefined}
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
            completion.typed();
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
      <ComposerHint id={hintId} completion={completion} drafted={drafted} />
    </form>
  );
}

/** The matching commands, the active one marked; a press picks one (before the textarea loses focus). */
function CommandList({ id, completion }: { id: string; completion: CommandCompletion }) {
  const { matches, activeIndex, complete } = completion;
  return (
    <ul className="autocomplete" id={id} role="listbox" aria-label="Commands">
      {matches.map((command, index) => (
        <li
          key={command.name}
          id={`${id}-${command.name}`}
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
  );
}

/** Why the list closed (no such command, or a near miss), or that a draft is waiting; else empty. */
function ComposerHint({ id, completion, drafted }: { id: string; completion: CommandCompletion; drafted: boolean }) {
  const { unmatched, meant, prefix } = completion;
  return (
    <p className="composer-hint" id={id} role="status">
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
  );
}
