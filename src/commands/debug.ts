/**
 * /debug: what is filling the model's context. Fetches the read-only report through the query
 * cache (the same options the rest of the app would use) and shows it as a local-only output.
 * Nothing is sent to the agent and nothing is persisted. The previous report, for "change since",
 * is read from the transcript by the view, not carried here.
 */
import { contextQueries } from '../api/context-report';
import { ApiError } from '../api/http';
import type { ContextReport } from '../shared/wire';
import type { Command } from './types';

export interface DebugOutput {
  workspaceId: string;
  sessionId: string | null;
  state: { status: 'pending' } | { status: 'ready'; report: ContextReport } | { status: 'error'; message: string };
}

export const debugCommand = {
  name: 'debug' as const,
  description: 'Show what is filling the model context (only visible to you)',
  usage: '/debug [session-id]',
  async run(ctx) {
    const sessionId = ctx.args[0] ?? ctx.sessionId;
    const output = (state: DebugOutput['state']): DebugOutput => ({ workspaceId: ctx.workspaceId, sessionId, state });
    const handle = ctx.createOutput(output({ status: 'pending' }));
    const options = contextQueries.report(ctx.workspaceId, sessionId);
    const cancel = () => void ctx.queryClient.cancelQueries({ queryKey: options.queryKey });
    ctx.signal.addEventListener('abort', cancel, { once: true });
    try {
      const report = await ctx.queryClient.fetchQuery({ ...options, staleTime: 0 });
      // Parsing and validating a large report is one task, rendering it another: yield between
      // them so neither blocks input for long.
      await new Promise((resume) => setTimeout(resume, 0));
      if (!ctx.signal.aborted) handle.update(output({ status: 'ready', report }));
    } catch (error) {
      if (ctx.signal.aborted) return;
      handle.update(output({ status: 'error', message: describeError(error) }));
    } finally {
      ctx.signal.removeEventListener('abort', cancel);
    }
  },
} satisfies Command<DebugOutput>;

function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    // The server's words name the session by its id: the chat names conversations by title.
    if (error.status === 404 && error.code === 'session_not_found')
      return 'This conversation is not in the workspace (any more). Pick another one in the header.';
    if (error.status === 404)
      return `${error.message}. The workspace or session may have been removed, or you may not have access.`;
    if (error.status === 401) return 'You are signed out. Open the workspace link with your token again.';
    return error.message;
  }
  return error instanceof Error ? error.message : 'The context report could not be loaded.';
}
