/**
 * GET …/debug/context: the read-only context report. The response is validated against the
 * shared schema, so a malformed answer is an error the chat can show, never a broken render.
 */
import { queryOptions } from '@tanstack/react-query';
import {
  contextReportSchema,
  itemContentSchema,
  readerPageSchema,
  type ContextReport,
  type ItemContent,
  type ReaderPage,
} from '../shared/wire';
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
  if (!parsed.success)
    throw new ApiError(200, 'malformed_report', 'The server sent a context report this app cannot read.');
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

export async function getItemContent(
  target: { workspaceId: string; sessionId: string | null; snapshotId: string },
  itemId: string,
  page: number,
  signal?: AbortSignal,
): Promise<ItemContent> {
  const path = workspacePath(target.workspaceId, `/debug/context/items/${encodeURIComponent(itemId)}`);
  const body = await apiJson(
    withQuery(path, { session_id: target.sessionId, snapshot: target.snapshotId, page: String(page) }),
    { signal: signal ?? null },
  );
  const parsed = itemContentSchema.safeParse(body);
  if (!parsed.success)
    throw new ApiError(200, 'malformed_content', 'The server sent item content this app cannot read.');
  return parsed.data;
}

export async function getReaderPage(
  target: { workspaceId: string; sessionId: string | null; snapshotId: string },
  page: number,
  signal?: AbortSignal,
): Promise<ReaderPage> {
  const path = workspacePath(target.workspaceId, '/debug/context/reader');
  const body = await apiJson(
    withQuery(path, { session_id: target.sessionId, snapshot: target.snapshotId, page: String(page) }),
    { signal: signal ?? null },
  );
  const parsed = readerPageSchema.safeParse(body);
  if (!parsed.success)
    throw new ApiError(200, 'malformed_reader', 'The server sent a reader page this app cannot read.');
  return parsed.data;
}

type Target = { workspaceId: string; sessionId: string | null; snapshotId: string };

/** Content is pinned to a snapshot, so it never goes stale: cache it while the report is open. */
export const contentQueries = {
  item: (target: Target, itemId: string, page: number) =>
    queryOptions({
      queryKey: [
        ...contextQueries.all(),
        target.workspaceId,
        target.sessionId,
        target.snapshotId,
        'item',
        itemId,
        page,
      ] as const,
      queryFn: ({ signal }) => getItemContent(target, itemId, page, signal),
      staleTime: Infinity,
      retry: false,
    }),
  reader: (target: Target, page: number) =>
    queryOptions({
      queryKey: [
        ...contextQueries.all(),
        target.workspaceId,
        target.sessionId,
        target.snapshotId,
        'reader',
        page,
      ] as const,
      queryFn: ({ signal }) => getReaderPage(target, page, signal),
      staleTime: Infinity,
      retry: false,
    }),
};
