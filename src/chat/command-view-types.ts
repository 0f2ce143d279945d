/**
 * What a command's view receives: its output entry and the few things it may ask of the chat.
 * A module of its own, below both the view registry (command-views.ts) and the views it loads,
 * so that neither imports the other's module (no import cycle, not even a type-only one).
 */
import type { OutputEntry } from '../commands';

export interface CommandViewProps<P> {
  entry: OutputEntry<P>;
  /** What a view may ask of the chat: all local, none of it sends anything. */
  actions: CommandViewActions;
}

export interface CommandViewActions {
  dismiss: () => void;
  /** Drops this output and runs its command line again (after an error). */
  retry: () => void;
  /** Runs the same command line again as a new output, keeping this one. */
  rerun: () => void;
  /** Runs another command line as a new output (a subagent's report from its parent's). */
  run: (commandLine: string) => void;
  /** Puts text in the composer, for the user to edit and send (never sent from here). */
  draft: (text: string) => void;
}
