/**
 * Calibration by the provider's own counts. Every model call OpenCode makes records how big its
 * prompt was (the step's `input + cache.read + cache.write`) and how much it produced. Walking the
 * session call by call with the request view in step, this module puts every token of every
 * prompt where the provider counted it:
 *
 * - **the runtime** (OpenCode's system prompt, environment, tool schemas — invisible to the
 *   server) is measured at the first call of a runtime: the prompt minus what the server can see.
 *   It is measured again only when the rows show the runtime changed (another agent, model,
 *   tool set or system prompt; an instruction or skill file changed on disk) — never to absorb
 *   growth nothing else explains;
 * - **what a call added** (new messages, tool results, placeholders of pruned outputs) shares the
 *   growth the provider measured for that call, by its estimates, when the growth is plausible
 *   for it; an image added by the call takes what the rest does not explain;
 * - **hidden reasoning** (what a call produced beyond the text it left: OpenAI's and Anthropic's
 *   models think out of sight) is kept apart, measured: for each call the walk weighs whether the
 *   provider kept the previous call's hidden reasoning, dropped what it kept at a new user
 *   message, and received the visible reasoning sent back — and keeps what the counts say;
 * - **what nothing explains** is unexplained, carried as long as the prompts show it.
 *
 * At the call the agent's total (ACP `used`) refers to, the context is described: items added
 * after it are pending; when the total is newer than every persisted call, the gap is what was
 * added since (shared by that content); when the rows contradict the total outright, the report
 * falls back to scaling.
 *
 * Pure. Items carry estimates already; nothing here tokenizes.
 */
import { apportion } from './apportion';
import { catalogPricing } from './catalog-prices';
import { numberedCalls, plausible, sumTokens } from './calibration-steps';
import { costOf } from './calibration-bills';
import { history, notReceivedItems, orderedView, uncounted, type Snapshot, type WalkState } from './calibration-walk';
import { sessionPrices } from './costs';
import { bestWalk } from './reasoning-policy';
import type { Calibration, CalibrationInput, Item, ModelCall, UsageInput } from './types';

/** What every calibration reports, measured or not. */
type Base = Pick<
  Calibration,
  | 'cost'
  | 'view'
  | 'runtimeChanges'
  | 'overheadChanges'
  | 'timeline'
  | 'calls'
  | 'history'
  | 'notReceived'
  | 'policy'
  | 'asks'
  | 'rule'
  | 'uncountedCalls'
  | 'droppedAtTurn'
>;

/**
 * The pipeline: the reference call (the one the agent's total describes) → the walk under the
 * reasoning policy the counts support (reasoning-policy.ts: the policy is the walk's one input
 * about the provider) → the context at the reference call: what is measured, pending, left
 * behind, added after the last call, unexplained.
 */
export function calibrate(given: CalibrationInput): Calibration {
  // Calls that carry no cost are priced from the catalog where it knows their model (the source said).
  const catalog = catalogPricing(given.session.calls);
  const input = catalog ? { ...given, session: { ...given.session, calls: catalog.calls } } : given;
  const { session, usage } = input;
  const { calls } = session;
  const measuredCalls = numberedCalls(calls);
  // As of an earlier call (`asOfCall`, numbered among the measured ones): that call, its view and its history.
  const asOf = input.asOfCall === undefined ? null : (measuredCalls[input.asOfCall - 1] ?? null);
  const priced = catalog?.prices ? { prices: catalog.prices, fit: 'exact' as const } : sessionPrices(calls);
  const { walk, judgement } = bestWalk(input, calls, referenceCall(asOf, measuredCalls, usage));
  const spent = costOf(walk.bills, priced?.prices ?? null);
  const fit = { pricesFit: priced?.fit ?? null, ...(catalog ? { pricesSource: catalog.source } : {}) };
  const base = {
    ...baseOf(walk, asOf, measuredCalls.length, spent ? { ...spent, ...fit } : null),
    rule: judgement,
    uncountedCalls: calls.filter((c) => !c.compaction && c.prompt === null).length,
  };
  if (!usage || measuredCalls.length === 0) return unmeasured(base, usage ? 'scaled' : 'estimate-only');
  const last = measuredCalls.at(-1)!;
  const matching = asOf ?? [...measuredCalls].reverse().find((c) => c.prompt === usage.contextUsed);
  const totalIsCompaction =
    !matching && calls.some((c) => c.compaction && c.prompt === usage.contextUsed && c.time >= last.time);
  const newer = usage.recordedAt > session.messages[last.message]!.lastActivity;
  // No call's prompt is the total, and the total is not newer than the calls: the rows and the
  // total contradict each other, so no call can be the reference.
  if (!matching && !totalIsCompaction && !newer) return unmeasured(base, 'scaled', 'contradicting');
  const reference = matching ?? last;
  const state = walk.snapshot!;
  const { measured, measuredBasis, pending } = measuredAt(state, base.view);
  const matches = reference.prompt === usage.contextUsed;
  const after = !matches && !totalIsCompaction ? afterLastCall(usage.contextUsed - reference.prompt!, pending) : null;
  const beyond = matches ? 0 : after ? after.unexplained : usage.contextUsed - reference.prompt!;
  return {
    mode: 'measured',
    ...base,
    measured,
    measuredBasis,
    runtimeOverhead: state.overhead,
    reference: {
      messageId: reference.messageId,
      promptTokens: reference.prompt!,
      call: measuredCalls.indexOf(reference) + 1,
      matchesUsage: matches,
    },
    totalIsCompaction,
    pending,
    left: leftBehind(state, base.view, (key) => uncounted(walk, key)),
    hidden: {
      tokens: state.hidden.reduce((n, h) => n + h.tokens, 0),
      calls: state.hidden.map((h) => ({ call: h.call, messageId: h.messageId, tokens: h.tokens })),
    },
    afterLastCall: after && { tokens: after.tokens, shares: after.shares },
    unexplained: state.unexplained + beyond,
  };
}

/**
 * The call the agent's total describes: the latest whose prompt equals ACP `used`, else the
 * latest measured one; as of an earlier call, that one. Only its state is kept from the walk
 * (every call's would be calls × view).
 */
export function referenceCall(
  asOf: ModelCall | null,
  measuredCalls: readonly ModelCall[],
  usage: UsageInput | null,
): ModelCall | null {
  return (
    asOf ?? [...measuredCalls].reverse().find((c) => c.prompt === usage?.contextUsed) ?? measuredCalls.at(-1) ?? null
  );
}

function baseOf(
  walk: WalkState,
  asOf: ModelCall | null,
  calls: number,
  cost: Calibration['cost'],
): Omit<Base, 'rule' | 'uncountedCalls'> {
  // Visible reasoning the provider was shown not to count is sent by OpenCode but in nobody's context.
  const view = asOf && walk.snapshot ? walk.snapshot.ordered : orderedView(walk).filter((i) => !uncounted(walk, i.key));
  const runtimeChanges = walk.runtimeChanges.toArray();
  return {
    cost,
    view,
    runtimeChanges,
    overheadChanges: runtimeChanges.slice(1).map((c) => ({ messageId: c.messageId, delta: c.delta })),
    timeline: walk.timeline.toArray(),
    calls,
    history: asOf && walk.snapshot ? walk.snapshot.history : history(walk),
    notReceived: notReceivedItems(walk),
    policy: walk.rules.policy,
    asks: walk.asks,
    droppedAtTurn: walk.droppedAtTurn.size,
  };
}

/** No call can describe the total: the view and the walk's figures, nothing measured. */
function unmeasured(base: Base, mode: Calibration['mode'], scaledBecause?: 'contradicting'): Calibration {
  return {
    mode,
    ...(scaledBecause ? { scaledBecause } : {}),
    ...base,
    measured: new Map(),
    measuredBasis: new Map(),
    runtimeOverhead: null,
    reference: null,
    totalIsCompaction: false,
    pending: [],
    left: { items: 0, tokens: 0, reason: null },
    hidden: { tokens: 0, calls: [] },
    afterLastCall: null,
    unexplained: 0,
  };
}

/** Of the view now: what the reference call measured (its figure and basis), and what came after it (pending). */
export function measuredAt(state: Pick<Snapshot, 'view' | 'cal' | 'basis'>, view: readonly Item[]) {
  const measured = new Map<string, number>();
  const measuredBasis = new Map<string, 'measured' | 'estimated'>();
  const pending: Item[] = [];
  for (const item of view) {
    if (state.view.has(item.key)) {
      measured.set(item.key, state.cal.get(item.key) ?? item.tokens);
      measuredBasis.set(item.key, state.basis.get(item.key) ?? 'estimated');
    } else pending.push(item);
  }
  return { measured, measuredBasis, pending };
}

/** What the reference call counted that the view now lacks, and why it left (pruned, compacted). */
export function leftBehind(
  state: Pick<Snapshot, 'view' | 'cal'>,
  view: readonly Item[],
  uncounted: (key: string) => boolean,
): Calibration['left'] {
  const nowKeys = new Set(view.map((i) => i.key));
  let tokens = 0;
  let items = 0;
  let pruned = false;
  let compacted = false;
  for (const [key, item] of state.view) {
    if (nowKeys.has(key) || uncounted(key)) continue;
    items++;
    tokens += state.cal.get(key) ?? item.tokens;
    if (nowKeys.has(`${key}#pruned`)) pruned = true;
    else compacted = true;
  }
  return { items, tokens, reason: pruned && compacted ? 'both' : pruned ? 'pruned' : compacted ? 'compacted' : null };
}

/**
 * The total is newer than the last persisted call: what was added since shares the gap, by its
 * estimates where the gap is plausible for them; what they cannot take is unexplained.
 */
export function afterLastCall(
  gap: number,
  pending: readonly Item[],
): { tokens: number; shares: Map<string, number>; unexplained: number } {
  const estimate = sumTokens(pending);
  const shared = pending.length > 0 && plausible(gap, estimate) ? gap : Math.max(0, Math.min(gap, estimate));
  const parts = apportion(
    shared,
    pending.map((i) => i.tokens),
  );
  return {
    tokens: shared,
    shares: new Map(pending.map((item, k) => [item.key, parts[k]!])),
    unexplained: gap - shared,
  };
}
