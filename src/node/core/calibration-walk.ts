/**
 * The calibration's walk: a fold of pure steps over the session, message by message and call by
 * call. The view is kept current as the runtime's history window says (compactions, prunes:
 * calibration-view.ts), and at each measured call the provider's count is put where it belongs
 * (calibration-call.ts) — the runtime (measured at the first call, and again only at a switch the
 * rows show), what the call added (its growth shared by the steps of calibration-steps.ts),
 * hidden reasoning (by the reasoning policy the walk is given, one input: reasoning-policy.ts
 * chooses it), and what nothing explains. Every step is `(state, …) → state` over the immutable
 * state of calibration-state.ts; one walk per policy tried, sharing only the indexed input.
 */
import { measureCall } from './calibration-call';
import {
  billed,
  frozen,
  startWalk,
  transient,
  type WalkContext,
  type WalkRules,
  type WalkState,
} from './calibration-state';
import { addItem, addSegments, applyPrunes, enterMessage } from './calibration-view';
import type { ModelCall } from './types';

export {
  history,
  notReceivedItems,
  orderedView,
  uncounted,
  walkContext,
  type HiddenBlock,
  type Snapshot,
  type WalkContext,
  type WalkState,
} from './calibration-state';

/** What the walk meets, in order: a message, each of its calls, the message's end; the session's end. */
export type WalkEvent =
  | { readonly kind: 'message'; readonly index: number }
  | { readonly kind: 'call'; readonly call: ModelCall }
  | { readonly kind: 'messageEnd'; readonly index: number }
  | { readonly kind: 'end' };

/** The session's messages and calls as the walk meets them, up to message `until` (a policy weighed on a prefix). */
export function* walkEvents(messages: number, calls: readonly ModelCall[], until: number): Generator<WalkEvent> {
  const byMessage = new Map<number, ModelCall[]>();
  for (const call of calls) {
    const list = byMessage.get(call.message);
    if (list) list.push(call);
    else byMessage.set(call.message, [call]);
  }
  for (let index = 0; index < messages && index <= until; index++) {
    yield { kind: 'message', index };
    for (const call of byMessage.get(index) ?? []) yield { kind: 'call', call };
    yield { kind: 'messageEnd', index };
  }
  if (until === Number.POSITIVE_INFINITY) yield { kind: 'end' };
}

/**
 * One step of the walk. Its many small updates (an item in, a cost set) are batched under the
 * step's edit (persistent.ts: what the step itself allocated is written in place, never what the
 * given state holds); the edit is closed when the step returns, so the state it returns is never
 * written again: a step of a thousand items allocates as one.
 */
export function walkStep(s: WalkState, event: WalkEvent): WalkState {
  // A message entered writes once, unless a compaction restarts the view: no batch needed.
  if (event.kind === 'message' && !s.context.window[event.index]?.restarted) return stepOn(s, event);
  return frozen(stepOn(transient(s), event));
}

function stepOn(s: WalkState, event: WalkEvent): WalkState {
  switch (event.kind) {
    case 'message':
      return enterMessage(s, event.index);
    case 'call':
      return callStep(s, event.call);
    case 'messageEnd':
      // Whatever the message holds beyond its calls' steps (its final reply) is in view after it.
      return addSegments(s, event.index, Number.POSITIVE_INFINITY);
    case 'end':
      // The prunes after the last call: the view now.
      return applyPrunes(s, Number.POSITIVE_INFINITY);
  }
}

/**
 * A call met: a compaction call is billed apart (a different request); any other first has the
 * prunes before it applied and, when it measured a prompt (only those are numbered), is measured;
 * then the items of its step are in view.
 */
export function callStep(s: WalkState, call: ModelCall): WalkState {
  return addSegments(callMet(s, call), call.message, call.segment + 1);
}

function callMet(s: WalkState, call: ModelCall): WalkState {
  if (call.compaction) return { ...s, bills: billed(s, { kind: 'compaction', call }) };
  const pruned = applyPrunes(s, call.time);
  return call.prompt === null ? pruned : measureCall(pruned, call);
}

/** The walk of a session under `rules`, its calls given, up to message `until`: the state at its end. */
export function walk(
  context: WalkContext,
  rules: Partial<WalkRules>,
  calls: readonly ModelCall[],
  until = Number.POSITIVE_INFINITY,
): WalkState {
  // Instructions and the skill catalog are in every request, from the first call on.
  let state = context.input.alwaysLoaded.reduce(addItem, startWalk(context, rules));
  for (const event of walkEvents(context.input.session.messages.length, calls, until)) state = walkStep(state, event);
  return state;
}
