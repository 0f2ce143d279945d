/**
 * /debug: what is filling the model's context. Fetches the read-only report through the query
 * cache (the same options the rest of the app would use) and shows it as a local-only message.
 * Nothing is sent to the agent and nothing is persisted.
 */
import { contextQueries } from '../api/context-report';
import { ApiError } from '../api/http';
import type { Command, CommandContext, LocalMessageBody } from './types';

export const debugCommand = {
  name: 'debug' as const,
  description: 'Show what is filling the model context (only visible to you)',
  usage: '/debug [session-id]',
  async run(ctx: CommandContext) {
    const sessionId = ctx.args[0] ?? ctx.sessionId;
    const commandLine = ['/debug', ...ctx.args].join(' ');
    const message = (state: Extract<LocalMessageBody, { kind: 'context-report' }>['state']): LocalMessageBody => ({
      kind: 'context-report',
      workspaceId: ctx.workspaceId,
      sessionId,
      commandLine,
      state,
    });
    const id = ctx.appendLocalMessage(message({ status: 'pending' }));
    const previous = ctx.previousReport(ctx.workspaceId, sessionId);
    const options = contextQueries.report(ctx.workspaceId, sessionId);
    const cancel = () => void ctx.queryClient.cancelQueries({ queryKey: options.queryKey });
    ctx.signal.addEventListener('abort', cancel, { once: true });
    try {
      const report = await ctx.queryClient.fetchQuery({ ...options, staleTime: 0 });
      // Parsing and validating a large report is one task, rendering it another: yield between
      // them so neither blocks input for long.
      await new Promise((resume) => setTimeout(resume, 0));
      if (!ctx.signal.aborted) ctx.replaceLocalMessage(id, message({ status: 'ready', report, previous }));
    } catch (error) {
      if (ctx.signal.aborted) return;
      ctx.replaceLocalMessage(id, message({ status: 'error', message: describeError(error) }));
    } finally {
      ctx.signal.removeEventListener('abort', cancel);
    }
  },
} satisfies Command;

function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 404)
      return `${error.message}. The workspace or session may have been removed, or you may not have access.`;
    if (error.status === 401) return 'You are signed out. Open the workspace link with your token again.';
    return error.message;
  }
  return error instanceof Error ? error.message : 'The context report could not be loaded.';
}

export type { CommandContext };
