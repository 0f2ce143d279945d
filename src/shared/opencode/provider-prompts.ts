/**
 * OpenCode's provider prompts (opencode-ai 1.18.33, `SystemPrompt.provider`): which one a model
 * gets, chosen by the model's API id, the first rule that matches winning. Their sizes are
 * measured through the runtime (provider-prompt-sizes.ts, generated); their text is OpenCode's
 * and is never kept here.
 */

/** The size of one provider prompt as OpenCode sent it. */
export interface ProviderPromptSize {
  /** The model id it was measured with. */
  modelId: string;
  chars: number;
  bytes: number;
  sha256: string;
  /** Tokens in each tokenizer table the report has. */
  tokens: { o200k_base: number; cl100k_base: number; claude: number };
}

/** Each prompt, in the order OpenCode tries them, with a model id that makes it choose that one. */
export const PROVIDER_PROMPTS = {
  muse: { label: 'Muse', measuredWith: 'muse-scripted' },
  beast: { label: 'GPT-4 / o1 / o3', measuredWith: 'gpt-4-scripted' },
  'gpt-6': { label: 'GPT-6', measuredWith: 'gpt-6-scripted' },
  codex: { label: 'Codex', measuredWith: 'gpt-codex-scripted' },
  gpt: { label: 'GPT', measuredWith: 'gpt-scripted' },
  gemini: { label: 'Gemini', measuredWith: 'gemini-scripted' },
  anthropic: { label: 'Claude', measuredWith: 'claude-scripted' },
  trinity: { label: 'Trinity', measuredWith: 'trinity-scripted' },
  kimi: { label: 'Kimi', measuredWith: 'kimi-scripted' },
  default: { label: 'default', measuredWith: 'scripted' },
} as const;

export type ProviderPromptId = keyof typeof PROVIDER_PROMPTS;

const KIMI_PROVIDERS = new Set(['kimi-for-coding', 'moonshotai', 'moonshotai-cn']);

/** The provider prompt OpenCode gives a model, by its API id (and provider, for Kimi's). */
export function providerPromptId(apiId: string, providerID = ''): ProviderPromptId {
  if (apiId.includes('muse')) return 'muse';
  if (apiId.includes('gpt-4') || apiId.includes('o1') || apiId.includes('o3')) return 'beast';
  if (apiId.includes('gpt')) {
    if (apiId.includes('gpt-6')) return 'gpt-6';
    if (apiId.includes('codex')) return 'codex';
    return 'gpt';
  }
  if (apiId.includes('gemini-')) return 'gemini';
  if (apiId.includes('claude')) return 'anthropic';
  if (apiId.toLowerCase().includes('trinity')) return 'trinity';
  if (apiId.includes('kimi') || KIMI_PROVIDERS.has(providerID)) return 'kimi';
  return 'default';
}

/** How the environment block that follows the provider prompt begins (the measure cuts there). */
export const ENVIRONMENT_START = 'You are powered by the model named';
