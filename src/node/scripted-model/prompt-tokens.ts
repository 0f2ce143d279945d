/**
 * How the scripted model counts the prompt of a chat-completions request, the way a provider
 * does: the text of every message, the tool calls and the tool schemas, tokenized with the
 * provider's tokenizer (o200k_base unless told otherwise), plus a fixed framing cost per message
 * (OpenAI's published rule of thumb: 3 tokens a message and 3 to prime the reply), images by the
 * provider's vision rule, and earlier reasoning only where the provider receives it. One rule,
 * used by the model server to report `usage` and by the ground-truth tests to split a recorded
 * request by source. Hidden reasoning a provider keeps is not in the request: the server adds it.
 */
import { imageSize } from 'image-size';
import { ASSUMED_IMAGE, familyRules, type Encoding, type ProviderFamily } from '../core';
import { encodingCounter } from '../report/estimator';

/** Counts the tokens of a text: the model's tokenizer. */
export type TokenCounter = (text: string) => number;

export const MESSAGE_FRAMING_TOKENS = 3;
export const REPLY_PRIMING_TOKENS = 3;

export interface ChatToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export interface ChatContentPart {
  type: string;
  text?: string;
  image_url?: { url?: string } | string;
}

export interface ChatMessage {
  role: string;
  content?: string | ChatContentPart[] | null;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  reasoning_content?: string;
  reasoning?: string;
  /** The scripted model's own mark (never on the wire): text sent in one message with tool results. */
  withToolResult?: true;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  stream?: boolean;
}

/** Fixed cost of an image where the provider family's rule is not asked for. */
export const MEDIA_PART_TOKENS = 85;

/** How a provider counts a request. */
export interface CountingRules {
  count: TokenCounter;
  /** What an image costs, from its data URL (null: not readable). */
  media: (url: string | null) => number;
  /** Whether reasoning sent back with earlier assistant messages counts (a local model may drop it). */
  reasoning: boolean;
}

/** The width and height of an image in a data URL, or null. */
export function imageDimensions(url: string | null): { width: number; height: number } | null {
  const match = url ? /^data:[^;,]*;base64,(.*)$/s.exec(url) : null;
  if (!match) return null;
  try {
    const { width, height } = imageSize(Buffer.from(match[1]!, 'base64'));
    return width && height ? { width, height } : null;
  } catch {
    return null;
  }
}

/** Counting rules: a tokenizer, a vision rule (a family's, or a flat cost), reasoning received or not. */
export function countingRules(
  options: {
    encoding?: Encoding;
    vision?: ProviderFamily | 'flat';
    reasoning?: boolean;
  } = {},
): CountingRules {
  const vision = options.vision ?? 'flat';
  return {
    count: encodingCounter(options.encoding ?? 'o200k_base'),
    media: (url) => {
      if (vision === 'flat') return MEDIA_PART_TOKENS;
      const size = imageDimensions(url) ?? ASSUMED_IMAGE;
      return familyRules(vision).imageTokens(size.width, size.height);
    },
    reasoning: options.reasoning ?? true,
  };
}

export const DEFAULT_RULES: CountingRules = countingRules();

export interface Piece {
  kind: 'text' | 'reasoning' | 'tool_call' | 'media';
  text: string;
  callId?: string;
  /** An image's data URL. */
  url?: string | null;
}

/** The pieces of one message that cost tokens, each with its text, in wire order. */
export function messagePieces(message: ChatMessage): Piece[] {
  const out: Piece[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') out.push({ kind: 'reasoning', text: reasoning });
  if (typeof message.content === 'string') out.push({ kind: 'text', text: message.content });
  else if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (part.type === 'text' && typeof part.text === 'string') out.push({ kind: 'text', text: part.text });
      else {
        const image = part.image_url;
        const url = typeof image === 'string' ? image : (image?.url ?? null);
        out.push({ kind: 'media', text: '', url });
      }
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

export function pieceTokens(piece: Piece, rules: CountingRules = DEFAULT_RULES): number {
  if (piece.kind === 'media') return rules.media(piece.url ?? null);
  if (piece.kind === 'reasoning' && !rules.reasoning) return 0;
  return rules.count(piece.text);
}

export function messageTokens(message: ChatMessage, rules: CountingRules = DEFAULT_RULES): number {
  return MESSAGE_FRAMING_TOKENS + messagePieces(message).reduce((n, piece) => n + pieceTokens(piece, rules), 0);
}

export function toolSchemaTokens(tools: readonly unknown[] | undefined, rules: CountingRules = DEFAULT_RULES): number {
  return tools && tools.length > 0 ? rules.count(JSON.stringify(tools)) : 0;
}

/** The visible prompt of a request as the provider counts it (hidden reasoning it keeps comes on top). */
export function promptTokens(request: ChatRequest, rules: CountingRules = DEFAULT_RULES): number {
  return (
    REPLY_PRIMING_TOKENS +
    toolSchemaTokens(request.tools, rules) +
    request.messages.reduce((n, message) => n + messageTokens(message, rules), 0)
  );
}
