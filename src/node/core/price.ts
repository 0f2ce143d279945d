/**
 * The price of a change (contract §7): what it costs once — the prompt the provider reads
 * uncached again, at the fresh-input rate (or the cache-write rate, where that is higher) less
 * the cache-read rate it would have had, plus any call of its own (a compaction's summary) at
 * the input and output rates — against what it saves each later call (`frees.costPerCall`), as
 * the calls it takes to break even. It pays back when that is within the session's likely rest:
 * as many calls again as it has had (the only guide to its length), and for a change to the
 * history no more than the calls left before the runtime compacts by itself (which would remove
 * the same content anyway). Money only where the calls were priced. Pure.
 */
import type { OneTime } from '../../shared/wire';
import type { OneTimeTokens, Prices } from './types';

export interface Priced {
  oneTime?: OneTime;
  breakEvenCalls?: number;
  paysBack?: boolean;
}

export interface PriceFacts {
  prices: Prices | null;
  /** Money per carried token in the latest priced call (null: not priced). */
  perCallRate: number | null;
  /** Measured calls so far, and the calls left before auto-compaction (null: not known). */
  callsSoFar: number;
  callsLeft: number | null;
}

const money = (n: number) => Math.round(n * 1e6) / 1e6;

export function priceOf(
  draft: { tokens: number; once?: OneTimeTokens; horizon?: 'history' | 'configuration' },
  facts: PriceFacts,
): Priced {
  const once = draft.once;
  if (!once) return {};
  const tokens = once.uncached + (once.call ? once.call.input + once.call.output : 0);
  const { prices } = facts;
  const cost = prices
    ? once.uncached * Math.max(0, Math.max(prices.input, prices.cacheWrite) - prices.cacheRead) +
      (once.call ? once.call.input * prices.input + once.call.output * prices.output : 0)
    : null;
  const oneTime: OneTime = { tokens, ...(cost !== null ? { cost: money(cost) } : {}), basis: once.basis };
  const perCall = facts.perCallRate !== null ? draft.tokens * facts.perCallRate : null;
  if (cost === null || perCall === null) return { oneTime };
  if (cost === 0) return { oneTime, breakEvenCalls: 0, paysBack: true };
  if (perCall <= 0) return { oneTime, paysBack: false };
  const breakEvenCalls = Math.ceil(cost / perCall);
  const rest =
    draft.horizon === 'history' && facts.callsLeft !== null
      ? Math.min(facts.callsLeft, facts.callsSoFar)
      : facts.callsSoFar;
  return { oneTime, breakEvenCalls, paysBack: breakEvenCalls <= rest };
}
