/** GET …/usage: the latest ACP usage_update, for the context meter. */
import { queryOptions } from '@tanstack/react-query';
import { usageSchema, type Usage } from '../shared/wire';
import { apiJson, withQuery, workspacePath } from './http';

export async function getUsage(workspaceId: string, sessionId: string | null, signal?: AbortSignal): Promise<Usage> {
  const body = await apiJson(withQuery(workspacePath(workspaceId, '/usage'), { session_id: sessionId }), {
    signal: signal ?? null,
  });
  return usageSchema.parse(body);
}

export const usageQueries = {
  all: () => ['usage'] as const,
  latest: (workspaceId: string, sessionId: string | null) =>
    queryOptions({
      queryKey: [...usageQueries.all(), workspaceId, sessionId] as const,
      queryFn: ({ signal }) => getUsage(workspaceId, sessionId, signal),
      refetchInterval: 15_000,
    }),
};
