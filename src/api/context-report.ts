/**
 * GET …/debug/context: the read-only context report. The response is validated against the
 * shared schema, so a malformed answer is an error the chat can show, never a broken render.
 */
import { queryOptions } from '@tanstack/react-query';
import { contextReportSchema, type ContextReport } from '../shared/wire';
import { apiJson, ApiError, withQuery, workspacePath } from './http';

export async function getContextReport(
  workspaceId: string,
  sessionId: string | null,
  signal?: AbortSignal,
): Promise<ContextReport> {
  const body = await apiJson(withQuery(workspacePath(workspaceId, '/debug/context'), { session_id: sessionId }), {
    signal: signal ?? null,
  });
  const parsed = contextReportSchema.safeParse(body);
  if (!parsed.success) throw new ApiError(200, 'malformed_report', 'The server sent a context report this app cannot read.');
  return parsed.data;
}

export const contextQueries = {
  all: () => ['context-report'] as const,
  report: (workspaceId: string, sessionId: string | null) =>
    queryOptions({
      queryKey: [...contextQueries.all(), workspaceId, sessionId] as const,
      queryFn: ({ signal }) => getContextReport(workspaceId, sessionId, signal),
      // Every /debug is a fresh look: never answer from cache, never retry behind the user's back.
      staleTime: 0,
      gcTime: 0,
      retry: false,
    }),
};
