/**
 * The scripted model: a local OpenAI-compatible chat-completions endpoint that answers from a
 * script and records every request it receives. OpenCode talks to it through its built-in
 * `@ai-sdk/openai-compatible` provider, so an agent turn runs for real without any API key.
 *
 * Usage is reported the way OpenAI reports it: `prompt_tokens` counts the whole prompt
 * (see prompt-tokens.ts) and `prompt_tokens_details.cached_tokens` the part of it that repeats
 * the previous request's prefix, in 128-token blocks from 1,024 tokens on.
 *
 * It can behave like a provider family (ScriptedFamily): count with another tokenizer, charge
 * images by a family's vision rule, never count reasoning sent back (a local model), and spend
 * hidden reasoning that it reports as reasoning tokens (OpenAI) or inside the output (Anthropic)
 * and keeps in the prompts that follow, for the rest of the turn or the session.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { createHash } from 'node:crypto';
import type { ProviderFamily } from '../core';
import type { Encoding } from '../report/estimator';
import {
  countingRules,
  DEFAULT_RULES,
  messagePieces,
  messageTokens,
  pieceTokens,
  promptTokens,
  REPLY_PRIMING_TOKENS,
  toolSchemaTokens,
  type ChatRequest,
  type CountingRules,
} from './prompt-tokens';
import { answer, hiddenInRequest, type Answer, type Roles, type Script } from './script';
import { addMessagesApi, type RecordedMessagesRequest } from './anthropic';
import { completionBody, streamCompletion, toolCallsOf } from './chat-completions';
import { HeldAnswers } from './held';

export interface RecordedRequest {
  /** 1-based, in arrival order. */
  seq: number;
  kind: Answer['kind'];
  body: ChatRequest;
  usage: ReportedUsage;
  /** What the prompt held beyond its visible text: hidden reasoning kept, images by the vision rule. */
  charged: { hidden: number; media: number };
}

export interface ReportedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

/** How the model behaves like a provider family (default: o200k, flat image cost, no hidden reasoning). */
export interface ScriptedFamily {
  encoding?: Encoding;
  /** Whose published rule images cost (default: a flat 85 tokens). */
  vision?: ProviderFamily | 'flat';
  /** Whether reasoning sent back with earlier messages counts (false: a local model that drops it). */
  receivesReasoning?: boolean;
  /** How long hidden reasoning (ScriptedStep.hidden) stays in the prompt: the turn, or the session. */
  hiddenReasoning?: 'turn' | 'session';
  /** Reported as `completion_tokens_details.reasoning_tokens` (OpenAI) or only inside the output (Anthropic). */
  reportsReasoningTokens?: boolean;
}

export interface ScriptedModelOptions extends Roles {
  script: Script;
  /** Called with every request as it is answered (the recorder writes them down). */
  onRequest?: (request: RecordedRequest) => void;
  /** The tokenizer the model counts prompts with (default o200k_base). */
  encoding?: Encoding;
  family?: ScriptedFamily;
  /** Called with every request to Anthropic's Messages API (Claude Code's), as it is answered. */
  onMessagesRequest?: (request: RecordedMessagesRequest) => void;
  /** Where the steps that `hold` wait (startScriptedModel's, released by its `release`). */
  held?: HeldAnswers;
}

/** The counting rules of a family. */
export function familyCounting(family: ScriptedFamily = {}, encoding?: Encoding): CountingRules {
  const chosen = family.encoding ?? encoding;
  if (!chosen && !family.vision && family.receivesReasoning !== false) return DEFAULT_RULES;
  return countingRules({
    ...(chosen ? { encoding: chosen } : {}),
    ...(family.vision ? { vision: family.vision } : {}),
    reasoning: family.receivesReasoning ?? true,
  });
}

const CACHE_BLOCK = 128;
const CACHE_MINIMUM = 1024;

export function scriptedModelApp(options: ScriptedModelOptions): Hono {
  const app = new Hono();
  const family = options.family ?? {};

  app.get('/v1/models', (c) =>
    c.json({
      object: 'list',
      data: [...new Set(['scripted', ...options.smallModels])].map((id) => ({ id, object: 'model' })),
    }),
  );

  // Anthropic's API counts with Claude's tokenizer (unless the family says otherwise).
  const anthropicRules = familyCounting({ ...family, encoding: family.encoding ?? options.encoding ?? 'claude' });
  addMessagesApi(app, {
    script: options.script,
    smallModels: options.smallModels,
    rules: anthropicRules,
    cached: (before, now) => cachedTokens(before, now, anthropicRules),
    held: options.held ?? new HeldAnswers(),
    ...(options.onMessagesRequest ? { onRequest: options.onMessagesRequest } : {}),
  });
  addChatCompletionsApi(app, options, family);
  return app;
}

/** OpenAI's chat completions: each request answered from the script, counted as the family counts, recorded. */
function addChatCompletionsApi(app: Hono, options: ScriptedModelOptions, family: ScriptedFamily): void {
  const rules = familyCounting(family, options.encoding);
  let seq = 0;
  // The previous request of each conversation, for the cached prefix.
  const previous = new Map<string, ChatRequest>();

  app.post('/v1/chat/completions', async (c) => {
    const body = (await c.req.json()) as ChatRequest;
    const reply = answer(options.script, body, options);
    const key = conversationKey(body);
    const step = reply.kind === 'step' ? reply.step : null;
    const hiddenKept = family.hiddenReasoning ? hiddenInRequest(options.script, body, family.hiddenReasoning) : 0;
    const charged = { hidden: hiddenKept, media: mediaTokens(body, rules) };
    // The cached prefix is measured when the usage is made: after any scripted delay, as sent.
    const usageFor = (text: string, reasoning = ''): ReportedUsage =>
      reportedUsage(family, rules, {
        prompt: promptTokens(body, rules) + hiddenKept,
        cached: cachedTokens(previous.get(key), body, rules),
        completion: text,
        reasoning,
        hidden: step?.hidden ?? 0,
      });
    if (step?.delayMs) await new Promise((done) => setTimeout(done, step.delayMs));
    if (step?.fail) {
      options.onRequest?.({ seq: ++seq, kind: reply.kind, body, usage: usageFor(''), charged });
      return c.json({ error: { message: step.fail.message, type: 'scripted_error' } }, step.fail.status as 500);
    }
    const text = step ? (step.text ?? '') : (reply as { text: string }).text;
    const toolCalls = toolCallsOf(step?.tools ?? [], seq + 1);
    const usage = usageFor(`${text}${toolCalls.map((t) => t.function.arguments).join('')}`, step?.reasoning ?? '');
    options.onRequest?.({ seq: ++seq, kind: reply.kind, body, usage, charged });
    if (reply.kind !== 'title') previous.set(key, body);
    const completion = {
      id: `chatcmpl-scripted-${seq}`,
      model: body.model,
      text,
      reasoning: step?.reasoning,
      toolCalls,
      usage,
    };
    return body.stream ? streamCompletion(c, completion) : c.json(completionBody(completion));
  });
}

/** Images and other media in the prompt, charged by the family's vision rule. */
function mediaTokens(body: ChatRequest, rules: CountingRules): number {
  return body.messages.reduce(
    (n, m) => n + messagePieces(m).reduce((k, p) => k + (p.kind === 'media' ? pieceTokens(p, rules) : 0), 0),
    0,
  );
}

/**
 * Usage as OpenAI reports it: hidden reasoning spent counts in the completion, and as reasoning
 * tokens unless the family reports it only inside the output (Anthropic).
 */
function reportedUsage(
  family: ScriptedFamily,
  rules: CountingRules,
  counts: { prompt: number; cached: number; completion: string; reasoning: string; hidden: number },
): ReportedUsage {
  const thought = (counts.reasoning ? rules.count(counts.reasoning) : 0) + counts.hidden;
  const completion = Math.max(1, rules.count(counts.completion) + thought);
  return {
    prompt_tokens: counts.prompt,
    completion_tokens: completion,
    total_tokens: counts.prompt + completion,
    prompt_tokens_details: { cached_tokens: counts.cached },
    ...(thought > 0 && family.reportsReasoningTokens !== false
      ? { completion_tokens_details: { reasoning_tokens: thought } }
      : {}),
  };
}

/** Requests of one conversation share their system prompt and first user message. */
function conversationKey(request: ChatRequest): string {
  return createHash('sha256')
    .update(JSON.stringify([request.model, request.messages.slice(0, 2)]))
    .digest('hex');
}

/** The leading tokens this request shares with the previous one, in whole cache blocks. */
export function cachedTokens(
  before: ChatRequest | undefined,
  now: ChatRequest,
  rules: CountingRules = DEFAULT_RULES,
): number {
  if (!before || JSON.stringify(before.tools ?? []) !== JSON.stringify(now.tools ?? [])) return 0;
  let shared = REPLY_PRIMING_TOKENS + toolSchemaTokens(now.tools, rules);
  for (let i = 0; i < Math.min(before.messages.length, now.messages.length); i++) {
    if (JSON.stringify(before.messages[i]) !== JSON.stringify(now.messages[i])) break;
    shared += messageTokens(now.messages[i]!, rules);
  }
  return shared < CACHE_MINIMUM ? 0 : Math.floor(shared / CACHE_BLOCK) * CACHE_BLOCK;
}

export interface RunningModel {
  url: string;
  port: number;
  /** Lets every held answer (a step's `hold`) go, from now on. */
  release: () => void;
  close: () => Promise<void>;
}

export async function startScriptedModel(options: ScriptedModelOptions & { port?: number }): Promise<RunningModel> {
  const held = options.held ?? new HeldAnswers();
  const app = scriptedModelApp({ ...options, held });
  const server: ServerType = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: options.port ?? 0 });
  await new Promise<void>((ok, fail) => {
    server.once('listening', ok);
    server.once('error', fail);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    release: () => held.release(),
    close: () => {
      held.release();
      return new Promise<void>((done) => server.close(() => done()));
    },
  };
}
