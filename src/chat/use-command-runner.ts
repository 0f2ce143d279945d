/**
 * Runs composer input: commands go to the registry and produce local-only transcript entries —
 * always, before anything is sent, so a command never reaches the agent or the history. Plain
 * text goes to the agent when one is attached, else to appendMessagesToAPI with a notice that
 * says how to attach one. Leaving the workspace aborts whatever a command is waiting for.
 * Nothing here knows any particular command.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { agentQueries } from '../api/agent';
import { addMessageToCache, appendMessagesToAPI } from '../api/messages';
import { createCommandRegistry, parseInput, type CommandContext, type CommandRegistry } from '../commands';
import { useTranscriptActions } from './local-messages-store';

/** Where plain text goes when an agent is attached. */
export interface AgentInbox {
  /** The shown session has a turn running: the agent takes one prompt at a time. */
  busy: boolean;
  /** Sends the text: true once the server took it, false when it refused (the text stays in the composer). */
  prompt: (text: string) => Promise<boolean>;
}

export function useCommandRunner(
  workspaceId: string,
  sessionId: string | null,
  registry?: CommandRegistry,
  agent?: AgentInbox,
) {
  const queryClient = useQueryClient();
  const commands = useMemo(() => registry ?? createCommandRegistry(), [registry]);
  const { localMessageAdded, commandOutputUpdated } = useTranscriptActions();
  const append = useMutation({
    mutationFn: (text: string) => appendMessagesToAPI(workspaceId, { text, sessionId }),
    onSuccess: (message) => addMessageToCache(queryClient, workspaceId, sessionId, message),
  });
  const abortRef = useWorkspaceSignal(workspaceId);

  const notice = useCallback(
    (tone: 'info' | 'error', title: string, text: string) =>
      localMessageAdded(workspaceId, { kind: 'notice', tone, title, text }),
    [localMessageAdded, workspaceId],
  );

  /**
   * Runs a command line; `echo` adds it to the transcript first (Retry and Refresh do not). False
   * for a name no command has: nothing ran, and the text stays in the composer to be corrected.
   */
  const run = useCallback(
    (commandLine: string, echo: boolean): boolean => {
      const parsed = parseInput(commandLine);
      if (parsed.kind !== 'command') return false;
      const command = commands.get(parsed.name);
      if (!command) {
        notice('error', 'Unknown command', unknownCommandText(parsed.name, commands.suggest(parsed.name)?.name));
        return false;
      }
      if (echo) localMessageAdded(workspaceId, { kind: 'command-echo', text: parsed.raw }, sessionId);
      const ctx: CommandContext = {
        args: parsed.args,
        workspaceId,
        sessionId,
        queryClient,
        createOutput: (payload) => {
          const output = { kind: 'output' as const, command: command.name, commandLine: parsed.raw, payload };
          const id = localMessageAdded(workspaceId, output, sessionId);
          return { id, update: (next) => commandOutputUpdated(id, next) };
        },
        signal: abortRef.current.signal,
        listCommands: () => commands.list(),
      };
      void Promise.resolve(command.run(ctx)).catch((error: unknown) => {
        notice('error', `/${command.name} failed`, String(error));
      });
      return true;
    },
    [commands, workspaceId, sessionId, queryClient, localMessageAdded, commandOutputUpdated, notice, abortRef],
  );

  const submit = useCallback(
    async (input: string): Promise<boolean> => {
      const parsed = parseInput(input);
      if (parsed.kind === 'command') return run(input, true);
      if (parsed.text.trim() === '') return false;
      // Unknown until the first status arrives; a server that cannot say has no agent for us.
      const status = await queryClient.ensureQueryData(agentQueries.status(workspaceId)).catch(() => null);
      if (status?.configured && !status.unavailable && agent) {
        if (agent.busy) {
          notice(
            'info',
            'The agent is still replying',
            'Wait for the reply, or press Stop, before sending another message. Commands such as /debug work meanwhile.',
          );
          return false;
        }
        return agent.prompt(parsed.text);
      }
      try {
        await append.mutateAsync(parsed.text);
      } catch (error) {
        notice('error', 'Message not sent', error instanceof Error ? error.message : String(error));
        return false;
      }
      notice('info', 'Saved, but no agent is attached', savedText(status?.unavailable ?? status?.hint));
      return true;
    },
    [run, append, notice, queryClient, workspaceId, agent],
  );

  /** Runs a command line again without a new echo (Retry, Refresh). */
  const rerun = useCallback((commandLine: string) => void run(commandLine, false), [run]);

  return { submit, rerun, registry: commands, sending: append.isPending };
}

const unknownCommandText = (name: string, meant: string | undefined) =>
  `/${name} is not a command.${meant ? ` Did you mean /${meant}?` : ''} Your text is still in the composer. Type /help to see the commands; start with // to send a message that begins with a slash.`;

/** Plain text saved with no agent to answer it: why nobody will reply, when the server says. */
const savedText = (why: string | null | undefined) =>
  why
    ? `Your message is in the workspace history; nobody will reply to it here. ${why}`
    : 'Your message is in the workspace history. This app has no agent connected, so nobody will reply here.';

/** Leaving the workspace aborts whatever a command is waiting for. */
function useWorkspaceSignal(workspaceId: string) {
  const abortRef = useRef(new AbortController());
  useEffect(() => {
    const controller = new AbortController();
    abortRef.current = controller;
    return () => controller.abort();
  }, [workspaceId]);
  return abortRef;
}
