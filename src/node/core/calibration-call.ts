/**
 * A measured call's steps, in the order the walk takes them (`measureCall`): the call opened
 * (what is fresh in its prompt), the runtime at it, the account of its growth chosen and
 * applied, the growth shared, the call billed, its timeline point, the reference call's
 * snapshot, the call closed. Each is `(state, call) → state`, pure; what the call decided so far
 * travels in the state (`current`). The decisions themselves are calibration-runtime.ts's,
 * calibration-account.ts's and calibration-steps.ts's; these steps put them in the state.
 */
import { callQuestions, chooseAccount } from './calibration-account';
import { firstRuntime, remeasuredRuntime, runtimeAtSwitch, type RuntimeStep } from './calibration-runtime';
import { describedByDefinitions, hiddenProduced, shareGrowth, sumTokens } from './calibration-steps';
import {
  billed,
  calOf,
  itemState,
  earlierTurnFresh,
  hiddenTotal,
  history,
  keptTurn,
  orderedView,
  uncounted,
  type Measuring,
  type WalkState,
} from './calibration-state';
import { assignAll, assignCost, excludeReasoning } from './calibration-view';
import { familyRules } from './providers';
import type { PMap } from './persistent';
import type { Item, ModelCall, TimelineEvent } from './types';

const withEvent = (events: readonly TimelineEvent[], event: TimelineEvent): readonly TimelineEvent[] =>
  events.includes(event) ? events : [...events, event];

/** A measured call, step by step. */
export function measureCall(s: WalkState, call: ModelCall): WalkState {
  const steps = [
    runtimeAtCall,
    chooseCallAccount,
    applyCallAccount,
    shareCallGrowth,
    billCall,
    recordPoint,
    keepSnapshot,
  ];
  return closeCall(
    steps.reduce((state, step) => step(state, call), openCall(s, call)),
    call,
  );
}

/**
 * The call opened: its number and turn, what shrank the view since the last call, what is new to
 * its prompt — the whole view at the first call; after a compaction, everything but the
 * always-loaded items (the runtime rebuilt the request around them), and what the dropped
 * requests held (their hidden reasoning, their unexplained share) is gone.
 */
export function openCall(s: WalkState, call: ModelCall): Measuring {
  const first = s.overhead === null;
  const compacted = s.compactedSinceCall;
  const { alwaysKeys } = s.context;
  const keys =
    first || compacted
      ? [...s.view.keys()].filter((key) => first || !alwaysKeys.has(key) || !s.cal.has(key))
      : [...s.addedSinceCall];
  const events: TimelineEvent[] = [];
  if (compacted) events.push('compaction');
  if (s.prunedSinceCall) events.push('pruning');
  const state = compacted ? { ...s, hidden: [], unexplained: 0 } : s;
  return {
    ...state,
    callNumber: s.callNumber + 1,
    currentTurn: s.context.turnOf[call.message] ?? 0,
    current: {
      prompt: call.prompt!,
      events,
      first,
      fresh: keys.map((key) => s.view.get(key)!),
      hiddenBefore: compacted ? 0 : hiddenTotal(s),
      change: null,
      reasoning: [],
      account: null,
      added: [],
      basis: 'estimated',
      dropped: 0,
    },
  };
}

/** A runtime step's costs set and its change reported. */
function withRuntime<S extends WalkState>(s: S, step: RuntimeStep): S {
  return {
    ...assignAll(s, step.assigned),
    runtimeChanges: s.runtimeChanges.push(step.change),
    overhead: step.overhead,
  } as S;
}

/**
 * The runtime at the call: measured at the first call (all it counted beyond what the server
 * sees); at a later one, whether it switched — back to a combination measured before (taken as
 * then) or to one still to measure (`change`, measured once the growth is accounted for).
 */
export function runtimeAtCall(s: Measuring, call: ModelCall): Measuring {
  const { current } = s;
  const numbered = { call, number: s.callNumber };
  if (current.first) {
    const next = withRuntime(s, firstRuntime(numbered, current.fresh, current.prompt));
    return { ...next, current: { ...current, added: current.fresh } };
  }
  const before = {
    key: s.runtimeKey,
    since: s.previous?.call.time ?? Number.NEGATIVE_INFINITY,
    overhead: s.overhead!,
    measured: s.overheads,
    changes: s.context.changes,
  };
  const step = runtimeAtSwitch(before, numbered);
  if ('toMeasure' in step) return { ...s, current: { ...current, change: step.toMeasure } };
  return {
    ...s,
    runtimeChanges: s.runtimeChanges.push(step.metAgain.change),
    overhead: step.metAgain.overhead,
    current: { ...current, events: withEvent(current.events, 'overhead_change') },
  };
}

/** Visible reasoning in view from before this call's new items, still counted. */
export function carriedReasoning(s: WalkState, fresh: readonly Item[]): number {
  const freshKeys = new Set(fresh.map((i) => i.key));
  if (s.rules.policy.keepsToolTurns) {
    // Only what a turn without tool calls left may be dropped — its last reasoning too, new to this prompt.
    let droppable = 0;
    for (const key of s.reasoningInView) {
      if (uncounted(s, key) || keptTurn(s, key)) continue;
      if (!freshKeys.has(key)) droppable += s.cal.get(key) ?? 0;
      else if (earlierTurnFresh(s, key)) droppable += s.view.get(key)!.tokens;
    }
    return droppable;
  }
  let total = s.reasoningCal;
  const seen = new Set<string>();
  for (const item of fresh) {
    if (seen.has(item.key) || !s.reasoningInView.has(item.key) || uncounted(s, item.key)) continue;
    seen.add(item.key);
    total -= s.cal.get(item.key) ?? 0;
  }
  return total;
}

/**
 * Which account of a later call's growth the counts support best (calibration-account.ts
 * decides, from the questions the call puts); kept: the questions asked, the call's fit, its
 * votes on the provider's rule.
 */
export function chooseCallAccount(s: Measuring): Measuring {
  const { current, previous } = s;
  if (current.first) return s;
  const { fresh } = current;
  const reasoning = fresh.filter((i) => i.reasoning && !i.rough && !earlierTurnFresh(s, i.key));
  const reasoningTokens = sumTokens(reasoning);
  const q = callQuestions({
    previousHidden: previous && s.inWindow.has(previous.call.message) ? previous.hidden : null,
    carriedHidden: hiddenTotal(s),
    newUserMessage: s.userSinceCall,
    oldReasoning: s.userSinceCall ? carriedReasoning(s, fresh) : 0,
    reasoningTokens,
  });
  const { account, fit, votes } = chooseAccount({
    policy: s.rules.policy,
    fixed: s.rules.fixed,
    q,
    growth: {
      prompt: current.prompt,
      overhead: s.overhead!,
      carried: s.calTotal - calOf(s, fresh),
      unexplained: s.unexplained,
      estimate: sumTokens(fresh),
      previousHidden: previous?.hidden ?? 0,
    },
    rough: fresh.some((i) => i.rough),
    runtimeChanged: current.change !== null,
    shrunk: s.prunedSinceCall || s.compactedSinceCall,
    vote: { call: s.callNumber, turnHidden: turnHidden(s) },
  });
  const asks = {
    hidden: s.asks.hidden || q.canAdd,
    turn: s.asks.turn || q.newTurn,
    reasoning: s.asks.reasoning || q.weighsReasoning,
    reasoningTurn: s.asks.reasoningTurn || q.weighsOld,
  };
  const fits = fit ? s.fits.push(fit) : s.fits;
  return { ...s, asks, fits, votes: s.votes.concat(votes), current: { ...current, reasoning, account } };
}

/** The hidden reasoning carried from calls of the current turn. */
const turnHidden = (s: WalkState): number =>
  s.hidden.filter((h) => h.call >= s.turnStart).reduce((n, h) => n + h.tokens, 0);

/**
 * Earlier turns' reasoning the provider dropped at this user message: in no context now. What
 * was in a prompt before counts as dropped; the previous turn's last reasoning, new to this
 * prompt, never was in one.
 */
export function dropReasoningAtTurn(s: Measuring): Measuring {
  const freshKeys = new Set(s.current.fresh.map((i) => i.key));
  let part = itemState(s);
  let dropped = 0;
  for (const key of s.reasoningInView) {
    if (uncounted(part, key) || keptTurn(s, key)) continue;
    if (freshKeys.has(key) && !earlierTurnFresh(s, key)) continue;
    if (!freshKeys.has(key)) dropped += part.cal.get(key) ?? 0;
    part = excludeReasoning(part, key, 'droppedAtTurn');
    part = assignCost(part, part.view.get(key)!, 0, 'measured');
  }
  return { ...s, ...part, current: { ...s.current, dropped } };
}

/**
 * The chosen account applied: reasoning dropped at a new turn, the hidden reasoning kept or
 * added, the visible reasoning not received; what the call added is what the provider counts.
 */
export function applyCallAccount(s: Measuring): Measuring {
  const account = s.current.account;
  if (!account) return s;
  let next = account.dropReasoning ? dropReasoningAtTurn(s) : s;
  const { previous } = next;
  let { events } = next.current;
  let hidden = account.keep ? next.hidden : [];
  if (account.add && previous) {
    hidden = [...hidden, { call: previous.number, messageId: previous.call.messageId, tokens: previous.hidden }];
    events = withEvent(events, 'hidden_reasoning');
  }
  next = { ...next, hidden };
  if (!account.received) {
    for (const item of next.current.reasoning) next = excludeReasoning(next, item.key, 'notReceived');
  }
  const { fresh } = next.current;
  const added = fresh.filter((i) => !uncounted(next, i.key));
  const zero = fresh
    .filter((i) => uncounted(next, i.key))
    .map((item) => ({ item, tokens: 0, basis: 'measured' as const }));
  next = assignAll(next, zero);
  return { ...next, current: { ...next.current, events, added } };
}

/**
 * What the later call's growth is shared by: its new items, by their estimates, when the growth
 * is plausible for them — or, at a runtime switch, the runtime measured again (how far it may
 * stand from before is calibration-runtime.ts's).
 */
export function shareCallGrowth(s: Measuring, call: ModelCall): Measuring {
  const { current } = s;
  if (current.first) return s;
  const carried = s.calTotal - calOf(s, current.fresh);
  const left = current.prompt - carried - hiddenTotal(s) - s.unexplained;
  if (current.change !== null) return remeasureRuntime(s, call, current.change, left);
  const grown = shareGrowth(current.added, left - s.overhead!, s.unexplained);
  const next = assignAll(s, grown.assigned);
  const events = grown.unexplainedEvent ? withEvent(current.events, 'unexplained') : current.events;
  return {
    ...next,
    unexplained: next.unexplained + grown.unexplained,
    current: { ...current, events, basis: grown.basis },
  };
}

/** The runtime measured again at a switch the rows show, beside what the call added. */
function remeasureRuntime(s: Measuring, call: ModelCall, change: string, left: number): Measuring {
  const recorded = describedByDefinitions(change) ? (s.context.input.runtimeExpected?.(call) ?? null) : null;
  const step = remeasuredRuntime(
    { call, number: s.callNumber, reason: change, before: s.overhead!, recorded },
    s.current.added,
    left,
  );
  const next = withRuntime(s, step);
  let { events } = s.current;
  if (step.unexplained !== null) events = withEvent(events, 'unexplained');
  return {
    ...next,
    unexplained: step.unexplained === null ? next.unexplained : next.unexplained + step.unexplained,
    current: { ...s.current, events: withEvent(events, 'overhead_change'), basis: 'estimated' },
  };
}

/** What the call cost: its prompt as the walk explains it now, and what it produced. */
export function billCall(s: Measuring, call: ModelCall): Measuring {
  if (!s.billing) return s;
  const { prompt, fresh, first, change, hiddenBefore } = s.current;
  const hiddenNow = hiddenTotal(s);
  const overhead = s.overhead ?? 0;
  const bill = {
    kind: 'call' as const,
    call,
    prompt: {
      total: prompt,
      runtime: overhead,
      runtimeFresh: first || change !== null,
      fresh: fresh.map((item) => ({ item, cal: s.cal.get(item.key) ?? 0 })),
      hidden: hiddenNow,
      hiddenFresh: Math.max(0, hiddenNow - hiddenBefore),
      unexplained: prompt - overhead - s.calTotal - hiddenNow,
    },
    produced: (s.context.input.items[call.message] ?? []).filter(
      (i) => (i.segment ?? 0) === call.segment && i.from === undefined && (i.produced ?? 0) > 0,
    ),
  };
  return { ...s, bills: billed(s, bill) };
}

/** The call's point on the timeline; the runtime it ran with, as measured, kept for a switch back. */
export function recordPoint(s: Measuring, call: ModelCall): Measuring {
  const { prompt, added, basis, dropped, hiddenBefore } = s.current;
  const events = added.some((i) => i.skill) ? withEvent(s.current.events, 'skill') : s.current.events;
  const hidden = hiddenTotal(s);
  const first = s.timeline.size === 0;
  const point = {
    call: s.callNumber,
    messageId: call.messageId,
    at: call.time,
    promptTokens: prompt,
    runtimeOverhead: s.overhead ?? 0,
    bySource: { ...s.bySource },
    hiddenReasoning: hidden,
    unexplained: s.unexplained,
    model: call.model ?? null,
    tokenizer: familyRules(call.family).tokenizer,
    added: added
      .filter((i) => !s.context.alwaysKeys.has(i.key) || first)
      .map((i) => ({
        key: i.key,
        label: i.label,
        source: i.source,
        tokens: s.cal.get(i.key) ?? i.tokens,
        measured: basis === 'measured' && s.basis.get(i.key) === 'measured',
      }))
      .sort((a, b) => b.tokens - a.tokens)
      .slice(0, 3),
    events: [...events],
    addedEstimate: sumTokens(added),
    hiddenAdded: hidden - hiddenBefore,
    dropped,
  };
  return {
    ...s,
    runtimeKey: call.runtime,
    overheads: s.overheads.set(call.runtime, s.overhead!),
    timeline: s.timeline.push(point),
    current: { ...s.current, events },
  };
}

/** A persistent map copied into a Map, in its order. */
function toMap<K, V>(from: PMap<K, V>): Map<K, V> {
  const to = new Map<K, V>();
  from.forEach((value, key) => to.set(key, value));
  return to;
}

/** At the reference call, the state kept (as of an earlier call: billing stops, its cost is that far). */
export function keepSnapshot(s: Measuring, call: ModelCall): Measuring {
  if (call !== s.rules.reference) return s;
  const snapshot = {
    view: toMap(s.view),
    cal: toMap(s.cal),
    basis: toMap(s.basis),
    overhead: s.overhead ?? 0,
    hidden: [...s.hidden],
    unexplained: s.unexplained,
    ordered: orderedView(s).filter((i) => !uncounted(s, i.key)),
    history: history(s),
  };
  return { ...s, snapshot, billing: s.billing && s.context.input.asOfCall === undefined };
}

/** The call closed: it is the previous call now (with the hidden reasoning it produced), and nothing is new since. */
export function closeCall(s: Measuring, call: ModelCall): WalkState {
  const produced = s.context.input.items[call.message] ?? [];
  const hidden = hiddenProduced(call, produced, s.context.input.reasoningCopies?.[call.message]);
  return {
    ...s,
    previous: { call, number: s.callNumber, hidden },
    turnStart: s.userSinceCall ? s.callNumber : s.turnStart,
    addedSinceCall: s.addedSinceCall.clear(),
    prunedSinceCall: false,
    compactedSinceCall: false,
    userSinceCall: false,
    current: null,
  };
}
