/**
 * What each item cost over the session. Every model call is billed for its whole prompt again:
 * the calibration knows which items were in each call's prompt and how many tokens each took
 * there, and the provider's counts say how much of the prompt was read from its cache, written
 * to it, or sent fresh, and what the call cost. This ledger shares each call's bill among its
 * prompt and its output:
 *
 * - **input**: the prompt is read in request order, so the provider's cached prefix holds what
 *   earlier calls sent (the runtime's prompt, then the content carried from before): carried
 *   tokens are billed at the cache-read rate first, as far as the cache-read count goes; the
 *   rest of the prompt — new content first of all — at the cache-write and input rates, in the
 *   proportion the call reports them;
 * - **output**: what the call produced (its reply, visible reasoning, tool calls) by their
 *   estimates; what it produced beyond them is hidden reasoning;
 * - **money**: each call's own cost (as the runtime priced it) is split by the session's prices,
 *   which the calls' costs and counts determine exactly when they follow one price list
 *   (cost = Σ tokens × price, solved over the calls); a call without a cost adds tokens, no money.
 *
 * An item accrues while it is in view, and keeps what it cost after it left (pruned, compacted).
 * Accrual is kept as running sums over the calls, so the ledger costs O(changes), not
 * O(calls × items). Pure.
 */
import type { SourceId } from '../../shared/sources';
import type { CostBucket, Item, ModelCall, Prices, SessionCost, Spend } from './types';

export type { Prices, SessionCost };

const emptySpend = (): Spend => ({ money: 0, input: 0, cacheRead: 0, output: 0, calls: 0 });

/** Running sums over the calls of what one carried token costs: an item's accrual is cal × (now − since). */
interface Sums {
  money: number;
  read: number;
  calls: number;
}

interface Entry {
  source: SourceId;
  cal: number;
  since: Sums;
  spend: Spend;
}

/** The rates of one call: money per token of each kind, and how it splits. */
interface CallRates {
  /** Per carried / fresh token: money, and the share read from the cache. */
  carried: { money: number; read: number };
  fresh: { money: number; read: number };
  outputMoney: number;
}

export class CostLedger {
  private readonly entries = new Map<string, Entry>();
  private readonly done = new Map<string, Spend & { source: SourceId }>();
  private readonly left = new Set<string>();
  private sums: Sums = { money: 0, read: 0, calls: 0 };
  private readonly buckets: Record<CostBucket, Spend> = {
    runtime: emptySpend(),
    hidden_reasoning: emptySpend(),
    unexplained: emptySpend(),
    compaction: emptySpend(),
  };
  private readonly tokens = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
  private total = 0;
  private calls = 0;
  private withCost = 0;
  /** Calls that reported a cost of 0 (a free or unpriced model). */
  private free = 0;
  /** Money per carried prompt token in the latest priced call (per fresh one before any was carried). */
  private carriedRate: number | null = null;
  private freshRate: number | null = null;
  /** Cache tokens of the priced calls: what the cache saved is told over these. */
  private readonly pricedCache = { read: 0, write: 0 };

  constructor(private readonly prices: Prices | null) {}

  /** An item's tokens in the prompt changed (or it left: 0): what it accrued so far is settled. */
  settle(item: Pick<Item, 'key' | 'source'>, cal: number): void {
    const entry = this.entries.get(item.key);
    if (entry) this.accrue(entry);
    if (cal > 0 || entry) {
      this.entries.set(item.key, {
        source: item.source,
        cal,
        since: { ...this.sums },
        spend: entry?.spend ?? emptySpend(),
      });
    }
  }

  /** An item left the view: it keeps what it cost. */
  leave(item: Pick<Item, 'key' | 'source'>): void {
    const entry = this.entries.get(item.key);
    if (!entry) return;
    this.accrue(entry);
    entry.cal = 0;
    this.left.add(item.key);
  }

  private accrue(entry: Entry): void {
    const calls = this.sums.calls - entry.since.calls;
    if (calls > 0 && entry.cal > 0) {
      entry.spend.money += entry.cal * (this.sums.money - entry.since.money);
      entry.spend.cacheRead += entry.cal * (this.sums.read - entry.since.read);
      entry.spend.input += entry.cal * calls;
      entry.spend.calls += calls;
    }
    entry.since = { ...this.sums };
  }

  /**
   * One measured call of the conversation: its prompt (runtime, carried and fresh items, hidden
   * reasoning, the unexplained), its counts and cost, and the items it produced.
   */
  call(
    call: ModelCall,
    prompt: {
      total: number;
      runtime: number;
      runtimeFresh: boolean;
      fresh: readonly { item: Item; cal: number }[];
      hidden: number;
      hiddenFresh: number;
      /** Of the prompt, what nothing explains (the calibration's unexplained and any residual). */
      unexplained: number;
    },
    produced: readonly Item[],
  ): void {
    const rates = this.rates(call, prompt.total, this.freshTotal(prompt));
    if (call.cost !== null && call.cost > 0) {
      if (rates.carried.money > 0) this.carriedRate = rates.carried.money;
      else if (rates.fresh.money > 0) this.freshRate = rates.fresh.money;
    }
    // What the fresh items accrued before (nothing, as a rule) is settled at their tokens now…
    for (const { item, cal } of prompt.fresh) this.settle(item, cal);
    // …carried tokens accrue through the sums: every item in view but the fresh ones…
    this.sums = {
      money: this.sums.money + rates.carried.money,
      read: this.sums.read + rates.carried.read,
      calls: this.sums.calls + 1,
    };
    // …and the fresh ones at the fresh rate, carried from the next call on.
    for (const { item, cal } of prompt.fresh) {
      const entry = this.entries.get(item.key);
      if (!entry) continue;
      entry.since = { ...this.sums };
      if (cal <= 0) continue;
      entry.spend.money += cal * rates.fresh.money;
      entry.spend.cacheRead += cal * rates.fresh.read;
      entry.spend.input += cal;
      entry.spend.calls += 1;
    }
    this.bill(this.buckets.runtime, prompt.runtime, prompt.runtimeFresh ? rates.fresh : rates.carried);
    this.bill(this.buckets.hidden_reasoning, prompt.hiddenFresh, rates.fresh);
    this.bill(this.buckets.hidden_reasoning, prompt.hidden - prompt.hiddenFresh, rates.carried);
    this.bill(this.buckets.unexplained, prompt.unexplained, rates.carried);
    this.output(call, rates.outputMoney, produced);
  }

  /** A compaction call (the history sent to be summarised, and the summary): billed as one. */
  compaction(call: ModelCall): void {
    if (call.prompt === null || !call.tokens) return;
    const rates = this.rates(call, call.prompt, 0);
    const bucket = this.buckets.compaction;
    this.bill(bucket, call.prompt, rates.carried);
    bucket.output += call.produced;
    bucket.money += rates.outputMoney;
  }

  private freshTotal(prompt: Parameters<CostLedger['call']>[1]): number {
    return (
      prompt.fresh.reduce((n, f) => n + f.cal, 0) + prompt.hiddenFresh + (prompt.runtimeFresh ? prompt.runtime : 0)
    );
  }

  /** Tokens of a bucket at a rate (the unexplained may be below zero: estimates above the count). */
  private bill(spend: Spend, tokens: number, rate: { money: number; read: number }): void {
    if (tokens === 0) return;
    spend.money += tokens * rate.money;
    spend.cacheRead += tokens * rate.read;
    spend.input += tokens;
    spend.calls += 1;
  }

  /** Money per carried and per fresh token, and for the output, from the call's counts and cost. */
  private rates(call: ModelCall, prompt: number, freshTokens: number): CallRates {
    const t = call.tokens!;
    const read = Math.min(t.cacheRead ?? 0, prompt);
    const write = Math.min(t.cacheWrite ?? 0, prompt - read);
    const fresh = Math.max(0, prompt - read - write);
    const out = call.produced;
    this.calls++;
    this.tokens.input += prompt;
    this.tokens.cacheRead += read;
    this.tokens.cacheWrite += write;
    this.tokens.output += out;
    const cost = call.cost;
    // Money per token of each kind: the session's prices scaled so this call's add up to its own
    // cost; without prices, the cost shared by tokens alike.
    let m = { input: 0, output: 0, read: 0, write: 0 };
    if (cost !== null && cost > 0) {
      this.withCost++;
      this.total += cost;
      this.pricedCache.read += read;
      this.pricedCache.write += write;
      const p = this.prices;
      const priced = p ? fresh * p.input + out * p.output + read * p.cacheRead + write * p.cacheWrite : 0;
      if (p && priced > 0) {
        const s = cost / priced;
        m = { input: p.input * s, output: p.output * s, read: p.cacheRead * s, write: p.cacheWrite * s };
      } else {
        const each = cost / Math.max(1, prompt + out);
        m = { input: each, output: each, read: each, write: each };
      }
    } else if (cost === 0) this.free++;
    // Carried content takes the cached prefix first; the rest of the prompt pays write and input alike.
    const carriedTokens = Math.max(0, prompt - freshTokens);
    const carriedRead = Math.min(read, carriedTokens);
    const freshRead = read - carriedRead;
    const rest = write + fresh;
    const mix = rest > 0 ? (write * m.write + fresh * m.input) / rest : m.read;
    const rate = (tokens: number, fromCache: number) =>
      tokens > 0
        ? { money: (fromCache * m.read + (tokens - fromCache) * mix) / tokens, read: fromCache / tokens }
        : { money: 0, read: 0 };
    return {
      carried: rate(carriedTokens, carriedRead),
      fresh: rate(Math.max(0, prompt - carriedTokens), freshRead),
      outputMoney: out * m.output,
    };
  }

  /** The call's output, shared by what it produced (by estimate); beyond that, hidden reasoning. */
  private output(call: ModelCall, money: number, produced: readonly Item[]): void {
    const out = call.produced;
    if (out <= 0) return;
    const visible = produced.reduce((n, i) => n + (i.produced ?? 0), 0);
    const shown = Math.min(out, visible);
    const hidden = out - shown;
    for (const item of produced) {
      const tokens = visible > 0 ? ((item.produced ?? 0) * shown) / visible : 0;
      if (tokens <= 0) continue;
      const entry = this.entries.get(item.key) ?? this.created(item);
      entry.spend.output += tokens;
      entry.spend.money += (money * tokens) / out;
    }
    if (hidden > 0) {
      this.buckets.hidden_reasoning.output += hidden;
      this.buckets.hidden_reasoning.money += (money * hidden) / out;
    }
  }

  private created(item: Item): Entry {
    const entry: Entry = { source: item.source, cal: 0, since: { ...this.sums }, spend: emptySpend() };
    this.entries.set(item.key, entry);
    return entry;
  }

  finish(): SessionCost {
    for (const [key, entry] of this.entries) {
      this.accrue(entry);
      this.done.set(key, { ...entry.spend, source: entry.source });
    }
    return {
      total: this.withCost > 0 ? this.total : null,
      calls: this.calls,
      callsWithCost: this.withCost,
      freeCalls: this.free,
      tokens: this.tokens,
      prices: this.prices,
      pricesFit: null,
      items: this.done,
      left: this.left,
      buckets: this.buckets,
      perCallRate: this.carriedRate ?? this.freshRate,
      pricedCache: { ...this.pricedCache },
    };
  }
}

/**
 * The session's prices, from its calls' costs and counts: cost = fresh × input + output × output
 * + cache read × read + cache write × write, solved by least squares over the calls that
 * reported a cost. `exact` when every call's cost is reproduced within a millionth of a unit.
 */
export function sessionPrices(calls: readonly ModelCall[]): { prices: Prices; fit: 'exact' | 'approximate' } | null {
  const rows: { x: number[]; y: number }[] = [];
  for (const call of calls) {
    if (call.cost === null || call.cost <= 0 || call.prompt === null || !call.tokens) continue;
    const read = call.tokens.cacheRead ?? 0;
    const write = call.tokens.cacheWrite ?? 0;
    rows.push({ x: [Math.max(0, call.prompt - read - write), call.produced, read, write], y: call.cost });
  }
  if (rows.length === 0) return null;
  // Only the kinds of token the session has: a price nothing was billed at is not known (and not needed).
  const used = [0, 1, 2, 3].filter((j) => rows.some((r) => r.x[j]! > 0));
  if (rows.length < used.length) return null;
  const solved = leastSquares(
    rows.map((r) => used.map((j) => r.x[j]!)),
    rows.map((r) => r.y),
  );
  if (!solved || solved.some((p) => !(p >= 0))) return null;
  const price = [0, 0, 0, 0];
  used.forEach((j, k) => (price[j] = solved[k]!));
  const worst = Math.max(...rows.map((r) => Math.abs(r.x.reduce((n, x, j) => n + x * price[j]!, 0) - r.y)));
  return {
    prices: { input: price[0]!, output: price[1]!, cacheRead: price[2]!, cacheWrite: price[3]! },
    fit: worst <= 1e-6 ? 'exact' : 'approximate',
  };
}

/** Least squares by the normal equations, columns scaled to 1 (token counts span 1 to 10⁶). */
function leastSquares(a: number[][], y: number[]): number[] | null {
  const n = a[0]!.length;
  const scale = Array.from({ length: n }, (_, j) => Math.max(...a.map((r) => Math.abs(r[j]!))) || 1);
  const m = Array.from({ length: n }, () => new Array<number>(n + 1).fill(0));
  a.forEach((row, i) => {
    for (let j = 0; j < n; j++) {
      const xj = row[j]! / scale[j]!;
      for (let k = 0; k < n; k++) m[j]![k]! += xj * (row[k]! / scale[k]!);
      m[j]![n]! += xj * y[i]!;
    }
  });
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    if (Math.abs(m[pivot]![col]!) < 1e-12) return null;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / m[col]![col]!;
      for (let k = col; k <= n; k++) m[r]![k]! -= f * m[col]![k]!;
    }
  }
  return m.map((row, j) => row[n]! / row[j]! / scale[j]!);
}
