/**
 * Runs composer input: commands go to the registry and produce local-only messages; plain text
 * goes to appendMessagesToAPI. Leaving the workspace aborts whatever a command is waiting for.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { addMessageToCache, appendMessagesToAPI } from '../api/messages';
import { createCommandRegistry, parseInput, type CommandContext, type CommandRegistry } from '../commands';
import { reportKey, useLocalMessageActions, useLocalMessagesStore } from './local-messages-store';

export function useCommandRunner(workspaceId: string, sessionId: string | null, registry?: CommandRegistry) {
  const queryClient = useQueryClient();
  const commands = useMemo(() => registry ?? createCommandRegistry(), [registry]);
  const { localMessageAdded, localMessageReplaced } = useLocalMessageActions();
  const append = useMutation({
    mutationFn: (text: string) => appendMessagesToAPI(workspaceId, { text, sessionId }),
    onSuccess: (message) => addMessageToCache(queryClient, workspaceId, sessionId, message),
  });
  const abortRef = useRef(new AbortController());

  useEffect(() => {
    const controller = new AbortController();
    abortRef.current = controller;
    return () => controller.abort();
  }, [workspaceId]);

  const runCommand = useCallback(
    (name: string, args: string[], echo: string | null) => {
      if (echo !== null) localMessageAdded(workspaceId, { kind: 'command-echo', text: echo });
      const command = commands.get(name);
      if (!command) {
        localMessageAdded(workspaceId, {
          kind: 'notice',
          tone: 'error',
          title: 'Unknown command',
          text: `/${name} is not a command. Type /help to see the commands; start with // to send a message that begins with a slash.`,
        });
        return;
      }
      const ctx: CommandContext = {
        args,
        workspaceId,
        sessionId,
        queryClient,
        appendLocalMessage: (body) => localMessageAdded(workspaceId, body),
        replaceLocalMessage: localMessageReplaced,
        previousReport: (ws, session) => useLocalMessagesStore.getState().lastReports[reportKey(ws, session)] ?? null,
        signal: abortRef.current.signal,
        listCommands: () => commands.list(),
      };
      void Promise.resolve(command.run(ctx)).catch((error: unknown) => {
        localMessageAdded(workspaceId, {
          kind: 'notice',
          tone: 'error',
          title: `/${name} failed`,
          text: String(error),
        });
      });
    },
    [commands, workspaceId, sessionId, queryClient, localMessageAdded, localMessageReplaced],
  );

  const submit = useCallback(
    async (input: string): Promise<boolean> => {
      const parsed = parseInput(input);
      if (parsed.kind === 'command') {
        runCommand(parsed.name, parsed.args, parsed.raw);
        return true;
      }
      if (parsed.text.trim() === '') return false;
      try {
        await append.mutateAsync(parsed.text);
      } catch (error) {
        localMessageAdded(workspaceId, {
          kind: 'notice',
          tone: 'error',
          title: 'Message not sent',
          text: error instanceof Error ? error.message : String(error),
        });
        return false;
      }
      localMessageAdded(workspaceId, {
        kind: 'notice',
        tone: 'info',
        title: 'Saved, but no agent is attached',
        text: 'Your message is in the workspace history. This app has no agent connected, so nobody will reply here.',
      });
      return true;
    },
    [runCommand, append, localMessageAdded, workspaceId],
  );

  /** Runs a command line again without a new echo (the Retry action). */
  const retry = useCallback(
    (commandLine: string) => {
      const parsed = parseInput(commandLine);
      if (parsed.kind === 'command') runCommand(parsed.name, parsed.args, null);
    },
    [runCommand],
  );

  return { submit, retry, registry: commands, sending: append.isPending };
}
