/**
 * The scripted model's replies in OpenAI's chat-completions shapes: one JSON completion, or the
 * same as a stream of server-sent chunks (role, reasoning, text in pieces, tool calls, finish,
 * then the usage chunk and `[DONE]`).
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { createHash } from 'node:crypto';
import type { ScriptedToolCall } from './script';

export interface ToolCallChunk {
  index: number;
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** What one reply says, whichever shape it is sent in. */
export interface Completion {
  id: string;
  model: string;
  text: string;
  reasoning: string | undefined;
  toolCalls: ToolCallChunk[];
  usage: object;
}

/** Tool calls with ids stable for a request's sequence number, so a recording replays alike. */
export function toolCallsOf(tools: readonly ScriptedToolCall[], seq: number): ToolCallChunk[] {
  return tools.map((tool, index) => ({
    index,
    id: `call_${createHash('sha256').update(`${seq}:${index}:${tool.name}`).digest('hex').slice(0, 16)}`,
    type: 'function' as const,
    function: { name: tool.name, arguments: JSON.stringify(tool.args) },
  }));
}

const finishOf = (reply: Completion) => (reply.toolCalls.length > 0 ? 'tool_calls' : 'stop');

/** The whole reply at once (a request without `stream`). */
export function completionBody(reply: Completion) {
  return {
    id: reply.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: reply.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text || null,
          ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
          ...(reply.toolCalls.length ? { tool_calls: reply.toolCalls.map(({ index: _, ...call }) => call) } : {}),
        },
        finish_reason: finishOf(reply),
      },
    ],
    usage: reply.usage,
  };
}

/** The reply streamed as chat.completion.chunk events. */
export function streamCompletion(c: Context, reply: Completion): Response {
  return streamSSE(c, async (sse) => {
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      sse.writeSSE({
        data: JSON.stringify({
          id: reply.id,
          object: 'chat.completion.chunk',
          created: Math.floor(Date.now() / 1000),
          model: reply.model,
          choices: [{ index: 0, delta, finish_reason: finishReason }],
        }),
      });
    await chunk({ role: 'assistant', content: '' });
    if (reply.reasoning) await chunk({ reasoning_content: reply.reasoning });
    // Text in a few pieces, so a client sees it stream.
    for (const piece of reply.text.match(/[\s\S]{1,80}/g) ?? []) await chunk({ content: piece });
    for (const call of reply.toolCalls) await chunk({ tool_calls: [call] });
    await chunk({}, finishOf(reply));
    await sse.writeSSE({
      data: JSON.stringify({
        id: reply.id,
        object: 'chat.completion.chunk',
        created: 0,
        model: reply.model,
        choices: [],
        usage: reply.usage,
      }),
    });
    await sse.writeSSE({ data: '[DONE]' });
  });
}
