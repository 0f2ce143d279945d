/**
 * What the walk bills, as data: each step that changes what an item costs, takes it out of view,
 * or measures a call says so in a bill, kept in order on the walk's state; the cost ledger
 * (costs.ts) is fed the bills afterwards, in that order — the figures are those of a ledger
 * kept beside the walk, with no step writing to one.
 */
import type { PList } from './persistent';
import { CostLedger, type Prices } from './costs';
import type { Item, ModelCall, SessionCost } from './types';

type LedgerCall = Parameters<CostLedger['call']>;

export type Bill =
  /** An item's tokens in the prompt changed (or it left: 0). */
  | { readonly kind: 'settle'; readonly item: Item; readonly cal: number }
  /** An item left the view. */
  | { readonly kind: 'leave'; readonly item: Item }
  /** A measured call: its prompt, and the items it produced. */
  | {
      readonly kind: 'call';
      readonly call: ModelCall;
      readonly prompt: LedgerCall[1];
      readonly produced: LedgerCall[2];
    }
  /** A compaction call (a different request, billed apart). */
  | { readonly kind: 'compaction'; readonly call: ModelCall };

/** The session's cost: a ledger at these prices fed the walk's bills in order. */
export function costOf(bills: PList<Bill>, prices: Prices | null): SessionCost {
  const ledger = new CostLedger(prices);
  for (const bill of bills) {
    if (bill.kind === 'settle') ledger.settle(bill.item, bill.cal);
    else if (bill.kind === 'leave') ledger.leave(bill.item);
    else if (bill.kind === 'call') ledger.call(bill.call, bill.prompt, bill.produced);
    else ledger.compaction(bill.call);
  }
  return ledger.finish();
}
