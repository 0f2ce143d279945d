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
  /** As of this model call (1-based); absent: the current context. */
  call?: number,
): Promise<ContextReport> {
  const query = { session_id: sessionId, call: call === undefined ? null : String(call) };
  const body = await apiJson(withQuery(workspacePath(workspaceId, '/debug/context'), query), {
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
  /** The report as of one model call of a report's session: what it was then does not change. */
  asOf: (workspaceId: string, sessionId: string | null, call: number) =>
    queryOptions({
      queryKey: [...contextQueries.all(), workspaceId, sessionId, 'call', call] as const,
      queryFn: ({ signal }) => getContextReport(workspaceId, sessionId, signal, call),
      staleTime: Infinity,
      retry: false,
    }),
};

/** Where pinned content comes from: one report's workspace, session and snapshot. */
type Target = { workspaceId: string; sessionId: string | null; snapshotId: string; call?: number | undefined };

/** GET a snapshot-pinned page and validate it; a malformed answer is an error, never a render. */
async function getPinned<T>(
  target: Target,
  rest: string,
  page: number,
  schema: { safeParse: (body: unknown) => { success: true; data: T } | { success: false } },
  what: string,
  signal?: AbortSignal,
): Promise<T> {
  const path = withQuery(workspacePath(target.workspaceId, rest), {
    session_id: target.sessionId,
    snapshot: target.snapshotId,
    page: String(page),
    call: target.call === undefined ? null : String(target.call),
  });
  const parsed = schema.safeParse(await apiJson(path, { signal: signal ?? null }));
  if (!parsed.success) throw new ApiError(200, 'malformed_content', `The server sent ${what} this app cannot read.`);
  return parsed.data;
}

export function getItemContent(
  target: Target,
  itemId: string,
  page: number,
  signal?: AbortSignal,
): Promise<ItemContent> {
  const rest = `/debug/context/items/${encodeURIComponent(itemId)}`;
  return getPinned(target, rest, page, itemContentSchema, 'item content', signal);
}

export function getReaderPage(target: Target, page: number, signal?: AbortSignal): Promise<ReaderPage> {
  return getPinned(target, '/debug/context/reader', page, readerPageSchema, 'a reader page', signal);
}

/** Content is pinned to a snapshot, so it never goes stale: cache it while the report is open. */
export const contentQueries = {
  item: (target: Target, itemId: string, page: number) =>
    queryOptions({
      queryKey: [
        ...contextQueries.all(),
        target.workspaceId,
        target.sessionId,
        target.snapshotId,
        target.call ?? null,
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
        target.call ?? null,
        'reader',
        page,
      ] as const,
      queryFn: ({ signal }) => getReaderPage(target, page, signal),
      staleTime: Infinity,
      retry: false,
    }),
};
