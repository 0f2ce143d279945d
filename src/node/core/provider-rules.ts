/**
 * What each provider keeps of earlier reasoning, as the provider documents it: one rule per
 * provider family and API, keyed from the model the rows name ("provider/model"), each with its
 * source. The calibration walks a session under its rule, and the session's counts confirm it
 * rather than decide it (reasoning-policy.ts: only overwhelming counts overturn a rule). Where no
 * rule is documented (Google, local models behind a chat template, the rest), the rule answers
 * nothing and the counts decide, said as such. The sources and their quotes: docs/opencode.md.
 * Pure.
 */
import type { ReasoningRule } from './types';

export type { ReasoningRule };

const OPENAI_TURN: ReasoningRule = {
  id: 'openai-responses-current-turn',
  provider: 'OpenAI Responses API, reasoning models up to GPT-5.5 (o-series, gpt-5 … gpt-5.5, codex)',
  says: "reasoning is kept within a turn (across its tool calls) and the earlier turns' reasoning is dropped at a new user message",
  answers: { keepsHidden: true, dropsAtTurn: true, reasoningTurnOnly: true },
  source: {
    url: 'https://cookbook.openai.com/examples/responses_api/reasoning_items',
    quote:
      'In turn 2, any reasoning items from turn 1 are ignored and removed, since the model does not reuse reasoning items from previous turns.',
  },
};

const OPENAI_ALL_TURNS: ReasoningRule = {
  id: 'openai-responses-all-turns',
  provider: 'OpenAI Responses API, GPT-5.6 and newer',
  says: "reasoning.context chooses; OpenCode does not set it, so the model's default applies, which keeps earlier turns' reasoning (all_turns)",
  answers: { keepsHidden: true, dropsAtTurn: false, reasoningTurnOnly: false },
  source: {
    url: 'https://openrouter.ai/docs/client-sdks/typescript/models/reasoningcontext',
    quote:
      '`all_turns` includes reasoning from earlier turns passed in input; `current_turn` limits to the current turn only. Only supported by OpenAI GPT-5.6 and newer.',
  },
};

const ANTHROPIC_LAST_TURN: ReasoningRule = {
  id: 'anthropic-last-turn',
  provider: 'Anthropic Messages API, Claude Opus 4.1, Sonnet 4.5, Haiku 4.5 and earlier',
  says: "thinking is kept for the current assistant turn (its tool loop) and earlier turns' thinking is stripped at a new user message",
  answers: { keepsHidden: true, dropsAtTurn: true, reasoningTurnOnly: true },
  source: {
    url: 'https://platform.claude.com/docs/en/build-with-claude/context-windows',
    quote:
      'previous thinking blocks are automatically stripped from the context window calculation by the Claude API and are not part of the conversation history that the model "sees" for subsequent turns',
  },
};

const ANTHROPIC_ALL: ReasoningRule = {
  id: 'anthropic-all-turns',
  provider: 'Anthropic Messages API, Claude Opus 4.5+, Sonnet 4.6+ and Mythos',
  says: 'every earlier thinking block is kept in the context and billed as input',
  answers: { keepsHidden: true, dropsAtTurn: false, reasoningTurnOnly: false },
  source: {
    url: 'https://platform.claude.com/docs/en/build-with-claude/extended-thinking',
    quote:
      'Claude Opus 4.5 and later Opus models keep all prior thinking blocks … Claude Sonnet 4.6 and later Sonnet models keep all',
  },
};

const DEEPSEEK_THINKING: ReasoningRule = {
  id: 'deepseek-thinking-mode',
  provider: 'DeepSeek thinking mode (V3.2, V4; Chat Completions with reasoning_content)',
  says: "the reasoning of a turn that made tool calls is kept for the rest of the session; a turn's without tool calls is ignored from the next user message on",
  answers: { receives: true, reasoningTurnOnly: true, keepsToolTurns: true },
  source: {
    url: 'https://api-docs.deepseek.com/guides/thinking_mode',
    quote:
      'For turns that do perform tool calls, the reasoning_content must be fully passed back to the API in all subsequent requests.',
  },
};

const DEEPSEEK_REASONER: ReasoningRule = {
  id: 'deepseek-reasoner',
  provider: 'DeepSeek R1 (deepseek-reasoner)',
  says: "earlier rounds' reasoning is never concatenated into the context",
  answers: { receives: false },
  source: {
    url: 'https://api-docs.deepseek.com/guides/reasoning_model',
    quote: '在下一轮对话中，之前轮输出的思维链内容不会被拼接到上下文中',
  },
};

const none = (id: string, provider: string, says: string): ReasoningRule => ({ id, provider, says, answers: {} });

const GOOGLE = none(
  'google-undocumented',
  'Google Gemini',
  'no documented rule on whether returned thoughts and their signatures are counted: the counts decide',
);
const LOCAL = none(
  'local-chat-template',
  'a local model server (Ollama, LM Studio, llama.cpp)',
  "the model's chat template decides what of the reasoning sent back it renders (usually none): the counts decide",
);
const ANTHROPIC_UNKNOWN = none(
  'anthropic-unknown-model',
  'Anthropic, a model whose generation is not known',
  "the rule depends on the model's generation, which its id does not tell: the counts decide",
);
const OTHER = none('undocumented', 'this provider', 'no documented rule known: the counts decide');

const LOCAL_PROVIDERS = /^(ollama|lmstudio|lm-studio|llama\.?cpp|llama-server|vllm|local)/;

/** The rule for one model, by the ids the rows carry ("provider/model"). */
export function reasoningRule(model: string | undefined): ReasoningRule {
  const [provider = '', ...rest] = (model ?? '').toLowerCase().split('/');
  const id = rest.length > 0 ? rest.join('/') : provider;
  if (LOCAL_PROVIDERS.test(provider)) return LOCAL;
  if (id.includes('deepseek')) return /reasoner|-r1/.test(id) ? DEEPSEEK_REASONER : DEEPSEEK_THINKING;
  if (/claude/.test(id)) return anthropicRule(id);
  const gpt = /(?:^|\/)gpt-(\d+)(?:\.(\d+))?/.exec(id);
  if (gpt)
    return Number(gpt[1]) > 5 || (Number(gpt[1]) === 5 && Number(gpt[2] ?? 0) >= 6) ? OPENAI_ALL_TURNS : OPENAI_TURN;
  if (/(?:^|\/)(o[1-9](?:-|$)|codex)/.test(id)) return OPENAI_TURN;
  if (provider.includes('google') || provider.includes('vertex') || id.includes('gemini')) return GOOGLE;
  return OTHER;
}

/** Claude's rule by class and version: claude-sonnet-4-5, claude-opus-4-1-20250805, claude-3-7-sonnet, claude-sonnet-5. */
function anthropicRule(id: string): ReasoningRule {
  if (id.includes('mythos')) return ANTHROPIC_ALL;
  const named = /claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2})(?!\d))?/.exec(id);
  const old = /claude-(\d+)(?:[-.](\d{1,2})(?!\d))?-(opus|sonnet|haiku)/.exec(id);
  const klass = named?.[1] ?? old?.[3];
  const version = named
    ? Number(named[2]) + Number(named[3] ?? 0) / 10
    : old
      ? Number(old[1]) + Number(old[2] ?? 0) / 10
      : NaN;
  if (!klass || Number.isNaN(version)) return ANTHROPIC_UNKNOWN;
  const keepsAllFrom = { opus: 4.5, sonnet: 4.6, haiku: Number.POSITIVE_INFINITY }[
    klass as 'opus' | 'sonnet' | 'haiku'
  ];
  if (version >= keepsAllFrom) return ANTHROPIC_ALL;
  if (klass === 'haiku' && version > 4.5) return ANTHROPIC_UNKNOWN;
  return ANTHROPIC_LAST_TURN;
}

/**
 * The rule a session is walked under: its model's, or — several models — the rule of the model
 * that made most of its measured calls, with the others' said when their rules differ.
 */
export function sessionRule(models: readonly (string | undefined)[]): {
  rule: ReasoningRule;
  model: string | null;
  others: string[];
} {
  const counts = new Map<string, number>();
  for (const model of models) if (model) counts.set(model, (counts.get(model) ?? 0) + 1);
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  const model = ranked[0]?.[0] ?? null;
  const rule = reasoningRule(model ?? undefined);
  const others = ranked
    .slice(1)
    .map(([m]) => m)
    .filter((m) => reasoningRule(m).id !== rule.id);
  return { rule, model, others };
}
