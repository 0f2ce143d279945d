/**
 * The live agent (issue 15): GET …/agent (is one configured, which sessions have a turn running),
 * POST …/agent/prompt (a turn, streamed back as Server-Sent Events, one JSON `AgentEvent` per
 * message) and POST …/agent/cancel. Events are validated by the shared `parseAgentEvent`; one
 * this client does not know is skipped, never an error.
 */
import { queryOptions } from '@tanstack/react-query';
import { createParser } from 'eventsource-parser';
import {
  agentStatusSchema,
  parseAgentEvent,
  type AgentEvent,
  type AgentPromptRequest,
  type AgentStatus,
} from '../shared/agent';
import { errorBodySchema } from '../shared/wire';
import { apiJson, ApiError, workspacePath } from './http';

export async function getAgentStatus(workspaceId: string, signal?: AbortSignal): Promise<AgentStatus> {
  const parsed = agentStatusSchema.safeParse(
    await apiJson(workspacePath(workspaceId, '/agent'), { signal: signal ?? null }),
  );
  if (!parsed.success)
    throw new ApiError(200, 'malformed_status', 'The server sent an agent status this app cannot read.');
  return parsed.data;
}

/** While a turn runs somewhere in the workspace the status is polled (Stop appears, then goes). */
export const RUNNING_POLL_MS = 2_000;
/** Otherwise slowly, so a turn started in another tab shows up; never when no agent is configured. */
export const IDLE_POLL_MS = 30_000;

export const agentQueries = {
  all: () => ['agent'] as const,
  status: (workspaceId: string) =>
    queryOptions({
      queryKey: [...agentQueries.all(), workspaceId, 'status'] as const,
      queryFn: ({ signal }) => getAgentStatus(workspaceId, signal),
      refetchInterval: (query) => {
        const status = query.state.data;
        if (!status?.configured) return false;
        return status.running.length > 0 ? RUNNING_POLL_MS : IDLE_POLL_MS;
      },
    }),
};

export interface StreamOptions {
  signal?: AbortSignal;
  /** The server took the prompt: the turn runs (and is persisted) whatever happens to this stream. */
  onOpen?: () => void;
  onEvent: (event: AgentEvent) => void;
}

/** How a stream ended: with the turn's last event (`done` or `error`), or cut off before it. */
export type StreamEnd = 'done' | 'error' | 'closed';

/**
 * Sends a prompt and calls `onEvent` for every event of the turn, in order. Resolves when the
 * stream ends; rejects with an `ApiError` when the server refuses the prompt (its JSON error) or
 * cannot be reached, and with the `AbortError` when `signal` aborts. Aborting only stops
 * listening: the turn keeps running on the server (cancel it with `cancelTurn`).
 */
export async function streamPrompt(
  workspaceId: string,
  request: AgentPromptRequest,
  options: StreamOptions,
): Promise<StreamEnd> {
  return streamTurn(workspacePath(workspaceId, '/agent/prompt'), request, options);
}

/**
 * POSTs to an agent route that answers with a turn (…/agent/prompt, or a report's change:
 * `change.request`, contract §7) and streams its events as streamPrompt does.
 */
export async function streamTurn(
  path: string,
  body: unknown,
  { signal, onOpen, onEvent }: StreamOptions,
): Promise<StreamEnd> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: signal ?? null,
    });
  } catch (error) {
    throw networkError(error, signal);
  }
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    const parsed = errorBodySchema.safeParse(body);
    throw new ApiError(
      response.status,
      parsed.success ? parsed.data.error.code : 'http_error',
      parsed.success ? parsed.data.error.message : `The server answered ${response.status}.`,
    );
  }
  if (!response.body || !(response.headers.get('Content-Type') ?? '').includes('text/event-stream')) {
    throw new ApiError(response.status, 'malformed_stream', 'The server did not answer with an event stream.');
  }

  onOpen?.();
  let end: StreamEnd = 'closed';
  const parser = createSseParser((data) => {
    const event = parseAgentEvent(data);
    if (!event) return;
    if (event.type === 'done' || event.type === 'error') end = event.type;
    onEvent(event);
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw networkError(error, signal);
      }
      if (chunk.done) break;
      parser.push(chunk.value);
    }
    parser.end();
  } finally {
    reader.releaseLock();
  }
  return end;
}

function networkError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return error;
  return new ApiError(0, 'network', 'The connection to the server was lost. Check your connection and try again.');
}

/**
 * The stream's `data:` payloads, one per event, by eventsource-parser (the WHATWG event-stream
 * format: CRLF, LF or CR line ends, comments, multi-line data, chunks cut anywhere). `end()` at
 * the end of the stream still delivers a last event whose blank line never came.
 */
export function createSseParser(dispatch: (data: string) => void) {
  const parser = createParser({ onEvent: (event) => dispatch(event.data) });
  return {
    push: (chunk: string) => parser.feed(chunk),
    // A blank line ends whatever is pending (extra ones dispatch nothing).
    end: () => {
      parser.feed('\n\n');
      parser.reset();
    },
  };
}

/** Asks the server to stop the session's turn; false when no turn was running any more. */
export async function cancelTurn(workspaceId: string, sessionId: string): Promise<boolean> {
  try {
    await apiJson(workspacePath(workspaceId, '/agent/cancel'), { method: 'POST', body: JSON.stringify({ sessionId }) });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && error.code === 'no_turn') return false;
    throw error;
  }
}
