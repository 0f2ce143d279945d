/**
 * What a slash command is and what it may touch. Commands are plain records with one `run`
 * function; everything they can do arrives in the typed context, so they never import the chat.
 * A command owns its output: it creates one transcript entry with a payload of its own type and
 * updates it as its work goes on; the chat renders it with the view registered under its name.
 */
import type { QueryClient } from '@tanstack/react-query';

/** A local-only transcript entry: held in memory, never persisted, gone on refresh. */
export type TranscriptEntryBody =
  | { kind: 'command-echo'; text: string }
  | { kind: 'notice'; tone: 'info' | 'error'; title: string; text: string }
  | {
      kind: 'output';
      /** The command's name: the chat finds the view registered under it. */
      command: string;
      /** The command line that produced it, for Retry and Refresh. */
      commandLine: string;
      payload: unknown;
    };

export type TranscriptEntry = TranscriptEntryBody & {
  id: string;
  workspaceId: string;
  createdAt: number;
  /** The session shown when it was made (absent: shown in every session of the workspace). */
  sessionId?: string | null;
};
export type OutputEntry<P = unknown> = Extract<TranscriptEntry, { kind: 'output' }> & { payload: P };

/** The command's handle on the output it created. */
export interface OutputHandle<P> {
  id: string;
  update: (payload: P) => void;
}

export interface CommandContext<P = unknown> {
  /** Arguments after the command name, split on whitespace. */
  args: string[];
  workspaceId: string;
  /** The session shown in the chat (null: the workspace has none yet). */
  sessionId: string | null;
  queryClient: QueryClient;
  /** Adds the command's output to the transcript (memory only). */
  createOutput: (payload: P) => OutputHandle<P>;
  /** Aborted when the user leaves the workspace. */
  signal: AbortSignal;
  /** Commands available, for /help. */
  listCommands: () => readonly CommandSpec[];
}

export interface CommandSpec {
  name: string;
  description: string;
  usage: string;
  aliases?: readonly string[];
}

export interface Command<P = unknown> extends CommandSpec {
  run: (ctx: CommandContext<P>) => void | Promise<void>;
}

/** The payload type a command's outputs carry. */
export type PayloadOf<C> = C extends { run: (ctx: CommandContext<infer P>) => unknown } ? P : never;
