/**
 * What a slash command is and what it may touch. Commands are plain records with one `run`
 * function; everything they can do arrives in the typed context, so they never import the chat.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { ContextReport } from '../shared/wire';

/** A local-only transcript entry: held in memory, never persisted, gone on refresh. */
export type LocalMessageBody =
  | { kind: 'command-echo'; text: string }
  | { kind: 'notice'; tone: 'info' | 'error'; title: string; text: string }
  | { kind: 'help'; commands: { name: string; usage: string; description: string }[] }
  | {
      kind: 'context-report';
      workspaceId: string;
      sessionId: string | null;
      /** The command line that produced it, for Retry. */
      commandLine: string;
      state:
        | { status: 'pending' }
        | { status: 'ready'; report: ContextReport; previous: ContextReport | null }
        | { status: 'error'; message: string };
    };

export type LocalMessage = LocalMessageBody & { id: string; createdAt: number };

export interface CommandContext {
  /** Arguments after the command name, split on whitespace. */
  args: string[];
  workspaceId: string;
  /** The session shown in the chat (null: the workspace has none yet). */
  sessionId: string | null;
  queryClient: QueryClient;
  appendLocalMessage: (body: LocalMessageBody) => string;
  replaceLocalMessage: (id: string, body: LocalMessageBody) => void;
  /** The last report this page showed for a workspace and session (memory only). */
  previousReport: (workspaceId: string, sessionId: string | null) => ContextReport | null;
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

export interface Command extends CommandSpec {
  run: (ctx: CommandContext) => void | Promise<void>;
}
