/**
 * The session's cost in the report (contract §4 `cost`): the ledger's spend (costs.ts) per source,
 * item and row, in whole millionths of the currency so that the sources and rows add up to the
 * total exactly, and in words where a provider reported no cost or no cache. Pure.
 */
import { fmt } from '../../shared/format';
import { reportSourceIds, sourceLabel, type SourceId } from '../../shared/sources';
import type { ItemCost, SessionCostReport } from '../../shared/wire';
import type { CostBucket, SessionCost, Spend } from './types';

const MICRO = 1_000_000;

const ROW_LABELS: Record<CostBucket, string> = {
  runtime: 'Runtime system prompt and tool schemas',
  hidden_reasoning: 'Hidden reasoning (produced out of sight, kept by the provider)',
  unexplained: 'Unexplained (what no item accounts for)',
  compaction: 'Compaction calls (the history sent to be summarised)',
};

export interface CostFigures {
  report: SessionCostReport;
  /** By item key: what it cost. */
  items: Map<string, ItemCost>;
}

export function costReport(cost: SessionCost, runtime: { name: string; label: string }): CostFigures {
  const priced = cost.total !== null;
  // Money in whole millionths: every bucket rounded once, the rounding's remainder put where the
  // most money is, so that the buckets add up to the total exactly.
  const totalMicro = priced ? Math.round(cost.total! * MICRO) : 0;
  const keys = [...cost.items.keys()];
  const buckets = Object.keys(cost.buckets) as CostBucket[];
  const weights = [...keys.map((k) => cost.items.get(k)!.money), ...buckets.map((b) => cost.buckets[b].money)];
  const micro = roundToTotal(weights, totalMicro);
  // The ledger's own sum, before rounding to the total: far from it, the shares are suspect.
  const accounted = weights.reduce((a, b) => a + b, 0);
  const amountOf = (i: number) => (priced ? micro[i]! / MICRO : null);

  const items = new Map<string, ItemCost>();
  const bySource = new Map<SourceId, { spend: ItemCost; leftMicro: number; leftItems: number; micro: number }>();
  keys.forEach((key, i) => {
    const spend = cost.items.get(key)!;
    const figures = figuresOf(spend, amountOf(i));
    items.set(key, figures);
    let source = bySource.get(spend.source);
    if (!source) bySource.set(spend.source, (source = { spend: zero(priced), leftMicro: 0, leftItems: 0, micro: 0 }));
    add(source.spend, figures);
    source.micro += micro[i]!;
    if (cost.left.has(key)) {
      source.leftMicro += micro[i]!;
      source.leftItems++;
    }
  });
  const sources = sourceCosts(bySource, priced);
  const rows = buckets.flatMap((kind, k) => {
    const spend = cost.buckets[kind];
    if (spend.input === 0 && spend.output === 0 && spend.money === 0) return [];
    const label = kind === 'runtime' ? runtime.label.replace(/, measured$/, '') : ROW_LABELS[kind];
    return [{ kind, label, ...figuresOf(spend, amountOf(keys.length + k)) }];
  });

  const notes = costNotes(cost, runtime.name, accounted);
  const perMillion = (p: number) => Math.round(p * MICRO * 1e6) / 1e6;
  return {
    report: {
      currency: 'USD',
      total: priced ? totalMicro / MICRO : null,
      calls: cost.calls,
      callsWithCost: cost.callsWithCost,
      tokens: {
        input: Math.round(cost.tokens.input),
        cacheRead: Math.round(cost.tokens.cacheRead),
        cacheWrite: Math.round(cost.tokens.cacheWrite),
        output: Math.round(cost.tokens.output),
      },
      prices: cost.prices
        ? {
            input: perMillion(cost.prices.input),
            output: perMillion(cost.prices.output),
            cacheRead: perMillion(cost.prices.cacheRead),
            cacheWrite: perMillion(cost.prices.cacheWrite),
          }
        : null,
      pricesFit: cost.prices ? cost.pricesFit : null,
      ...(cost.pricesSource ? { pricesSource: cost.pricesSource } : {}),
      sources,
      rows,
      notes,
      cacheSavings: priced ? cacheSavings(cost) : null,
    },
    items,
  };
}

/** What the cost report says about how far its figures go. */
function costNotes(cost: SessionCost, runtimeName: string, accounted: number): string[] {
  const priced = cost.total !== null;
  const notes: string[] = [];
  if (cost.pricesSource)
    notes.push(
      `No call reported a cost (a subscription, a plan or a relay that records none): priced from its tokens at list prices, ${cost.pricesSource}.`,
    );
  if (!priced && cost.freeCalls > 0)
    notes.push(
      `Every call reported a cost of 0 (a free model, or one ${runtimeName} has no prices for): the billed tokens are shown, no money.`,
    );
  else if (!priced)
    notes.push('No model call reported a cost: the billed tokens are shown, the money is not (never invented).');
  else if (cost.callsWithCost < cost.calls)
    notes.push(
      `${fmt(cost.calls - cost.callsWithCost)} of ${fmt(cost.calls)} calls reported no cost: their tokens are counted, their money is not.`,
    );
  if (priced && Math.abs(accounted - cost.total!) > 0.005 * cost.total!)
    notes.push(
      `The shares came to ${accounted.toFixed(6)} before rounding, not ${cost.total!.toFixed(6)}: they were scaled to the calls' cost.`,
    );
  if (cost.tokens.cacheRead === 0 && cost.tokens.cacheWrite === 0)
    notes.push('The provider reported no cache reads or writes: every prompt token is billed as fresh input.');
  if (priced && cost.pricesFit === 'approximate')
    notes.push(
      "The calls' costs follow no single price list (tiers, rounding): each call's own cost is shared by the best-fitting prices.",
    );
  if (priced && !cost.prices)
    notes.push("The calls' costs do not tell the prices apart: each call's cost is shared by its tokens alike.");

  return notes;
}

/** The cost by source, the most expensive first. */
function sourceCosts(
  bySource: ReadonlyMap<SourceId, { spend: ItemCost; leftMicro: number; leftItems: number; micro: number }>,
  priced: boolean,
): SessionCostReport['sources'] {
  return reportSourceIds(bySource.keys())
    .flatMap((id) => {
      const found = bySource.get(id);
      if (!found || (found.spend.inputTokens === 0 && found.spend.outputTokens === 0)) return [];
      return [
        {
          id,
          label: sourceLabel(id),
          ...found.spend,
          amount: priced ? found.micro / MICRO : null,
          leftAmount: priced ? found.leftMicro / MICRO : null,
          leftItems: found.leftItems,
        },
      ];
    })
    .sort((a, b) => (b.amount ?? 0) - (a.amount ?? 0) || b.inputTokens - a.inputTokens);
}

/**
 * The cache's saving over the priced calls, at the session's own prices: the tokens read from
 * and written to it at the input rate, less what they were billed at (a write may cost more
 * than input: then it counts against the saving). Null when the prices are not known.
 */
function cacheSavings(cost: SessionCost): NonNullable<SessionCostReport['cacheSavings']> | null {
  const p = cost.prices;
  const { read, write } = cost.pricedCache;
  if (!p || read + write === 0) return null;
  const micro = (n: number) => Math.round(n * MICRO) / MICRO;
  const atInputRate = micro((read + write) * p.input);
  const billed = micro(read * p.cacheRead + write * p.cacheWrite);
  return { amount: micro(atInputRate - billed), tokens: Math.round(read + write), atInputRate, billed };
}

function figuresOf(spend: Spend, amount: number | null): ItemCost {
  return {
    amount,
    inputTokens: Math.round(spend.input),
    cacheReadTokens: Math.round(spend.cacheRead),
    outputTokens: Math.round(spend.output),
    calls: spend.calls,
  };
}

const zero = (priced: boolean): ItemCost => ({
  amount: priced ? 0 : null,
  inputTokens: 0,
  cacheReadTokens: 0,
  outputTokens: 0,
  calls: 0,
});

function add(into: ItemCost, from: ItemCost): void {
  into.inputTokens += from.inputTokens;
  into.cacheReadTokens += from.cacheReadTokens;
  into.outputTokens += from.outputTokens;
  into.calls = Math.max(into.calls, from.calls);
}

/** Integers near `weights` (scaled to `total`) that add up to `total` exactly. */
function roundToTotal(weights: readonly number[], total: number): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.length === 0) return [];
  if (sum === 0) return weights.map((_, i) => (i === 0 ? total : 0));
  const out = weights.map((w) => Math.round((w / sum) * total));
  const diff = total - out.reduce((a, b) => a + b, 0);
  let largest = 0;
  weights.forEach((w, i) => {
    if (Math.abs(w) > Math.abs(weights[largest]!)) largest = i;
  });
  out[largest]! += diff;
  return out;
}
