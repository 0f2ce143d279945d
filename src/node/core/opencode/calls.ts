/**
 * OpenCode's model calls and what the provider counted for each: one call per finished step of
 * an assistant message (the step-finish part's tokens), the message's own tokens for rows from
 * elsewhere that carry no steps. Pure.
 */
import { modelKey, type Tokens } from '../../../shared/opencode/format';
import { providerFamily } from '../providers';
import type { ModelCall, TokenConvention } from '../types';
import type { StoredMessage } from './request-view';

/** The prompt size a step's tokens describe, under the convention the data follows. */
export function promptOf(tokens: Tokens, acpUsed?: number): { prompt: number; convention: TokenConvention } {
  const cached = (tokens.cacheRead ?? 0) + (tokens.cacheWrite ?? 0);
  let convention: TokenConvention = 'input-excludes-cache';
  // OpenCode stores input without the cached part, and total = input + cache + output + reasoning.
  // Data whose total leaves the cache out (or whose ACP total equals input alone) counted the
  // cached tokens inside input already.
  if (tokens.total !== undefined) {
    if (
      cached > 0 &&
      (tokens.total === tokens.input + tokens.output + tokens.reasoning ||
        tokens.total === tokens.input + tokens.output)
    )
      convention = 'input-includes-cache';
  } else if (cached > 0 && acpUsed !== undefined && acpUsed === tokens.input) {
    convention = 'input-includes-cache';
  }
  return { prompt: convention === 'input-excludes-cache' ? tokens.input + cached : tokens.input, convention };
}

/**
 * What a call produced: its output and its reasoning. OpenCode reports them apart
 * (total = input + cache + output + reasoning); older versions counted reasoning inside output
 * (total = input + cache + output), which the total tells.
 */
export function producedOf(tokens: Tokens): number {
  const cached = (tokens.cacheRead ?? 0) + (tokens.cacheWrite ?? 0);
  if (tokens.reasoning > 0 && tokens.total !== undefined) {
    if (tokens.total === tokens.input + cached + tokens.output || tokens.total === tokens.input + tokens.output)
      return tokens.output;
  }
  return tokens.output + tokens.reasoning;
}

/** Every model call of a session: one per finished step of an assistant message. */
export function modelCalls(messages: readonly StoredMessage[], acpUsed?: number): ModelCall[] {
  const calls: ModelCall[] = [];
  const byId = new Map(messages.map((m) => [m.id, m]));
  messages.forEach((message, index) => {
    const { info } = message;
    if (info.role !== 'assistant') return;
    const steps: Tokens[] = [];
    const costs: (number | null)[] = [];
    for (const part of message.parts) {
      if (part?.type !== 'step-finish' || !part.tokens) continue;
      steps.push(part.tokens);
      costs.push(part.cost ?? null);
    }
    // One step and the message's cost only: the message's is the step's.
    if (steps.length === 0 && info.tokens) costs.push(info.cost ?? null);
    // Rows from elsewhere may carry the message's tokens only.
    if (steps.length === 0 && info.tokens) steps.push(info.tokens);
    if (steps.length === 0) steps.push({ input: 0, output: 0, reasoning: 0, cacheRead: null, cacheWrite: null });
    const parent = info.parentID ? byId.get(info.parentID) : undefined;
    const model = modelKey(info);
    const runtime = JSON.stringify([info.agent ?? null, model ?? null, parent?.info.runtime ?? null]);
    steps.forEach((tokens, segment) => {
      const measured = tokens.input + (tokens.cacheRead ?? 0) + (tokens.cacheWrite ?? 0) > 0 ? tokens : null;
      calls.push({
        message: index,
        segment,
        messageId: message.id,
        time: info.time.created ?? 0,
        compaction: info.summary,
        prompt: measured ? promptOf(measured, acpUsed).prompt : null,
        tokens: measured,
        produced: measured ? producedOf(measured) : 0,
        cost: costs[segment] ?? null,
        model,
        ...(info.agent ? { agent: info.agent } : {}),
        family: providerFamily(info.providerID, info.modelID),
        runtime,
      });
    });
  });
  return calls;
}
