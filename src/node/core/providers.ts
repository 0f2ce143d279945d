/**
 * What the report knows of model provider families: which tokenizer estimates their prompts
 * best, and what an image costs by their published rule. The measured counts always decide; these
 * only share a call's measured growth among what it added, and stand in where nothing was
 * measured (the first call, rows without per-call counts). Pure.
 */

export type ProviderFamily = 'anthropic' | 'openai' | 'google' | 'other';

/** The tokenizer tables the estimators have (ai-tokenizer's). */
export type Encoding = 'o200k_base' | 'cl100k_base' | 'claude';

export interface FamilyRules {
  family: ProviderFamily;
  /** The encoding that splits this family's growth among items. */
  encoding: Encoding;
  /**
   * Correction for a tokenizer known to undercount: ai-tokenizer's Claude table is the
   * pre-Claude-3 one, and its authors multiply it by 1.1 for current models.
   */
  multiplier: number;
  /** Words for the report: which tokenizer, and why. */
  tokenizer: string;
  /** What one image costs, by the family's published rule. */
  imageTokens: (width: number, height: number) => number;
  imageRule: string;
}

/** Anthropic: about width × height / 750, after scaling to 1568 px on the long edge and ~1.15 megapixels. */
export function anthropicImageTokens(width: number, height: number): number {
  const scale = Math.min(1, 1568 / Math.max(width, height), Math.sqrt(1_150_000 / (width * height)));
  return Math.ceil((Math.round(width * scale) * Math.round(height * scale)) / 750);
}

/** OpenAI (high detail): fit 2048 px, shortest side 768 px, then 170 tokens a 512 px tile plus 85. */
export function openaiImageTokens(width: number, height: number): number {
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const short = Math.min(1, 768 / Math.min(w, h));
  w *= short;
  h *= short;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** Google Gemini: 258 tokens for an image up to 384 px on both sides, else 258 a 768 px tile. */
export function geminiImageTokens(width: number, height: number): number {
  if (width <= 384 && height <= 384) return 258;
  return 258 * Math.ceil(width / 768) * Math.ceil(height / 768);
}

const RULES: Record<ProviderFamily, FamilyRules> = {
  anthropic: {
    family: 'anthropic',
    encoding: 'claude',
    multiplier: 1.1,
    tokenizer: 'Claude tokenizer (ai-tokenizer)',
    imageTokens: anthropicImageTokens,
    imageRule: "Anthropic's rule: width × height / 750",
  },
  openai: {
    family: 'openai',
    encoding: 'o200k_base',
    multiplier: 1,
    tokenizer: 'o200k_base BPE',
    imageTokens: openaiImageTokens,
    imageRule: "OpenAI's rule: 85 + 170 per 512 px tile",
  },
  google: {
    family: 'google',
    encoding: 'o200k_base',
    multiplier: 1,
    tokenizer: 'o200k_base BPE',
    imageTokens: geminiImageTokens,
    imageRule: "Google's rule: 258 per 768 px tile",
  },
  other: {
    family: 'other',
    encoding: 'o200k_base',
    multiplier: 1,
    tokenizer: 'o200k_base BPE',
    imageTokens: openaiImageTokens,
    imageRule: "OpenAI's rule: 85 + 170 per 512 px tile (the provider's own is not known)",
  },
};

/** The family of a model, from its provider and model ids ("anthropic"/"claude-…", "openai"/"gpt-…"…). */
export function providerFamily(providerID: string | undefined, modelID: string | undefined): ProviderFamily {
  const provider = (providerID ?? '').toLowerCase();
  const model = (modelID ?? '').toLowerCase();
  if (provider.includes('anthropic') || /claude/.test(model)) return 'anthropic';
  if (
    provider === 'openai' ||
    provider === 'azure' ||
    /^(gpt-|o[1-9]\b|o[1-9]-|codex)/.test(model) ||
    /\/gpt-/.test(model)
  )
    return 'openai';
  if (provider.includes('google') || provider.includes('vertex') || /^gemini/.test(model)) return 'google';
  return 'other';
}

export const familyRules = (family: ProviderFamily): FamilyRules => RULES[family];

/** When an image's size is not known: a screenshot of 1024 × 768, said as assumed. */
export const ASSUMED_IMAGE = { width: 1024, height: 768 } as const;
