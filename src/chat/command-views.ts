/**
 * Which component renders each command's output, keyed by command name and loaded lazily (a
 * command's view is its own chunk, fetched on its first use). The commands stay pure and
 * React-free; this is the one place the chat maps them to views, and the types hold it to the
 * list of built-in commands: a command without a view does not compile.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { CommandName, CommandPayloads } from '../commands';
import type { CommandViewProps } from './command-view-types';

export type { CommandViewActions, CommandViewProps } from './command-view-types';

export interface CommandView<P> {
  /** The output's accessible name (and the frame's label). */
  title: string;
  View: LazyExoticComponent<ComponentType<CommandViewProps<P>>>;
}

type Views = { [N in CommandName]: CommandView<CommandPayloads[N]> };

/** Each view's chunk, fetched once (the browser keeps the module). */
const loaders = {
  help: () => import('./views/help-view'),
  debug: () => import('./views/debug-view'),
} satisfies Record<CommandName, () => Promise<unknown>>;

export const commandViews: Views = {
  help: { title: 'Commands', View: lazy(loaders.help) },
  debug: { title: 'Context report', View: lazy(loaders.debug) },
};

/**
 * Fetches the chunks of the views of commands a typed prefix may name, while the user is still
 * typing: the first `/debug` then waits for the report only, not for its view's code.
 */
export function prefetchViews(prefix: string): void {
  for (const [name, load] of Object.entries(loaders)) if (name.startsWith(prefix)) void load().catch(() => {});
}

export const viewFor = (command: string): CommandView<unknown> | undefined =>
  (commandViews as Record<string, CommandView<unknown>>)[command];
