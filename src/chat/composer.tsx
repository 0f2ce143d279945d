/**
 * The message composer: multi-line, Enter sends, Shift+Enter breaks the line, and an accessible
 * command autocomplete (a combobox with a listbox) while a `/name` is being typed.
 */
import { useId, useState, type KeyboardEvent } from 'react';
import { commandPrefix, type CommandRegistry } from '../commands';

interface ComposerProps {
  registry: CommandRegistry;
  onSubmit: (text: string) => Promise<boolean> | boolean;
  disabled?: boolean;
}

export function Composer({ registry, onSubmit, disabled = false }: ComposerProps) {
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const listId = useId();

  const prefix = commandPrefix(text);
  const matches = prefix === null ? [] : registry.match(prefix);
  const open = matches.length > 0 && dismissed !== text;
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
      <textarea
        aria-label="Message"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={open ? listId : undefined}
        aria-activedescendant={open && matches[activeIndex] ? `${listId}-${matches[activeIndex].name}` : undefined}
        placeholder="Message the workspace · / for commands · Shift+Enter for a new line"
        rows={2}
        value={text}
        disabled={disabled}
        onChange={(event) => {
          setText(event.target.value);
          setActive(0);
          setDismissed(null);
        }}
        onKeyDown={onKeyDown}
      />
      <button type="submit" disabled={disabled || text.trim() === ''}>
        Send
      </button>
    </form>
  );
}
