/**
 * The view's steps: how the walk keeps the request view current as the runtime's window says
 * (a message entered, a compaction's restart, a prune), and what an item costs in it. Each is
 * pure: a state in, a new state out (calibration-state.ts).
 */
import type { SourceId } from '../../shared/sources';
import { isInForm } from './calibration-steps';
import { billed, itemState, uncounted, type Basis, type ItemState, type WalkState } from './calibration-state';
import type { Item } from './types';

/** The per-source sums with one source's moved by `delta` (a copy: a dozen sources). */
const withSource = (bySource: WalkState['bySource'], source: SourceId, moved: (sum: number) => number) => ({
  ...bySource,
  [source]: moved(bySource[source] ?? 0),
});

/** An item enters the view (once: an item in view already stays as it is). */
export function addItem<S extends ItemState>(s: S, item: Item): S {
  if (s.view.has(item.key)) return s;
  let { reasoningInView, reasoningCal } = s;
  if (item.reasoning) {
    reasoningInView = reasoningInView.add(item.key, s.edit);
    if (!uncounted(s, item.key)) reasoningCal += s.cal.get(item.key) ?? 0;
  }
  return {
    ...s,
    view: s.view.set(item.key, item, s.edit),
    reasoningInView,
    reasoningCal,
    addedSinceCall: s.addedSinceCall.add(item.key, s.edit),
  };
}

/**
 * Items enter the view: the fold of addItem over `items`, in one pass (the collections and sums
 * in locals, the state copied once, not per item).
 */
export function addItems<S extends ItemState>(s: S, items: Iterable<Item>): S {
  let { view, reasoningInView, reasoningCal, addedSinceCall } = s;
  for (const item of items) {
    const { key } = item;
    if (view.has(key)) continue;
    if (item.reasoning) {
      reasoningInView = reasoningInView.add(key, s.edit);
      if (!uncounted(s, key)) reasoningCal += s.cal.get(key) ?? 0;
    }
    view = view.set(key, item, s.edit);
    addedSinceCall = addedSinceCall.add(key, s.edit);
  }
  if (view === s.view) return s;
  return { ...s, view, reasoningInView, reasoningCal, addedSinceCall };
}

/** An item leaves the view: its cost leaves the running sums, and it keeps what it cost so far. */
export function removeItem<S extends ItemState>(s: S, key: string): S {
  const item = s.view.get(key);
  if (!item) return s;
  const cal = s.cal.get(key);
  const wasReasoning = s.reasoningInView.has(key);
  const next: S = {
    ...s,
    bills: billed(s, { kind: 'leave', item }),
    view: s.view.delete(key, s.edit),
    addedSinceCall: s.addedSinceCall.delete(key, s.edit),
    reasoningInView: s.reasoningInView.delete(key, s.edit),
    reasoningCal: wasReasoning && !uncounted(s, key) ? s.reasoningCal - (cal ?? 0) : s.reasoningCal,
  };
  if (cal === undefined) return next;
  return {
    ...next,
    bySource: withSource(s.bySource, item.source, (sum) => sum - cal),
    calTotal: s.calTotal - cal,
    cal: s.cal.delete(key, s.edit),
    basis: s.basis.delete(key, s.edit),
  };
}

/** An item's cost set, the running sums kept. */
export function assignCost<S extends ItemState>(s: S, item: Item, tokens: number, basis: Basis): S {
  const old = s.cal.get(item.key) ?? 0;
  const countedReasoning = s.reasoningInView.has(item.key) && !uncounted(s, item.key);
  return {
    ...s,
    bills: billed(s, { kind: 'settle', item, cal: tokens }),
    reasoningCal: countedReasoning ? s.reasoningCal + (tokens - old) : s.reasoningCal,
    cal: s.cal.set(item.key, tokens, s.edit),
    basis: s.basis.set(item.key, basis, s.edit),
    bySource: withSource(s.bySource, item.source, (sum) => sum + tokens - old),
    calTotal: s.calTotal + (tokens - old),
  };
}

/**
 * Many costs set at once: the fold of assignCost over `assigned`, in one pass — the running sums
 * in locals and the per-source sums in one fresh copy (not a state and a dozen sources copied per
 * item). The copy is this step's own until it is returned, so the state given is never written.
 */
export function assignAll<S extends ItemState>(
  s: S,
  assigned: readonly { item: Item; tokens: number; basis: Basis }[],
): S {
  if (assigned.length === 0) return s;
  let { cal, basis, bills, reasoningCal, calTotal } = s;
  const bySource: Record<SourceId, number> = { ...s.bySource };
  for (const a of assigned) {
    const { key, source } = a.item;
    const old = cal.get(key) ?? 0;
    // Which items are counted reasoning does not change while costs are set.
    if (s.reasoningInView.has(key) && !uncounted(s, key)) reasoningCal += a.tokens - old;
    if (s.billing) bills = bills.push({ kind: 'settle', item: a.item, cal: a.tokens });
    cal = cal.set(key, a.tokens, s.edit);
    basis = basis.set(key, a.basis, s.edit);
    bySource[source] = (bySource[source] ?? 0) + a.tokens - old;
    calTotal += a.tokens - old;
  }
  return { ...s, cal, basis, bills, reasoningCal, calTotal, bySource };
}

/** Reasoning the provider no longer counts (never received, or dropped at a turn): out of the counted sum. */
export function excludeReasoning<S extends ItemState>(s: S, key: string, as: 'notReceived' | 'droppedAtTurn'): S {
  if (uncounted(s, key)) return s;
  const reasoningCal = s.reasoningInView.has(key) ? s.reasoningCal - (s.cal.get(key) ?? 0) : s.reasoningCal;
  return as === 'notReceived'
    ? { ...s, reasoningCal, notReceived: s.notReceived.add(key, s.edit) }
    : { ...s, reasoningCal, droppedAtTurn: s.droppedAtTurn.add(key, s.edit) };
}

/** Brings the items of message `index` up to segment `upTo` (exclusive) into view, in the form they have now. */
export function addSegments(s: WalkState, index: number, upTo: number): WalkState {
  const from = s.segmentsIn.get(index) ?? 0;
  if (upTo <= from || !s.inWindow.has(index))
    return { ...s, segmentsIn: s.segmentsIn.set(index, Math.max(from, upTo), s.edit) };
  const entering = (s.context.input.items[index] ?? []).filter((item) => {
    const segment = item.segment ?? 0;
    return segment >= from && segment < upTo && isInForm(item, s.time);
  });
  return { ...addItems(s, entering), segmentsIn: s.segmentsIn.set(index, upTo, s.edit) };
}

/**
 * Message `index` appended to the runtime's window: it enters the window, or — a completed
 * compaction — the view restarts as the runtime keeps it (the request, the summary, its tail).
 */
export function enterMessage(s: WalkState, index: number): WalkState {
  const step = s.context.window[index];
  const user = s.context.input.session.messages[index]?.userTurn === true;
  if (step?.restarted) {
    const next = rebuildView(s, index);
    return { ...next, order: step.order, userSinceCall: next.userSinceCall || user };
  }
  const order = step?.order ?? s.order;
  return { ...s, inWindow: s.inWindow.add(index, s.edit), order, userSinceCall: s.userSinceCall || user };
}

/** A compaction completed at message `index`: what the window no longer holds leaves, what it holds again returns. */
export function rebuildView(s: WalkState, index: number): WalkState {
  const order = s.context.window[index]?.order ?? s.order;
  const keep = new Set(order);
  let next: WalkState = { ...s, compactedSinceCall: true, order };
  // A copy: inside a walk step the set is transient (calibration-state.ts), and changes below.
  for (const message of [...s.inWindow]) {
    if (keep.has(message)) continue;
    let part = itemState(next);
    for (const item of s.context.input.items[message] ?? []) part = removeItem(part, item.key);
    next = { ...next, ...part, inWindow: next.inWindow.delete(message, next.edit) };
  }
  for (const message of order) {
    if (next.inWindow.has(message)) continue;
    next = { ...next, inWindow: next.inWindow.add(message, next.edit) };
    if (message === index) continue;
    const upTo = next.segmentsIn.get(message) ?? 0;
    next = addSegments(
      { ...next, segmentsIn: next.segmentsIn.set(message, 0, next.edit) },
      message,
      upTo === 0 ? Infinity : upTo,
    );
  }
  return { ...next, inWindow: next.inWindow.add(index, next.edit) };
}

/** The prunes that happened before `time` applied: whole outputs give way to their placeholders. */
export function applyPrunes(s: WalkState, time: number): WalkState {
  const { prunes, input } = s.context;
  let next = s;
  while (next.nextPrune < prunes.length && prunes[next.nextPrune]!.at < time) {
    const { message } = prunes[next.nextPrune]!;
    next = { ...next, nextPrune: next.nextPrune + 1, prunedSinceCall: true };
    if (!next.inWindow.has(message)) continue;
    const upTo = next.segmentsIn.get(message) ?? 0;
    let part = itemState(next);
    for (const item of input.items[message] ?? []) {
      if ((item.segment ?? 0) >= upTo) continue;
      part = isInForm(item, time) ? addItem(part, item) : removeItem(part, item.key);
    }
    next = { ...next, ...part };
  }
  return { ...next, time };
}
