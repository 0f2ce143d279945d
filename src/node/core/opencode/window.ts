/**
 * The model's window as OpenCode 1.18.33 budgets it (session/compaction.ts `usable`, provider
 * `maxOutputTokens`): the reply keeps min(limit.output, 32,000) free, or — when the model has
 * an input limit — `compaction.reserved` (default min(20,000, that)) of the input limit.
 * OpenCode compacts by itself when a call's tokens (prompt plus reply) reach `usable`, unless
 * `compaction.auto` is false. Pure.
 */
import type { ContextWindow } from '../../../shared/wire';
import type { AgentConfig, UsageInput } from '../types';

/** OpenCode's cap on the output it reserves (OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX default). */
export const OUTPUT_TOKEN_MAX = 32_000;
const RESERVED_MAX = 20_000;

export function contextWindow(
  usage: UsageInput | null,
  config: AgentConfig | undefined,
  model: string | undefined,
): ContextWindow | null {
  const limits = (model && config?.models[model]) || {};
  const contextSize = limits.context ?? usage?.contextSize ?? null;
  if (!contextSize) return null;
  const known = limits.output !== undefined || limits.input !== undefined;
  // A window no larger than the cap belongs to a model with a smaller output limit, which only
  // OpenCode's model list knows: no guess then.
  if (!known && contextSize <= OUTPUT_TOKEN_MAX) {
    return { contextSize, reservedOutput: 0, usable: contextSize, autoCompactAt: null, basis: 'unknown' };
  }
  const maxOut = Math.min(limits.output ?? 0, OUTPUT_TOKEN_MAX) || OUTPUT_TOKEN_MAX;
  const usable = limits.input
    ? Math.max(0, limits.input - (config?.compactionReserved ?? Math.min(RESERVED_MAX, maxOut)))
    : Math.max(0, contextSize - maxOut);
  return {
    contextSize,
    reservedOutput: contextSize - usable,
    usable,
    autoCompactAt: config?.compactionAuto === false ? null : usable,
    basis: known ? 'workspace-config' : 'assumed',
  };
}
