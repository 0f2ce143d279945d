/**
 * The scripted model's Anthropic side: `POST /v1/messages` (streamed as Anthropic's server-sent
 * events, or whole) and `POST /v1/messages/count_tokens`, so Claude Code runs against it with
 * `ANTHROPIC_BASE_URL` and any key. A Messages request is read as the chat request it amounts
 * to (`asChatRequest`): the same script answers it and the same rules count it as an OpenAI
 * request of the same content, so one tokenizer is the truth for both runtimes.
 *
 * Usage is reported the way Anthropic reports it: `input_tokens` is the part of the prompt that
 * is neither read from nor written to the cache, `cache_read_input_tokens` the prefix this
 * request shares with the previous one of its conversation (in whole blocks, as cachedTokens
 * rules), `cache_creation_input_tokens` 0 (nothing is written: the split is what matters).
 */
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { createHash } from 'node:crypto';
import {
  promptTokens,
  type ChatContentPart,
  type ChatMessage,
  type ChatRequest,
  type CountingRules,
} from './prompt-tokens';
import type { HeldAnswers } from './held';
import { answer, type Answer, type Roles, type Script, type ScriptedStep, type ScriptedToolCall } from './script';

type Json = Record<string, unknown>;

/** A Messages API request, as far as counting and answering need it. */
export interface MessagesRequest {
  model: string;
  system?: string | { type: string; text?: string }[];
  messages: { role: string; content: string | Json[] }[];
  tools?: Json[];
  stream?: boolean;
  max_tokens?: number;
}

export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

export interface RecordedMessagesRequest {
  seq: number;
  kind: Answer['kind'] | 'count_tokens';
  body: MessagesRequest;
  /** The same request as the chat request it amounts to: what was counted. */
  chat: ChatRequest;
  usage: AnthropicUsage;
}

export interface AnthropicOptions extends Roles {
  script: Script;
  rules: CountingRules;
  onRequest?: (request: RecordedMessagesRequest) => void;
  /** The leading tokens two requests of one conversation share (the OpenAI side's rule). */
  cached: (before: ChatRequest | undefined, now: ChatRequest) => number;
  /** Where a step that holds its answer waits. */
  held: HeldAnswers;
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A tool result's content as the model reads it: its text, its images as media parts. */
function resultParts(content: unknown): ChatContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((block: Json) =>
    block.type === 'image'
      ? { type: 'image_url', image_url: imageUrl(block) }
      : { type: 'text', text: str(block.text) },
  );
}

function imageUrl(block: Json): { url: string } {
  const source = (block.source ?? {}) as Json;
  return {
    url: source.type === 'base64' ? `data:${str(source.media_type)};base64,${str(source.data)}` : str(source.url),
  };
}

/** One Messages message as chat messages: text and images, tool calls, each tool result a `tool` message. */
function chatMessages(message: MessagesRequest['messages'][number]): ChatMessage[] {
  const blocks: Json[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  const own: ChatMessage = { role: message.role, content: [] };
  const parts = own.content as ChatContentPart[];
  const results: ChatMessage[] = [];
  for (const block of blocks) {
    if (block.type === 'text') parts.push({ type: 'text', text: str(block.text) });
    else if (block.type === 'image') parts.push({ type: 'image_url', image_url: imageUrl(block) });
    else if (block.type === 'thinking') own.reasoning_content = (own.reasoning_content ?? '') + str(block.thinking);
    else if (block.type === 'tool_use')
      (own.tool_calls ??= []).push({
        id: str(block.id),
        type: 'function',
        function: { name: str(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    else if (block.type === 'tool_result')
      results.push({ role: 'tool', tool_call_id: str(block.tool_use_id), content: resultParts(block.content) });
  }
  // Tool results answer the calls before the user's own words (the order the API reads them in);
  // text sent in the same message as results is what the runtime adds to them (a loaded skill).
  if (results.length > 0 && message.role === 'user') own.withToolResult = true;
  return [...results, ...(parts.length > 0 || own.tool_calls || own.reasoning_content ? [own] : [])];
}

/** The chat request a Messages request amounts to: its system blocks one system message, its tools as sent. */
export function asChatRequest(body: MessagesRequest): ChatRequest {
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  const messages: ChatMessage[] = system.length
    ? [{ role: 'system', content: system.map((b) => ({ type: 'text', text: str(b.text) })) }]
    : [];
  for (const message of body.messages) messages.push(...chatMessages(message));
  return { model: body.model, messages, ...(body.tools?.length ? { tools: body.tools } : {}) };
}

/**
 * The request as the script reads it: Claude Code puts its reminders (instructions, environment)
 * and its notes of a local command (`/compact`) as text blocks before the user's own words, which
 * the script matches on.
 */
function ownWordsOnly(chat: ChatRequest): ChatRequest {
  const own = (part: ChatContentPart) => !/^<(system-reminder|local-command-|command-)/.test(part.text ?? '');
  return {
    ...chat,
    messages: chat.messages.map((m) =>
      m.role === 'user' && Array.isArray(m.content) ? { ...m, content: m.content.filter(own) } : m,
    ),
  };
}

/** Claude Code's conversations: the same model and first user message. */
function conversationKey(chat: ChatRequest): string {
  const first = chat.messages.find((m) => m.role === 'user');
  return createHash('sha256')
    .update(JSON.stringify([chat.model, first ?? null]))
    .digest('hex');
}

function toolUseId(seq: number, index: number, tool: ScriptedToolCall): string {
  const digest = createHash('sha256').update(`${seq}:${index}:${tool.name}`).digest('hex');
  return `toolu_scripted${digest.slice(0, 16)}`;
}

/** Adds the Messages API to the scripted model's app. */
export function addMessagesApi(app: Hono, options: AnthropicOptions): void {
  let seq = 0;
  const previous = new Map<string, ChatRequest>();

  app.post('/v1/messages/count_tokens', async (c) => {
    const body = (await c.req.json()) as MessagesRequest;
    const chat = asChatRequest(body);
    const input = promptTokens(chat, options.rules);
    const usage = { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
    options.onRequest?.({ seq: ++seq, kind: 'count_tokens', body, chat, usage });
    return c.json({ input_tokens: input });
  });

  app.post('/v1/messages', async (c) => {
    const body = (await c.req.json()) as MessagesRequest;
    const chat = asChatRequest(body);
    const reply = answer(options.script, ownWordsOnly(chat), options);
    const step = reply.kind === 'step' ? reply.step : null;
    const key = conversationKey(chat);
    const prompt = promptTokens(chat, options.rules);
    const cacheRead = Math.min(prompt, options.cached(previous.get(key), chat));
    if (reply.kind !== 'title') previous.set(key, chat);
    const number = ++seq;
    const text = step ? (step.text ?? '') : (reply as { text: string }).text;
    const tools = (step?.tools ?? []).map((tool, index) => ({ id: toolUseId(number, index, tool), ...tool }));
    const output = Math.max(1, options.rules.count(`${text}${tools.map((t) => JSON.stringify(t.args)).join('')}`));
    const usage: AnthropicUsage = {
      input_tokens: prompt - cacheRead,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cacheRead,
      output_tokens: output,
    };
    options.onRequest?.({ seq: number, kind: reply.kind, body, chat, usage });
    // A slow or held answer: a turn the tests stop or crash mid-call.
    await wait(step, options.held, c.req.raw.signal);
    if (step?.fail) return c.json({ type: 'error', error: { type: 'api_error', message: step.fail.message } }, 500);
    const content: Json[] = [
      ...(text ? [{ type: 'text', text }] : []),
      ...tools.map((t) => ({ type: 'tool_use', id: t.id, name: t.name, input: t.args })),
    ];
    const message = {
      id: `msg_scripted_${number}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      stop_reason: tools.length > 0 ? 'tool_use' : 'end_turn',
      stop_sequence: null,
    };
    if (!body.stream) return c.json({ ...message, content, usage });
    return streamMessage(c, { ...message, usage }, content);
  });
}

/** A step's wait: its delay, or until released; either ends early if the client goes away. */
async function wait(step: ScriptedStep | null, held: HeldAnswers, signal: AbortSignal): Promise<void> {
  if (step?.hold) await held.wait(signal);
  const ms = step?.delayMs ?? 0;
  if (!ms || signal.aborted) return;
  await new Promise<void>((done) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), done()), { once: true });
  });
}

/** A message as Anthropic streams it: start, each block (start, deltas, stop), the usage delta, stop. */
function streamMessage(c: Context, message: Json & { usage: AnthropicUsage; stop_reason: string }, content: Json[]) {
  return streamSSE(c, async (sse) => {
    const send = (event: string, data: Json) => sse.writeSSE({ event, data: JSON.stringify({ type: event, ...data }) });
    const { stop_reason, usage, ...rest } = message;
    await send('message_start', {
      message: { ...rest, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    });
    for (const [index, block] of content.entries()) {
      if (block.type === 'text') {
        await send('content_block_start', { index, content_block: { type: 'text', text: '' } });
        for (const piece of str(block.text).match(/[\s\S]{1,80}/g) ?? [])
          await send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      } else {
        await send('content_block_start', { index, content_block: { ...block, input: {} } });
        const partial = JSON.stringify(block.input);
        await send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } });
      }
      await send('content_block_stop', { index });
    }
    await send('message_delta', {
      delta: { stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    await send('message_stop', {});
  });
}
