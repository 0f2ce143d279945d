/**
 * The composer's command autocomplete: which commands match the `/name` being typed, which one is
 * active, whether the list was dismissed (Escape) for this text, and the keys it answers.
 */
import { useState, type KeyboardEvent } from 'react';
import { commandPrefix, type CommandRegistry } from '../commands';

export function useCommandCompletion(registry: CommandRegistry, text: string, setText: (text: string) => void) {
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);

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

  /** Arrows, Escape, Tab and Enter on a partial name, while the list is open; Tab on a near miss. True when answered. */
  const handleKey = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (open) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setActive((activeIndex + step + matches.length) % matches.length);
        return true;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setDismissed(text);
        return true;
      }
      if (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && matches[activeIndex]?.name !== prefix)) {
        event.preventDefault();
        complete(activeIndex);
        return true;
      }
    }
    if (event.key === 'Tab' && !event.shiftKey && meant) {
      event.preventDefault();
      setText(`/${meant.name} `);
      return true;
    }
    return false;
  };

  return {
    prefix,
    matches,
    open,
    unmatched,
    meant,
    activeIndex,
    complete,
    handleKey,
    /** New text was typed: the first match is active and the list may open again. */
    typed: () => {
      setActive(0);
      setDismissed(null);
    },
    /** The text was sent: a dismissal of it no longer holds. */
    sent: () => setDismissed(null),
  };
}

export type CommandCompletion = ReturnType<typeof useCommandCompletion>;
