/**
 * What each provider keeps of earlier reasoning, by its documented rule (core/provider-rules.ts):
 * the rule found from the ids the rows carry, for each family and generation, and the rule of a
 * session of several models.
 */
import { describe, expect, it } from 'vitest';
import { reasoningRule, sessionRule } from '../../src/node/core/provider-rules';

const ruleOf = (model: string) => reasoningRule(model).id;

describe('the provider’s rule for a model', () => {
  it('OpenAI: within a turn up to GPT-5.5, every turn from GPT-5.6 (its reasoning.context default)', () => {
    expect(ruleOf('openai/gpt-5.3-codex')).toBe('openai-responses-current-turn');
    expect(ruleOf('openai/gpt-5')).toBe('openai-responses-current-turn');
    expect(ruleOf('openai/o4-mini')).toBe('openai-responses-current-turn');
    expect(ruleOf('openai/gpt-5.6-sol')).toBe('openai-responses-all-turns');
    expect(ruleOf('packyapi/gpt-5.6-sol')).toBe('openai-responses-all-turns');
    expect(ruleOf('openrouter/openai/gpt-6')).toBe('openai-responses-all-turns');
    expect(reasoningRule('openai/gpt-5.3-codex').answers).toEqual({
      keepsHidden: true,
      dropsAtTurn: true,
      reasoningTurnOnly: true,
    });
  });

  it('Anthropic: by model generation — the last turn’s thinking up to Opus 4.1 / Sonnet 4.5 / Haiku 4.5, all of it after', () => {
    expect(ruleOf('anthropic/claude-sonnet-4-5-20250929')).toBe('anthropic-last-turn');
    expect(ruleOf('anthropic/claude-opus-4-1-20250805')).toBe('anthropic-last-turn');
    expect(ruleOf('anthropic/claude-opus-4-20250514')).toBe('anthropic-last-turn');
    expect(ruleOf('anthropic/claude-3-7-sonnet-20250219')).toBe('anthropic-last-turn');
    expect(ruleOf('anthropic/claude-haiku-4-5')).toBe('anthropic-last-turn');
    expect(ruleOf('anthropic/claude-opus-4-5')).toBe('anthropic-all-turns');
    expect(ruleOf('anthropic/claude-sonnet-4-6')).toBe('anthropic-all-turns');
    expect(ruleOf('anthropic/claude-sonnet-5')).toBe('anthropic-all-turns');
    expect(ruleOf('anthropic/claude-mythos-preview')).toBe('anthropic-all-turns');
    // A Claude whose generation its id does not tell: no rule, the counts decide.
    expect(reasoningRule('scripted/claude-scripted').answers).toEqual({});
  });

  it('DeepSeek: thinking mode keeps the turns with tool calls; R1 never concatenates reasoning', () => {
    expect(reasoningRule('opencode/deepseek-v4-flash-free').answers).toEqual({
      receives: true,
      reasoningTurnOnly: true,
      keepsToolTurns: true,
    });
    expect(ruleOf('deepseek/deepseek-reasoner')).toBe('deepseek-reasoner');
  });

  it('Google, local servers and the rest: no documented rule, said as such, with no source', () => {
    for (const model of ['google/gemini-2.5-flash', 'ollama/qwen3:8b', 'lmstudio/gpt-oss-20b', 'infini/glm-5']) {
      const rule = reasoningRule(model);
      expect(rule.answers).toEqual({});
      expect(rule.source).toBeUndefined();
      expect(rule.says).toMatch(/the counts decide/);
    }
    // A local server's model is the template's, whatever its name says.
    expect(ruleOf('ollama/gpt-oss:20b')).toBe('local-chat-template');
  });

  it('every rule that answers a question names its source', () => {
    for (const model of ['openai/gpt-5', 'openai/gpt-5.6', 'anthropic/claude-sonnet-4', 'anthropic/claude-opus-4-5']) {
      const rule = reasoningRule(model);
      expect(rule.source!.url).toMatch(/^https:\/\//);
      expect(rule.source!.quote.length).toBeGreaterThan(20);
    }
  });
});

describe('the rule of a session', () => {
  it('is the rule of the model of most of its calls, the others with another rule named', () => {
    const models = ['zai/glm-5.2', 'openai/gpt-5.6-sol', 'openai/gpt-5.6-sol', undefined];
    expect(sessionRule(models)).toMatchObject({
      model: 'openai/gpt-5.6-sol',
      others: ['zai/glm-5.2'],
      rule: { id: 'openai-responses-all-turns' },
    });
    expect(sessionRule([]).rule.answers).toEqual({});
  });
});
