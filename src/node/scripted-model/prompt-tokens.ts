/**
 * How the scripted model counts the prompt of a chat-completions request, the way a provider
 * does: the text of every message, the tool calls and the tool schemas, tokenized with
 * o200k_base, plus a fixed framing cost per message (OpenAI's published rule of thumb: 3 tokens
 * a message and 3 to prime the reply). One rule, used by the model server to report `usage`
 * and by the ground-truth tests to split a recorded request by source. The tokenizer is
 * o200k_base unless the model is told to count like another one (cl100k_base): a provider whose
 * tokenizer is not the report's.
 */
import { encodingCounter } from '../report/estimator';

const o200k = encodingCounter('o200k_base');

/** Counts the tokens of a text: the model's tokenizer. */
export type TokenCounter = (text: string) => number;

export const MESSAGE_FRAMING_TOKENS = 3;
export const REPLY_PRIMING_TOKENS = 3;

export interface ChatToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export interface ChatMessage {
  role: string;
  content?: string | { type: string; text?: string; image_url?: unknown }[] | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  reasoning_content?: string;
  reasoning?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  stream?: boolean;
}

/** Fixed cost of an image or other non-text content part (no tokenizer sees its pixels here). */
export const MEDIA_PART_TOKENS = 85;

/** The pieces of one message that cost tokens, each with its text, in wire order. */
export function messagePieces(
  message: ChatMessage,
): { kind: 'text' | 'reasoning' | 'tool_call' | 'media'; text: string; callId?: string }[] {
  const out: ReturnType<typeof messagePieces> = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') out.push({ kind: 'reasoning', text: reasoning });
  if (typeof message.content === 'string') out.push({ kind: 'text', text: message.content });
  else if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (part.type === 'text' && typeof part.text === 'string') out.push({ kind: 'text', text: part.text });
      else out.push({ kind: 'media', text: '' });
    }
  }
  for (const call of message.tool_calls ?? []) {
    out.push({
      kind: 'tool_call',
      text: `${call.function?.name ?? ''} ${call.function?.arguments ?? ''}`,
      ...(call.id ? { callId: call.id } : {}),
    });
  }
  return out;
}

export function pieceTokens(piece: ReturnType<typeof messagePieces>[number], count: TokenCounter = o200k): number {
  return piece.kind === 'media' ? MEDIA_PART_TOKENS : count(piece.text);
}

export function messageTokens(message: ChatMessage, count: TokenCounter = o200k): number {
  return MESSAGE_FRAMING_TOKENS + messagePieces(message).reduce((n, piece) => n + pieceTokens(piece, count), 0);
}

export function toolSchemaTokens(tools: readonly unknown[] | undefined, count: TokenCounter = o200k): number {
  return tools && tools.length > 0 ? count(JSON.stringify(tools)) : 0;
}

/** The prompt size the scripted model reports for a request. */
export function promptTokens(request: ChatRequest, count: TokenCounter = o200k): number {
  return (
    REPLY_PRIMING_TOKENS +
    toolSchemaTokens(request.tools, count) +
    request.messages.reduce((n, message) => n + messageTokens(message, count), 0)
  );
}
