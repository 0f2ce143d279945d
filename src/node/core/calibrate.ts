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
import { SOURCE_IDS, type SourceId } from '../../shared/sources';
import { apportion } from './apportion';
import { CostLedger, sessionPrices, type Prices } from './costs';
import { familyRules } from './providers';
import type {
  Calibration,
  CalibrationInput,
  Item,
  ModelCall,
  ReasoningPolicy,
  RuntimeChange,
  TimelineEvent,
  TimelinePoint,
  WindowWalk,
} from './types';

/** Growth this far from the estimate is not the new items' cost. */
export function plausible(measured: number, estimated: number): boolean {
  return measured >= 0 && measured >= estimated / 2 - 64 && measured <= estimated * 2 + 64;
}

const emptyBySource = (): Record<SourceId, number> =>
  Object.fromEntries(SOURCE_IDS.map((id) => [id, 0])) as Record<SourceId, number>;

const isInForm = (item: Item, at: number): boolean =>
  (item.from === undefined || item.from < at) && (item.until === undefined || item.until >= at);

/** Hidden reasoning below this is not told apart from the estimates' own error. */
const MIN_HIDDEN = 64;
/** Visible reasoning below this is not weighed (received or not). */
const MIN_REASONING = 48;

interface HiddenBlock {
  call: number;
  messageId: string;
  tokens: number;
}

interface Snapshot {
  view: Map<string, Item>;
  cal: Map<string, number>;
  basis: Map<string, 'measured' | 'estimated'>;
  overhead: number;
  hidden: HiddenBlock[];
  unexplained: number;
  /** The view in request order, and the history, as of that call. */
  ordered: Item[];
  history: number[];
}

export function calibrate(input: CalibrationInput): Calibration {
  const { session, usage } = input;
  const { calls } = session;
  const main = calls.filter((c) => !c.compaction);
  const measuredCalls = main.filter((c) => c.prompt !== null);
  // The call the agent's total describes: the latest whose prompt equals ACP `used`, else the
  // latest measured one. Only its state is kept from the walk (every call's would be calls × view).
  // As of an earlier call (`asOfCall`): that call, its view and its history.
  const asOf = input.asOfCall === undefined ? null : (main[input.asOfCall - 1] ?? null);
  const referenceCall =
    asOf ?? [...measuredCalls].reverse().find((c) => c.prompt === usage?.contextUsed) ?? measuredCalls.at(-1) ?? null;
  const priced = sessionPrices(calls);
  const walk = bestWalk(input, calls, referenceCall, priced?.prices ?? null);
  const spent = walk.ledger?.finish();
  const cost = spent ? { ...spent, pricesFit: priced?.fit ?? null } : null;
  // Visible reasoning the provider was shown not to count is sent by OpenCode but in nobody's context.
  const view = asOf && walk.snapshot ? walk.snapshot.ordered : walk.orderedView().filter((i) => !walk.uncounted(i.key));
  const history = asOf && walk.snapshot ? walk.snapshot.history : walk.history();
  const base = {
    cost,
    view,
    runtimeChanges: walk.runtimeChanges,
    overheadChanges: walk.runtimeChanges.slice(1).map((c) => ({ messageId: c.messageId, delta: c.delta })),
    timeline: walk.timeline,
    calls: main.length,
    history,
    notReceived: walk.notReceivedItems(),
    policy: walk.policy,
    asks: walk.asks,
    droppedAtTurn: [...walk.droppedAtTurn].length,
  };
  const unmeasured = (mode: Calibration['mode'], scaledBecause?: 'contradicting'): Calibration => ({
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
  });
  if (!usage || measuredCalls.length === 0) return unmeasured(usage ? 'scaled' : 'estimate-only');

  let reference = asOf ?? [...measuredCalls].reverse().find((c) => c.prompt === usage.contextUsed);
  const last = measuredCalls.at(-1)!;
  const totalIsCompaction =
    !reference && calls.some((c) => c.compaction && c.prompt === usage.contextUsed && c.time >= last.time);
  const newer = usage.recordedAt > session.messages[last.message]!.lastActivity;
  if (!reference && !totalIsCompaction && !newer) {
    // No call's prompt is the total, and the total is not newer than the calls: the rows and the
    // total contradict each other, so no call can be the reference.
    return unmeasured('scaled', 'contradicting');
  }
  reference ??= last;
  const state = walk.snapshot!;
  const nowKeys = new Set(view.map((i) => i.key));
  const measured = new Map<string, number>();
  const measuredBasis = new Map<string, 'measured' | 'estimated'>();
  const pending: Item[] = [];
  for (const item of view) {
    if (state.view.has(item.key)) {
      measured.set(item.key, state.cal.get(item.key) ?? item.tokens);
      measuredBasis.set(item.key, state.basis.get(item.key) ?? 'estimated');
    } else pending.push(item);
  }
  let leftTokens = 0;
  let leftItems = 0;
  let pruned = false;
  let compacted = false;
  for (const [key, item] of state.view) {
    if (nowKeys.has(key) || walk.uncounted(key)) continue;
    leftItems++;
    leftTokens += state.cal.get(key) ?? item.tokens;
    if (nowKeys.has(`${key}#pruned`)) pruned = true;
    else compacted = true;
  }
  const matches = reference.prompt === usage.contextUsed;
  let unexplained = state.unexplained;
  let afterLastCall: Calibration['afterLastCall'] = null;
  if (!matches && !totalIsCompaction) {
    // The total is newer than the last persisted call: what was added since shares the gap.
    const gap = usage.contextUsed - reference.prompt!;
    const estimate = pending.reduce((n, i) => n + i.tokens, 0);
    const shared = pending.length > 0 && plausible(gap, estimate) ? gap : Math.max(0, Math.min(gap, estimate));
    const parts = apportion(
      shared,
      pending.map((i) => i.tokens),
    );
    afterLastCall = { tokens: shared, shares: new Map(pending.map((item, k) => [item.key, parts[k]!])) };
    unexplained += gap - shared;
  } else if (!matches) {
    unexplained += usage.contextUsed - reference.prompt!;
  }
  return {
    mode: 'measured',
    ...base,
    measured,
    measuredBasis,
    runtimeOverhead: state.overhead,
    reference: {
      messageId: reference.messageId,
      promptTokens: reference.prompt!,
      call: main.indexOf(reference) + 1,
      matchesUsage: matches,
    },
    totalIsCompaction,
    pending,
    left: {
      items: leftItems,
      tokens: leftTokens,
      reason: pruned && compacted ? 'both' : pruned ? 'pruned' : compacted ? 'compacted' : null,
    },
    hidden: {
      tokens: state.hidden.reduce((n, h) => n + h.tokens, 0),
      calls: state.hidden.map((h) => ({ call: h.call, messageId: h.messageId, tokens: h.tokens })),
    },
    afterLastCall,
    unexplained,
  };
}

/**
 * The walk under the reasoning policy the session's counts support best. Which questions arise
 * (hidden reasoning produced, kept across a new user message, visible reasoning sent back) is
 * seen in a first walk; each combination of answers is then walked, and the one whose calls'
 * growth its new items' estimates follow most closely — after one scale for the whole session,
 * as a tokenizer that is not the provider's would need — is kept. Ties keep the expected policy.
 */
function bestWalk(
  input: CalibrationInput,
  calls: readonly ModelCall[],
  reference: ModelCall | null,
  prices: Prices | null,
): Walk {
  const ledger = () => new CostLedger(prices);
  const first = new Walk(input, DEFAULT_POLICY, reference, ledger());
  first.run(calls);
  const { hidden, turn, reasoning, reasoningTurn } = first.asks;
  if (!hidden && !turn && !reasoning && !reasoningTurn) return first;
  // The other policies are weighed on the first POLICY_CALLS measured calls: a provider's policy
  // shows in them as well as in all (a session's thousandth call asks nothing its hundredth did
  // not), and a long session is not walked once per policy.
  const { message: until, call: upTo } = policyPrefix(calls);
  const prefix = (walk: Walk) => walk.fits.filter((f) => f.call <= upTo);
  let best = first;
  let bestError = misfit(prefix(first));
  const answers = (asked: boolean, expected: boolean) => (asked ? [expected, !expected] : [expected]);
  for (const keepsHidden of answers(hidden, true)) {
    for (const dropsAtTurn of answers(turn, false)) {
      for (const receives of answers(reasoning, true)) {
        for (const reasoningTurnOnly of answers(reasoningTurn, false)) {
          const policy = { keepsHidden, dropsAtTurn, receives, reasoningTurnOnly };
          if (keepsHidden && !dropsAtTurn && receives && !reasoningTurnOnly) continue;
          const walk = new Walk(input, policy, reference);
          walk.run(calls, until);
          const error = misfit(prefix(walk));
          // Another policy must fit clearly better than the expected one.
          if (error < bestError * 0.8) {
            best = walk;
            bestError = error;
          }
        }
      }
    }
  }
  if (best === first) return first;
  // Chosen (on the prefix, or without the ledger): walked whole.
  const chosen = new Walk(input, best.policy, reference, ledger());
  chosen.run(calls);
  return chosen;
}

/** Measured calls that weigh a reasoning policy. */
const POLICY_CALLS = 300;

interface Fit {
  /** The call's number (main calls, 1-based). */
  call: number;
  share: number;
  estimate: number;
  clean: boolean;
}

/** Where the POLICY_CALLS-th measured main call is: its message and number (all of them when fewer). */
function policyPrefix(calls: readonly ModelCall[]): { message: number; call: number } {
  let number = 0;
  let measured = 0;
  for (const call of calls) {
    if (call.compaction) continue;
    number++;
    if (call.prompt !== null && ++measured === POLICY_CALLS) return { message: call.message, call: number };
  }
  return { message: Number.POSITIVE_INFINITY, call: Number.POSITIVE_INFINITY };
}

/**
 * How far a walk's growth is from its estimates, after the scale that calls no policy question
 * touches show (a tokenizer that is not the provider's); 1 when too few such calls tell.
 */
function misfit(fits: readonly Fit[]): number {
  if (fits.length === 0) return 0;
  const ratios = fits
    .filter((f) => f.clean && f.estimate > 0)
    .map((f) => f.share / f.estimate)
    .sort((a, b) => a - b);
  const scale = ratios.length >= 3 ? ratios[Math.floor(ratios.length / 2)]! : 1;
  return fits.reduce((n, f) => n + Math.abs(f.share - scale * f.estimate) / (f.estimate + 64), 0);
}

const DEFAULT_POLICY: ReasoningPolicy = {
  keepsHidden: true,
  dropsAtTurn: false,
  receives: true,
  reasoningTurnOnly: false,
};

interface Hypothesis {
  /** Hidden reasoning kept from before: all of it, or none (dropped at a new user message). */
  keep: boolean;
  /** Visible reasoning of earlier turns dropped at this new user message. */
  dropReasoning: boolean;
  /** The previous call's hidden reasoning added to this prompt. */
  add: boolean;
  /** The visible reasoning this call sees for the first time is counted. */
  received: boolean;
}

/** The view kept current step by step, and what each measured call's items cost. */
class Walk {
  readonly window: WindowWalk;
  /** Items in view, by key. */
  readonly view = new Map<string, Item>();
  readonly cal = new Map<string, number>();
  readonly basis = new Map<string, 'measured' | 'estimated'>();
  readonly bySource = emptyBySource();
  overhead: number | null = null;
  private runtimeKey: string | null = null;
  readonly runtimeChanges: RuntimeChange[] = [];
  /** Σ cal over the items in view. */
  private calTotal = 0;
  hidden: HiddenBlock[] = [];
  unexplained = 0;
  /** Visible reasoning the provider does not count (by the counts): in view for OpenCode, not for the model. */
  readonly notReceived = new Set<string>();
  /** For choosing the session's policy: each call's growth against its new items' estimate. */
  readonly fits: Fit[] = [];
  /** Which questions of the policy this session's calls put at all. */
  readonly asks = { hidden: false, turn: false, reasoning: false, reasoningTurn: false };
  /** Visible reasoning of earlier turns the provider dropped at a new user message. */
  readonly droppedAtTurn = new Set<string>();
  /** The runtime as measured for each combination of agent, model and tools: a combination met again is not measured again. */
  private readonly overheads = new Map<string, number>();
  readonly timeline: TimelinePoint[] = [];
  /** The state at the reference call. */
  snapshot: Snapshot | null = null;
  /** The ledger while calls are billed: as of an earlier call, none after it (its cost is that far). */
  private billing: CostLedger | null;
  /** Keys of the reasoning items in view, and Σ cal of those the provider counts (kept as they change). */
  private readonly reasoningInView = new Set<string>();
  private reasoningCal = 0;
  private prunedSinceCall = false;
  private compactedSinceCall = false;
  private userSinceCall = false;
  private addedSinceCall = new Set<string>();
  private readonly inWindow = new Set<number>();
  private readonly alwaysKeys: Set<string>;
  /** Pruned outputs in time order: when their whole form leaves the view. */
  private readonly prunes: { at: number; message: number }[] = [];
  private nextPrune = 0;
  private time = Number.NEGATIVE_INFINITY;
  /** The previous measured call, and the hidden reasoning it produced (beyond what it left visible). */
  private previous: { call: ModelCall; number: number; hidden: number } | null = null;
  /** Segments of each message already in view. */
  private readonly segmentsIn = new Map<number, number>();
  private callNumber = 0;
  private readonly changes: { at: number; what: string; reason?: string }[];
  private readonly itemsByKey = new Map<string, Item>();

  constructor(
    private readonly input: CalibrationInput,
    readonly policy: ReasoningPolicy = DEFAULT_POLICY,
    private readonly reference: ModelCall | null = null,
    /** What each item cost, kept by the walk whose figures the report shows. */
    readonly ledger: CostLedger | null = null,
  ) {
    this.billing = ledger;
    const { session, items, alwaysLoaded } = input;
    this.window = session.window();
    this.alwaysKeys = new Set(alwaysLoaded.map((i) => i.key));
    this.changes = [...(input.changes ?? [])].sort((a, b) => a.at - b.at);
    for (const item of alwaysLoaded) this.add(item);
    items.forEach((list, message) => {
      for (const item of list) {
        this.itemsByKey.set(item.key, item);
        if (item.until !== undefined) this.prunes.push({ at: item.until, message });
      }
    });
    this.prunes.sort((a, b) => a.at - b.at);
  }

  /** Walks the session's messages and calls, up to message `until` (a policy weighed on a prefix). */
  run(calls: readonly ModelCall[], until = Number.POSITIVE_INFINITY): void {
    const byMessage = new Map<number, ModelCall[]>();
    for (const call of calls) byMessage.set(call.message, [...(byMessage.get(call.message) ?? []), call]);
    this.input.session.messages.forEach((message, index) => {
      if (index > until) return;
      if (this.window.append(index)) this.rebuild(index);
      else this.inWindow.add(index);
      if (message.userTurn) this.userSinceCall = true;
      for (const call of byMessage.get(index) ?? []) {
        if (call.compaction) {
          this.billing?.compaction(call);
          this.addSegment(index, call.segment + 1);
          continue;
        }
        this.callNumber++;
        this.advanceTo(call.time);
        if (call.prompt !== null) this.measure(call);
        this.addSegment(index, call.segment + 1);
      }
      this.addSegment(index, Number.POSITIVE_INFINITY);
    });
    if (until === Number.POSITIVE_INFINITY) this.advanceTo(Number.POSITIVE_INFINITY);
  }

  private add(item: Item): void {
    if (this.view.has(item.key)) return;
    this.view.set(item.key, item);
    if (item.reasoning) {
      this.reasoningInView.add(item.key);
      if (!this.uncounted(item.key)) this.reasoningCal += this.cal.get(item.key) ?? 0;
    }
    this.addedSinceCall.add(item.key);
  }

  private remove(key: string): void {
    const item = this.view.get(key);
    if (!item) return;
    this.billing?.leave(item);
    this.view.delete(key);
    this.addedSinceCall.delete(key);
    const cal = this.cal.get(key);
    if (this.reasoningInView.delete(key) && !this.uncounted(key)) this.reasoningCal -= cal ?? 0;
    if (cal !== undefined) {
      this.bySource[item.source] -= cal;
      this.calTotal -= cal;
      this.cal.delete(key);
      this.basis.delete(key);
    }
  }

  /** Brings the items of message `index` up to segment `upTo` (exclusive) into view. */
  private addSegment(index: number, upTo: number): void {
    const from = this.segmentsIn.get(index) ?? 0;
    if (upTo <= from || !this.inWindow.has(index)) {
      this.segmentsIn.set(index, Math.max(from, upTo));
      return;
    }
    for (const item of this.input.items[index] ?? []) {
      const segment = item.segment ?? 0;
      if (segment >= from && segment < upTo && isInForm(item, this.time)) this.add(item);
    }
    this.segmentsIn.set(index, upTo);
  }

  /** A completed compaction: the view is what OpenCode keeps (the request, the summary, its tail). */
  private rebuild(index: number): void {
    this.compactedSinceCall = true;
    const keep = new Set(this.window.order);
    for (const message of [...this.inWindow]) {
      if (keep.has(message)) continue;
      this.inWindow.delete(message);
      for (const item of this.input.items[message] ?? []) this.remove(item.key);
    }
    for (const message of this.window.order) {
      if (this.inWindow.has(message)) continue;
      this.inWindow.add(message);
      if (message === index) continue;
      const upTo = this.segmentsIn.get(message) ?? 0;
      this.segmentsIn.set(message, 0);
      this.addSegment(message, upTo === 0 ? Number.POSITIVE_INFINITY : upTo);
    }
    this.inWindow.add(index);
  }

  /** Applies the prunes that happened before `time`: whole outputs give way to placeholders. */
  private advanceTo(time: number): void {
    while (this.nextPrune < this.prunes.length && this.prunes[this.nextPrune]!.at < time) {
      const { message } = this.prunes[this.nextPrune++]!;
      if (this.inWindow.has(message)) {
        for (const item of this.input.items[message] ?? []) {
          if ((item.segment ?? 0) >= (this.segmentsIn.get(message) ?? 0)) continue;
          if (isInForm(item, time)) this.add(item);
          else this.remove(item.key);
        }
      }
      this.prunedSinceCall = true;
    }
    this.time = time;
  }

  /** Why the runtime may have changed since the previous call: the rows' word for it, or null. */
  private runtimeChange(call: ModelCall): string | null {
    if (this.runtimeKey === null) return null;
    if (call.runtime !== this.runtimeKey) {
      const [agent, model, asked] = JSON.parse(call.runtime) as [unknown, unknown, unknown];
      const [agent0, model0] = JSON.parse(this.runtimeKey) as [unknown, unknown, unknown];
      if (agent !== agent0) return 'another agent';
      if (model !== model0) return 'another model';
      return asked ? 'other tools or system prompt asked for' : 'tools or system prompt back to the defaults';
    }
    const since = this.previous?.call.time ?? Number.NEGATIVE_INFINITY;
    const changed = this.changes.find((c) => c.at > since && c.at <= call.time);
    return changed ? (changed.reason ?? `${changed.what} changed on disk`) : null;
  }

  /** Assigns costs for a measured call. */
  private measure(call: ModelCall): void {
    const prompt = call.prompt!;
    const events = new Set<TimelineEvent>();
    if (this.compactedSinceCall) events.add('compaction');
    if (this.prunedSinceCall) events.add('pruning');
    // New since the last measured call; the whole view at the first call; after a compaction,
    // everything but the always-loaded items (OpenCode rebuilt the request around them).
    const first = this.overhead === null;
    const freshKeys =
      first || this.compactedSinceCall
        ? [...this.view.keys()].filter((key) => first || !this.alwaysKeys.has(key) || !this.cal.has(key))
        : [...this.addedSinceCall];
    const fresh = freshKeys.map((key) => this.view.get(key)!);
    if (this.compactedSinceCall) {
      // What OpenCode no longer sends took its hidden reasoning and its unexplained share along.
      this.hidden = [];
      this.unexplained = 0;
    }
    let carried = this.calTotal - fresh.reduce((n, i) => n + (this.cal.get(i.key) ?? 0), 0);
    const hiddenBefore = this.compactedSinceCall ? 0 : this.hidden.reduce((n, h) => n + h.tokens, 0);
    const reasoning = fresh.filter((i) => i.reasoning && !i.rough);
    const reasoningTokens = reasoning.reduce((n, i) => n + i.tokens, 0);
    let change = first ? null : this.runtimeChange(call);
    const known = this.overheads.get(call.runtime);
    if (change !== null && known !== undefined && call.runtime !== this.runtimeKey) {
      // A combination met before (back to the build agent, say): its runtime as measured then.
      this.runtimeChanges.push({
        messageId: call.messageId,
        call: this.callNumber,
        delta: known - this.overhead!,
        reason: `${change}, as measured before`,
      });
      this.overhead = known;
      events.add('overhead_change');
      change = null;
    }
    let added: Item[] = fresh;
    let basis: 'measured' | 'estimated' = 'estimated';
    let dropped = 0;

    if (first) {
      // The runtime: what the provider counted beyond everything the server can see.
      this.overhead = this.measureRuntime(fresh, prompt);
      this.runtimeChanges.push({
        messageId: call.messageId,
        call: this.callNumber,
        delta: this.overhead,
        reason: 'first call',
      });
    } else {
      const hypothesis = this.choose(prompt, carried, fresh, reasoningTokens, change !== null);
      const previous = this.previous;
      if (hypothesis.dropReasoning) {
        // Earlier turns' reasoning the provider dropped at this user message: in no context now.
        const freshKeys = new Set(fresh.map((i) => i.key));
        for (const key of [...this.reasoningInView]) {
          const item = this.view.get(key)!;
          if (freshKeys.has(key) || this.notReceived.has(key) || this.droppedAtTurn.has(key)) continue;
          dropped += this.cal.get(key) ?? 0;
          this.exclude(this.droppedAtTurn, key);
          this.assign(item, 0, 'measured');
        }
      }
      if (!hypothesis.keep) this.hidden = [];
      if (hypothesis.add && previous) {
        this.hidden.push({ call: previous.number, messageId: previous.call.messageId, tokens: previous.hidden });
        events.add('hidden_reasoning');
      }
      if (!hypothesis.received) {
        for (const item of reasoning) this.exclude(this.notReceived, item.key);
        added = fresh.filter((i) => !this.notReceived.has(i.key));
      }
      for (const item of fresh) if (this.notReceived.has(item.key)) this.assign(item, 0, 'measured');
      const hiddenNow = this.hidden.reduce((n, h) => n + h.tokens, 0);
      carried = this.calTotal - fresh.reduce((n, i) => n + (this.cal.get(i.key) ?? 0), 0);
      const estimated = added.reduce((n, i) => n + i.tokens, 0);
      let share = prompt - this.overhead! - carried - hiddenNow - this.unexplained;
      if (change !== null) {
        // The runtime changed (the rows say so): measured again, the new items at their estimates.
        const before = this.overhead!;
        this.overhead = this.measureRuntime(added, prompt - carried - hiddenNow - this.unexplained);
        this.runtimeChanges.push({
          messageId: call.messageId,
          call: this.callNumber,
          delta: this.overhead - before,
          reason: change,
        });
        events.add('overhead_change');
      } else if (added.length === 0) {
        if (share !== 0) {
          this.unexplained += share;
          events.add('unexplained');
        }
      } else {
        const rough = added.some((i) => i.rough);
        if (!plausible(share, estimated) && this.unexplained < 0 && share > estimated) {
          // The prompts fell earlier by what nothing explained, and now grow by more than the new
          // items explain: the growth undoes that fall first (unexplained, as the fall was), and
          // only the rest is the new items' — an image is never charged for the provider's rebound.
          const rebound = Math.min(share - estimated, -this.unexplained);
          this.unexplained += rebound;
          share -= rebound;
          events.add('unexplained');
        }
        if (plausible(share, estimated) || (rough && share >= 0)) {
          basis = 'measured';
          this.share(added, share, basis);
        } else if (added.some((i) => i.vision) && share > estimated - this.visionOf(added)) {
          // An image: the provider charged what the rest does not explain.
          this.shareWithImages(added, share);
          basis = 'measured';
        } else if (share > 0 && share < estimated) {
          // Less than half the estimate (an estimator that overcounts this text): the measured growth, shrunk.
          this.share(added, share, 'measured');
          basis = 'measured';
        } else {
          // More than twice the estimate, or less than nothing: the items keep their estimates,
          // and what they cannot explain stays unexplained, never inside them.
          this.share(added, estimated, 'estimated');
          this.unexplained += share - estimated;
          events.add('unexplained');
        }
      }
    }
    if (this.billing) {
      const hiddenNow = this.hidden.reduce((n, h) => n + h.tokens, 0);
      const overhead = this.overhead ?? 0;
      this.billing.call(
        call,
        {
          total: prompt,
          runtime: overhead,
          runtimeFresh: first || change !== null,
          fresh: fresh.map((item) => ({ item, cal: this.cal.get(item.key) ?? 0 })),
          hidden: hiddenNow,
          hiddenFresh: Math.max(0, hiddenNow - hiddenBefore),
          unexplained: prompt - overhead - this.calTotal - hiddenNow,
        },
        (this.input.items[call.message] ?? []).filter(
          (i) => (i.segment ?? 0) === call.segment && i.from === undefined && (i.produced ?? 0) > 0,
        ),
      );
    }
    this.runtimeKey = call.runtime;
    this.overheads.set(call.runtime, this.overhead!);
    if (added.some((i) => i.skill)) events.add('skill');
    this.timeline.push({
      call: this.callNumber,
      messageId: call.messageId,
      at: call.time,
      promptTokens: prompt,
      runtimeOverhead: this.overhead ?? 0,
      bySource: { ...this.bySource },
      hiddenReasoning: this.hidden.reduce((n, h) => n + h.tokens, 0),
      unexplained: this.unexplained,
      model: call.model ?? null,
      tokenizer: familyRules(call.family).tokenizer,
      added: added
        .filter((i) => !this.alwaysKeys.has(i.key) || this.timeline.length === 0)
        .map((i) => ({
          key: i.key,
          label: i.label,
          source: i.source,
          tokens: this.cal.get(i.key) ?? i.tokens,
          measured: basis === 'measured' && this.basis.get(i.key) === 'measured',
        }))
        .sort((a, b) => b.tokens - a.tokens)
        .slice(0, 3),
      events: [...events],
      addedEstimate: added.reduce((n, i) => n + i.tokens, 0),
      hiddenAdded: this.hidden.reduce((n, h) => n + h.tokens, 0) - hiddenBefore,
      dropped,
    });
    if (call === this.reference) {
      this.snapshot = {
        view: new Map(this.view),
        cal: new Map(this.cal),
        basis: new Map(this.basis),
        overhead: this.overhead ?? 0,
        hidden: [...this.hidden],
        unexplained: this.unexplained,
        ordered: this.orderedView().filter((i) => !this.uncounted(i.key)),
        history: this.history(),
      };
      if (this.input.asOfCall !== undefined) this.billing = null;
    }
    this.previous = { call, number: this.callNumber, hidden: this.hiddenProduced(call) };

    this.addedSinceCall = new Set();
    this.prunedSinceCall = false;
    this.compactedSinceCall = false;
    this.userSinceCall = false;
  }

  /**
   * Which account of this call's growth the counts support best: the previous call's hidden
   * reasoning kept or not, what was kept dropped at a new user message or not, the visible
   * reasoning counted or not. Each choice away from the expected one must earn its place by
   * explaining clearly more of the growth.
   */
  private choose(
    prompt: number,
    carried: number,
    fresh: readonly Item[],
    reasoningTokens: number,
    runtimeChanged: boolean,
  ): Hypothesis {
    const previous = this.previous;
    const canAdd = previous !== null && previous.hidden >= MIN_HIDDEN && this.inWindow.has(previous.call.message);
    const carriedHidden = this.hidden.reduce((n, h) => n + h.tokens, 0);
    // A new user message, with hidden reasoning the provider may drop there (kept, or the last call's).
    const newTurn = this.userSinceCall && (carriedHidden > 0 || canAdd);
    const oldReasoning = this.userSinceCall ? this.carriedReasoning(fresh) : 0;
    const weighsOld = oldReasoning >= MIN_REASONING;
    const weighsReasoning = reasoningTokens >= MIN_REASONING;
    if (canAdd) this.asks.hidden = true;
    if (newTurn) this.asks.turn = true;
    if (weighsReasoning) this.asks.reasoning = true;
    if (weighsOld) this.asks.reasoningTurn = true;
    const drops = newTurn && this.policy.dropsAtTurn;
    const expected: Hypothesis = {
      keep: !drops,
      add: canAdd && this.policy.keepsHidden && !drops,
      received: this.policy.receives,
      dropReasoning: weighsOld && this.policy.reasoningTurnOnly,
    };
    if (runtimeChanged) return expected;
    const rough = fresh.some((i) => i.rough);
    const estimate = fresh.reduce((n, i) => n + i.tokens, 0);
    const residual = (option: Hypothesis) => {
      const hidden = (option.keep ? carriedHidden : 0) + (option.add ? previous!.hidden : 0);
      const share =
        prompt - this.overhead! - carried - hidden - this.unexplained + (option.dropReasoning ? oldReasoning : 0);
      return share - (estimate - (option.received ? 0 : reasoningTokens));
    };
    const expectedResidual = residual(expected);
    const expectedEstimate = estimate - (expected.received ? 0 : reasoningTokens);
    if (!rough)
      this.fits.push({
        call: this.callNumber,
        share: expectedResidual + expectedEstimate,
        estimate: expectedEstimate,
        // A call no question of the policy touches shows how far the tokenizer is from the provider's.
        clean: !canAdd && !newTurn && !weighsReasoning && !weighsOld,
      });
    // The session's policy holds unless this call's counts refute it beyond doubt: another
    // account explains all but a quarter of what it leaves, and what it leaves is far more than
    // the estimates could be off by (DeepSeek, for one, returns the reasoning of some calls only).
    const uncertainty = 64 + (rough ? 0.35 : 0.15) * estimate;
    if (Math.abs(expectedResidual) <= 2 * uncertainty) return expected;
    let best = expected;
    let bestResidual = Math.abs(expectedResidual);
    for (const keep of newTurn ? [true, false] : [true]) {
      for (const add of canAdd ? [true, false] : [false]) {
        for (const received of weighsReasoning ? [true, false] : [expected.received]) {
          for (const dropReasoning of weighsOld ? [false, true] : [false]) {
            const option = { keep, add, received, dropReasoning };
            const r = Math.abs(residual(option));
            if (r < bestResidual) {
              best = option;
              bestResidual = r;
            }
          }
        }
      }
    }
    return bestResidual <= Math.abs(expectedResidual) / 4 ? best : expected;
  }

  /** Visible reasoning in view from before this call's new items, still counted. */
  private carriedReasoning(fresh: readonly Item[]): number {
    let total = this.reasoningCal;
    const seen = new Set<string>();
    for (const item of fresh) {
      if (seen.has(item.key) || !this.reasoningInView.has(item.key) || this.uncounted(item.key)) continue;
      seen.add(item.key);
      total -= this.cal.get(item.key) ?? 0;
    }
    return total;
  }

  /**
   * What a call produced out of sight: its output and reasoning tokens beyond the estimates of
   * what it left — its reply, its visible reasoning, its tool calls' inputs.
   */
  private hiddenProduced(call: ModelCall): number {
    const copies = this.input.reasoningCopies?.[call.message];
    // Encrypted reasoning sent several times: counted as often as it is sent.
    if (copies && call.tokens) return Math.round(call.tokens.reasoning * copies);
    let visible = 0;
    for (const item of this.input.items[call.message] ?? []) {
      // A pruned output has two forms of one call: its input counts once.
      if ((item.segment ?? 0) === call.segment && item.from === undefined) visible += item.produced ?? 0;
    }
    const hidden = call.produced - visible;
    // Below a quarter of what it produced, the difference is the estimates' own error.
    return hidden >= MIN_HIDDEN && hidden >= 0.25 * call.produced ? hidden : 0;
  }

  private visionOf(items: readonly Item[]): number {
    return items.reduce((n, i) => n + (i.vision ?? 0), 0);
  }

  /** Items share `total` by their estimates (nothing below zero). */
  private share(items: readonly Item[], total: number, basis: 'measured' | 'estimated'): void {
    const parts = apportion(
      Math.max(0, total),
      items.map((i) => i.tokens),
    );
    items.forEach((item, k) => this.assign(item, parts[k]!, basis));
  }

  /**
   * The runtime measured as what the prompt holds beyond `seen`, the new items at their
   * estimates — or, when they alone outweigh what is left, shrunk to fit it and the runtime 0.
   */
  private measureRuntime(items: readonly Item[], left: number): number {
    const estimated = items.reduce((n, i) => n + i.tokens, 0);
    if (left >= estimated) {
      this.share(items, estimated, 'estimated');
      return left - estimated;
    }
    this.share(items, left, 'estimated');
    return 0;
  }

  /** Images take what the other items (at their estimates) leave of the growth. */
  private shareWithImages(items: readonly Item[], total: number): void {
    const text = items.filter((i) => !i.vision);
    const images = items.filter((i) => i.vision);
    const textTokens = text.reduce((n, i) => n + i.tokens, 0);
    this.share(text, textTokens, 'estimated');
    const parts = apportion(
      total - textTokens,
      images.map((i) => i.tokens),
    );
    images.forEach((item, k) => this.assign(item, parts[k]!, 'measured'));
  }

  /** Sets an item's cost, keeping the running totals. */
  private assign(item: Item, tokens: number, basis: 'measured' | 'estimated'): void {
    const old = this.cal.get(item.key) ?? 0;
    this.billing?.settle(item, tokens);
    if (this.reasoningInView.has(item.key) && !this.uncounted(item.key)) this.reasoningCal += tokens - old;
    this.cal.set(item.key, tokens);
    this.basis.set(item.key, basis);
    this.bySource[item.source] += tokens - old;
    this.calTotal += tokens - old;
  }

  /** Reasoning the provider no longer counts: out of the counted reasoning's sum. */
  private exclude(set: Set<string>, key: string): void {
    if (this.uncounted(key)) return;
    if (this.reasoningInView.has(key)) this.reasoningCal -= this.cal.get(key) ?? 0;
    set.add(key);
  }

  notReceivedItems(): Item[] {
    return [...this.notReceived, ...this.droppedAtTurn].flatMap((key) => this.itemsByKey.get(key) ?? []);
  }

  /** Reasoning OpenCode sends but the provider does not count (never, or no longer). */
  uncounted(key: string): boolean {
    return this.notReceived.has(key) || this.droppedAtTurn.has(key);
  }

  /** Items in view now, in the order the model reads them: always-loaded, then history. */
  orderedView(): Item[] {
    const out: Item[] = [];
    for (const item of this.view.values()) if (this.alwaysKeys.has(item.key)) out.push(item);
    for (const message of this.window.order) {
      for (const item of this.input.items[message] ?? []) if (this.view.has(item.key)) out.push(item);
    }
    return out;
  }

  history(): number[] {
    const live = new Set(this.window.order);
    return this.input.session.messages.map((_, i) => i).filter((i) => !live.has(i));
  }
}

/** OpenCode's compaction request (a user message with a compaction part) is no user's prompt. */
