/**
 * A scripted model's answers. A script is a list of turns; a turn is matched by a phrase of
 * the user prompt that started it, and answers one step per model call: the first call after
 * that prompt gets step 0, the call after its tool results step 1, and so on. Choosing the
 * step from the request alone keeps the model stateless, so the same script answers the same
 * conversation the same way however often it is replayed. Pure.
 */
import type { ChatMessage, ChatRequest } from './prompt-tokens';

export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
}

export interface ScriptedStep {
  /** Visible reasoning, streamed as `reasoning_content` before the answer. */
  reasoning?: string;
  /**
   * Reasoning tokens this step spends that nobody sees (as OpenAI's and Anthropic's models do):
   * reported in its usage, and — where the provider keeps it (ScriptedFamily.hiddenReasoning) —
   * counted again in the prompts that follow.
   */
  hidden?: number;
  text?: string;
  tools?: ScriptedToolCall[];
  /** Answer with this HTTP status and message instead (a provider error). */
  fail?: { status: number; message: string };
  /** Wait this long before answering (cancellation tests). */
  delayMs?: number;
  /**
   * Answer only once the model is released (`RunningModel.release()`, for good) or when the
   * client goes away: a call still running whenever a test interrupts it. Anthropic's Messages
   * API only.
   */
  hold?: boolean;
}

export interface ScriptedTurn {
  /** A phrase of the user's own words (the message's first text) that starts this turn (case-sensitive substring). */
  when: string;
  /**
   * Only when the conversation before that message already holds this text (what the agent knows
   * from earlier turns): a turn that refers to it instead of reading it again.
   */
  knows?: string;
  steps: ScriptedStep[];
}

export interface Script {
  turns: ScriptedTurn[];
  /** The answer to a compaction (summary) request. */
  summary: string;
  /** The answer to a title request (the small model). */
  title: string;
  /** The answer when no turn matches, or a turn has run out of steps. */
  fallback: string;
}

export type Answer =
  | { kind: 'step'; step: ScriptedStep; turn: number; index: number }
  | { kind: 'summary'; text: string }
  | { kind: 'title'; text: string }
  | { kind: 'fallback'; text: string };

export interface Roles {
  /** Model ids that only ever get title and other side requests. */
  smallModels: readonly string[];
}

/** OpenCode's compaction request carries no tools and ends with its summary instruction. */
function isCompaction(request: ChatRequest): boolean {
  return (request.tools?.length ?? 0) === 0 && /summar/i.test(textOf(request.messages.at(-1)));
}

/**
 * Text the runtime sent with a tool's result in one message (Claude Code's loaded skill, in the
 * Messages API's user message that carries the `tool_result`: anthropic.ts marks it), never the
 * user's words: no new turn. Position alone cannot tell: after a refused call OpenCode ends the
 * turn, and the user's next prompt follows the tool's result directly.
 */
function withToolResult(message: ChatMessage): boolean {
  return message.withToolResult === true;
}

/** The user's own words: the first text of a message (workspace context and attachments follow it). */
function ownWords(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) return message.content.find((part) => part.text !== undefined)?.text ?? '';
  return '';
}

export function textOf(message: ChatMessage | undefined): string {
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) return message.content.map((part) => part.text ?? '').join('\n');
  return '';
}

/** The turn a user message starts (the first that matches), given the conversation before it. */
function turnOf(script: Script, messages: readonly ChatMessage[], at: number): number {
  const text = ownWords(messages[at]!);
  let before: string | null = null;
  return script.turns.findIndex((t) => {
    if (!text.includes(t.when)) return false;
    if (t.knows === undefined) return true;
    before ??= messages.slice(0, at).map(textOf).join('\n');
    return before.includes(t.knows);
  });
}

export function answer(script: Script, request: ChatRequest, roles: Roles): Answer {
  if (roles.smallModels.includes(request.model)) return { kind: 'title', text: script.title };
  if (isCompaction(request)) return { kind: 'summary', text: script.summary };
  // The newest user message that starts a scripted turn; the calls since it pick the step.
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role !== 'user' || withToolResult(message)) continue;
    const turn = turnOf(script, request.messages, i);
    if (turn < 0) continue;
    const index = request.messages.slice(i + 1).filter((m) => m.role === 'assistant').length;
    const step = script.turns[turn]!.steps[index];
    return step ? { kind: 'step', step, turn, index } : { kind: 'fallback', text: script.fallback };
  }
  return { kind: 'fallback', text: script.fallback };
}

/**
 * The hidden reasoning a request carries, by the steps its assistant messages answered: every
 * earlier step of the session (`session`), or only those of the current turn (`turn`: dropped at
 * the next user message). A message of a turn the script does not know carries none.
 */
export function hiddenInRequest(script: Script, request: ChatRequest, scope: 'turn' | 'session'): number {
  let turn: ScriptedTurn | undefined;
  let step = 0;
  let total = 0;
  let current = 0;
  for (const [index, message] of request.messages.entries()) {
    if (message.role === 'user') {
      const text = ownWords(message);
      // Media moved out of a tool result come as a user message: not a new turn.
      if (text.startsWith('Attached media from tool result')) continue;
      turn = script.turns[turnOf(script, request.messages, index)];
      step = 0;
      current = 0;
      continue;
    }
    if (message.role !== 'assistant') continue;
    const hidden = turn?.steps[step]?.hidden ?? 0;
    step++;
    total += hidden;
    current += hidden;
  }
  return scope === 'session' ? total : current;
}
