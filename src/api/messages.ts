/**
 * Persisted chat messages: GET …/messages and the one persisting path, `appendMessagesToAPI`
 * (POST …/messages). Local-only messages never come through here.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import {
  appendMessageResponseSchema,
  messagesResponseSchema,
  type ChatMessage,
  type MessagesResponse,
} from '../shared/wire';
import { apiJson, withQuery, workspacePath } from './http';

export async function getMessages(
  workspaceId: string,
  sessionId: string | null,
  signal?: AbortSignal,
): Promise<MessagesResponse> {
  const body = await apiJson(withQuery(workspacePath(workspaceId, '/messages'), { session_id: sessionId }), {
    signal: signal ?? null,
  });
  return messagesResponseSchema.parse(body);
}

export const messageQueries = {
  all: () => ['messages'] as const,
  list: (workspaceId: string, sessionId: string | null) =>
    queryOptions({
      queryKey: [...messageQueries.all(), workspaceId, sessionId] as const,
      queryFn: ({ signal }) => getMessages(workspaceId, sessionId, signal),
    }),
};

export async function appendMessagesToAPI(
  workspaceId: string,
  input: { text: string; sessionId: string | null },
): Promise<ChatMessage> {
  const body = await apiJson(workspacePath(workspaceId, '/messages'), {
    method: 'POST',
    body: JSON.stringify({ text: input.text, ...(input.sessionId ? { sessionId: input.sessionId } : {}) }),
  });
  return appendMessageResponseSchema.parse(body).message;
}

/** Adds a sent message to the cached list, so the chat updates without a refetch. */
export function addMessageToCache(
  queryClient: QueryClient,
  workspaceId: string,
  sessionId: string | null,
  message: ChatMessage,
): void {
  queryClient.setQueryData(messageQueries.list(workspaceId, sessionId).queryKey, (old) =>
    old ? { ...old, messages: [...old.messages, message] } : { sessionId: message.sessionId, messages: [message] },
  );
}
