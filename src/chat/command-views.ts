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

export const commandViews: Views = {
  help: { title: 'Commands', View: lazy(() => import('./views/help-view')) },
  debug: { title: 'Context report', View: lazy(() => import('./views/debug-view')) },
};

export const viewFor = (command: string): CommandView<unknown> | undefined =>
  (commandViews as Record<string, CommandView<unknown>>)[command];
