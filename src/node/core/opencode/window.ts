/**
 * The model's window as OpenCode 1.18.33 budgets it (session/compaction.ts `usable`, provider
 * `maxOutputTokens`): the reply keeps min(limit.output, 32,000) free, or — when the model has
 * an input limit — `compaction.reserved` (default min(20,000, that)) of the input limit.
 * OpenCode compacts by itself when a call's tokens (prompt plus reply) reach `usable`, unless
 * `compaction.auto` is false. Where neither the workspace's opencode.json nor the rows give the
 * model's limits, OpenCode's own model list does (core/model-catalog.ts), and the window says so.
 * Pure.
 */
import type { ContextWindow } from '../../../shared/wire';
import { catalogModel } from '../model-catalog';
import type { AgentConfig, UsageInput } from '../types';

/** OpenCode's cap on the output it reserves (OPENCODE_EXPERIMENTAL_OUTPUT_TOKEN_MAX default). */
export const OUTPUT_TOKEN_MAX = 32_000;
const RESERVED_MAX = 20_000;

export function contextWindow(
  usage: UsageInput | null,
  config: AgentConfig | undefined,
  model: string | undefined,
): ContextWindow | null {
  const configured = (model && config?.models[model]) || {};
  const listed = catalogModel(model);
  // The catalog's limits hold where the window is the catalog's (or none is known otherwise).
  const contextSize = configured.context ?? usage?.contextSize ?? listed?.context ?? null;
  if (!contextSize) return null;
  const fromConfig = configured.output !== undefined || configured.input !== undefined;
  const fromCatalog = !fromConfig && configured.context === undefined && listed?.context === contextSize;
  const limits = fromCatalog ? { ...listed, ...configured } : configured;
  const known = fromConfig || fromCatalog;
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
    basis: fromConfig ? 'workspace-config' : fromCatalog ? 'catalog' : 'assumed',
    ...(fromCatalog ? { source: listed.source } : {}),
    ...(fromCatalog && listed.prices ? { prices: listed.prices } : {}),
  };
}
