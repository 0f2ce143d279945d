/** GET /api/workspace/{id}: name and sessions. */
import { queryOptions } from '@tanstack/react-query';
import { workspaceSchema, type Workspace } from '../shared/wire';
import { apiJson, workspacePath } from './http';

export async function getWorkspace(workspaceId: string, signal?: AbortSignal): Promise<Workspace> {
  return workspaceSchema.parse(await apiJson(workspacePath(workspaceId), { signal: signal ?? null }));
}

export const workspaceQueries = {
  all: () => ['workspace'] as const,
  detail: (workspaceId: string) =>
    queryOptions({
      queryKey: [...workspaceQueries.all(), workspaceId] as const,
      queryFn: ({ signal }) => getWorkspace(workspaceId, signal),
    }),
};
