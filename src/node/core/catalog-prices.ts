/**
 * Calls priced from the catalog (issue 38, point 4): where no call of a session reported a cost
 * (an import from a subscription, a plan or a relay that records 0), each call is priced from its
 * token counts at its model's list prices in the pinned OpenCode's models.dev snapshot — the way
 * OpenCode prices a call: fresh input, output (reasoning included), cache reads and cache writes,
 * each at its own price. A session whose calls carry a cost keeps theirs: catalog prices never mix
 * with a provider's. Nothing is invented: a call whose model the catalog does not price (or only
 * another provider does), or that used a kind of token it lists no price for, stays unpriced. Pure.
 */
import { catalogModel, type CatalogModel } from './model-catalog';
import type { ModelCall, Prices } from './types';

export interface CatalogPricing {
  /** The session's calls, each priced where the catalog can (the others as they were). */
  calls: ModelCall[];
  /** Per token, where every priced call had the same model's prices (else the costs are solved). */
  prices: Prices | null;
  /** In words: where the prices come from and what they are, per million tokens. */
  source: string;
}

const PER_MILLION = 1_000_000;

/** The calls priced from the catalog, or null where they carry costs of their own or it prices none. */
export function catalogPricing(calls: readonly ModelCall[]): CatalogPricing | null {
  if (calls.some((c) => c.cost !== null && c.cost > 0)) return null;
  const used = new Map<string, CatalogModel>();
  const priced = calls.map((call) => {
    const listed = catalogModel(call.model);
    // Another provider's prices are not the model's: only its own provider's or its maker's price it.
    const cost = listed?.prices && !listed.byMajority ? callCost(call, listed.prices) : null;
    if (cost === null || cost <= 0) return call;
    used.set(listed!.source, listed!);
    return { ...call, cost };
  });
  if (used.size === 0) return null;
  const models = [...used.values()];
  const only = models.length === 1 ? models[0]!.prices! : null;
  return {
    calls: priced,
    prices: only && {
      input: only.input / PER_MILLION,
      output: only.output / PER_MILLION,
      cacheRead: (only.cacheRead ?? 0) / PER_MILLION,
      cacheWrite: (only.cacheWrite ?? 0) / PER_MILLION,
    },
    source: models.map(described).join('; '),
  };
}

/** A call at list prices (per million tokens); null when it used a kind of token the list does not price. */
function callCost(call: ModelCall, prices: NonNullable<CatalogModel['prices']>): number | null {
  if (call.prompt === null || !call.tokens) return null;
  const read = call.tokens.cacheRead ?? 0;
  const write = call.tokens.cacheWrite ?? 0;
  if ((read > 0 && prices.cacheRead === undefined) || (write > 0 && prices.cacheWrite === undefined)) return null;
  const fresh = Math.max(0, call.prompt - read - write);
  return (
    (fresh * prices.input +
      call.produced * prices.output +
      read * (prices.cacheRead ?? 0) +
      write * (prices.cacheWrite ?? 0)) /
    PER_MILLION
  );
}

const usd = (n: number) => `$${n}/M`;

function described(model: CatalogModel): string {
  const p = model.prices!;
  const cache = [
    ...(p.cacheRead !== undefined ? [`${usd(p.cacheRead)} cache read`] : []),
    ...(p.cacheWrite !== undefined ? [`${usd(p.cacheWrite)} cache write`] : []),
  ];
  return `${model.source}: ${[`${usd(p.input)} input`, `${usd(p.output)} output`, ...cache].join(', ')}`;
}
