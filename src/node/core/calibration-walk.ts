/**
 * The calibration's walk: the view kept current message by message and step by step, as the
 * runtime's history window says (compactions, prunes), and at each measured call the provider's
 * count put where it belongs — the runtime (measured at the first call, and again only at a
 * switch the rows show), what the call added (its growth shared by the steps of
 * calibration-steps.ts), hidden reasoning (by the reasoning policy the walk is given, one input:
 * reasoning-policy.ts chooses it), and what nothing explains. Stateful inside, pure outside:
 * one walk per policy tried, nothing shared. What is decided at a call is decided by pure steps
 * over what the walk knows then — the runtime (calibration-runtime.ts), the account of the
 * reasoning (calibration-account.ts), the growth shared (calibration-steps.ts) —; the walk keeps
 * the view and the running sums, and applies what they decide.
 */
import {
  DEFAULT_POLICY,
  describedByDefinitions,
  emptyBySource,
  hiddenProduced,
  isInForm,
  shareGrowth,
  sumTokens,
} from './calibration-steps';
import { callQuestions, chooseAccount, type Account, type Fit } from './calibration-account';
import { firstRuntime, remeasuredRuntime, runtimeAtSwitch, type RuntimeStep } from './calibration-runtime';
import type { CostLedger } from './costs';
import { familyRules } from './providers';
import type {
  CalibrationInput,
  Item,
  ModelCall,
  PolicyQuestion,
  PolicyVote,
  ReasoningPolicy,
  RuntimeChange,
  TimelineEvent,
  TimelinePoint,
  WindowWalk,
} from './types';

export interface HiddenBlock {
  call: number;
  messageId: string;
  tokens: number;
}

/** The walk's state at the reference call. */
export interface Snapshot {
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

/** What a measured call added, on what basis, and what reasoning it dropped. */
interface CallOutcome {
  added: Item[];
  basis: 'measured' | 'estimated';
  dropped: number;
}

/** The view kept current step by step, and what each measured call's items cost. */
export class Walk {
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
  /** Each call's counts on the questions the provider's rule answers (reasoning-policy.ts judges them). */
  readonly votes: PolicyVote[] = [];
  /** Per message, its turn (the user messages before it); the turns that made tool calls. */
  private readonly turnOf: number[] = [];
  private readonly toolTurns = new Set<number>();
  private readonly messageOf = new Map<string, number>();
  /** The turn of the call being measured, and the number of its turn's first measured call. */
  private currentTurn = 0;
  private turnStart = 0;
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
    /** Questions the provider's rule answers: no call's counts may answer them otherwise. */
    private readonly fixed: ReadonlySet<PolicyQuestion> = new Set(),
  ) {
    this.billing = ledger;
    const { session, items, alwaysLoaded } = input;
    this.window = session.window();
    this.alwaysKeys = new Set(alwaysLoaded.map((i) => i.key));
    this.changes = [...(input.changes ?? [])].sort((a, b) => a.at - b.at);
    for (const item of alwaysLoaded) this.add(item);
    let turn = 0;
    for (const message of session.messages) this.turnOf.push(message.userTurn ? ++turn : turn);
    items.forEach((list, message) => {
      for (const item of list) {
        this.itemsByKey.set(item.key, item);
        this.messageOf.set(item.key, message);
        if (item.tool) this.toolTurns.add(this.turnOf[message] ?? 0);
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
        this.advanceTo(call.time);
        // Only a call that measured a prompt has a number (numberedCalls).
        if (call.prompt !== null) {
          this.callNumber++;
          this.measure(call);
        }
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
      this.bySource[item.source] = (this.bySource[item.source] ?? 0) - cal;
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

  /** Assigns costs for a measured call: the runtime, what it added, the hidden reasoning, the rest. */
  private measure(call: ModelCall): void {
    const prompt = call.prompt!;
    const events = new Set<TimelineEvent>();
    this.currentTurn = this.turnOf[call.message] ?? 0;
    if (this.compactedSinceCall) events.add('compaction');
    if (this.prunedSinceCall) events.add('pruning');
    const first = this.overhead === null;
    const fresh = this.freshItems(first);
    if (this.compactedSinceCall) {
      // What OpenCode no longer sends took its hidden reasoning and its unexplained share along.
      this.hidden = [];
      this.unexplained = 0;
    }
    const hiddenBefore = this.compactedSinceCall ? 0 : this.hiddenTotal();
    const change = first ? null : this.runtimeMetBefore(call, events);
    const outcome = first ? this.firstCall(call, fresh, prompt) : this.laterCall(call, prompt, fresh, change, events);
    this.bill(call, prompt, fresh, first || change !== null, hiddenBefore);
    this.runtimeKey = call.runtime;
    this.overheads.set(call.runtime, this.overhead!);
    if (outcome.added.some((i) => i.skill)) events.add('skill');
    this.timeline.push(this.point(call, prompt, outcome, events, hiddenBefore));
    if (call === this.reference) this.keepSnapshot();
    const produced = this.input.items[call.message] ?? [];
    this.previous = {
      call,
      number: this.callNumber,
      hidden: hiddenProduced(call, produced, this.input.reasoningCopies?.[call.message]),
    };
    if (this.userSinceCall) this.turnStart = this.callNumber;
    this.addedSinceCall = new Set();
    this.prunedSinceCall = false;
    this.compactedSinceCall = false;
    this.userSinceCall = false;
  }

  /**
   * New since the last measured call; the whole view at the first call; after a compaction,
   * everything but the always-loaded items (OpenCode rebuilt the request around them).
   */
  private freshItems(first: boolean): Item[] {
    const keys =
      first || this.compactedSinceCall
        ? [...this.view.keys()].filter((key) => first || !this.alwaysKeys.has(key) || !this.cal.has(key))
        : [...this.addedSinceCall];
    return keys.map((key) => this.view.get(key)!);
  }

  private hiddenTotal(): number {
    return this.hidden.reduce((n, h) => n + h.tokens, 0);
  }

  private calOf(items: readonly Item[]): number {
    return items.reduce((n, i) => n + (this.cal.get(i.key) ?? 0), 0);
  }

  // ── The runtime at a switch ─────────────────────────────────────────────────────────────────

  /**
   * Whether the runtime switched since the previous call, and is still to measure (returned), or
   * went back to a combination measured before (taken as then): calibration-runtime.ts decides.
   */
  private runtimeMetBefore(call: ModelCall, events: Set<TimelineEvent>): string | null {
    const step = runtimeAtSwitch(
      {
        key: this.runtimeKey,
        since: this.previous?.call.time ?? Number.NEGATIVE_INFINITY,
        overhead: this.overhead!,
        measured: this.overheads,
        changes: this.changes,
      },
      { call, number: this.callNumber },
    );
    if ('toMeasure' in step) return step.toMeasure;
    this.runtimeChanges.push(step.metAgain.change);
    this.overhead = step.metAgain.overhead;
    events.add('overhead_change');
    return null;
  }

  /** The runtime measured again at a switch the rows show (calibration-runtime.ts decides how far it stands). */
  private remeasureRuntime(
    call: ModelCall,
    change: string,
    added: readonly Item[],
    left: number,
    events: Set<TimelineEvent>,
  ): void {
    const recorded = describedByDefinitions(change) ? (this.input.runtimeExpected?.(call) ?? null) : null;
    const step = remeasuredRuntime(
      { call, number: this.callNumber, reason: change, before: this.overhead!, recorded },
      added,
      left,
    );
    this.overhead = this.applyRuntime(step);
    if (step.unexplained !== null) {
      this.unexplained += step.unexplained;
      events.add('unexplained');
    }
  }

  /** The first call: the runtime is what the provider counted beyond everything the server can see. */
  private firstCall(call: ModelCall, fresh: Item[], prompt: number): CallOutcome {
    this.overhead = this.applyRuntime(firstRuntime({ call, number: this.callNumber }, fresh, prompt));
    return { added: fresh, basis: 'estimated', dropped: 0 };
  }

  /** A runtime step's costs set and its change reported; the runtime's new size. */
  private applyRuntime({ overhead, assigned, change }: RuntimeStep): number {
    for (const a of assigned) this.assign(a.item, a.tokens, a.basis);
    this.runtimeChanges.push(change);
    return overhead;
  }

  // ── A later call: the policy's account of its growth, then the growth shared ─────────────────

  private laterCall(
    call: ModelCall,
    prompt: number,
    fresh: Item[],
    change: string | null,
    events: Set<TimelineEvent>,
  ): CallOutcome {
    const reasoning = fresh.filter((i) => i.reasoning && !i.rough && !this.earlierTurnFresh(i.key));
    const reasoningTokens = sumTokens(reasoning);
    const account = this.choose(prompt, this.calTotal - this.calOf(fresh), fresh, reasoningTokens, change !== null);
    const { added, dropped } = this.applyAccount(account, fresh, reasoning, events);
    const carried = this.calTotal - this.calOf(fresh);
    const left = prompt - carried - this.hiddenTotal() - this.unexplained;
    if (change !== null) {
      this.remeasureRuntime(call, change, added, left, events);
      events.add('overhead_change');
      return { added, basis: 'estimated', dropped };
    }
    const grown = shareGrowth(added, left - this.overhead!, this.unexplained);
    for (const a of grown.assigned) this.assign(a.item, a.tokens, a.basis);
    this.unexplained += grown.unexplained;
    if (grown.unexplainedEvent) events.add('unexplained');
    return { added, basis: grown.basis, dropped };
  }

  /** The chosen account applied: reasoning dropped at a new turn, hidden reasoning kept or added, reasoning not received. */
  private applyAccount(
    account: Account,
    fresh: readonly Item[],
    reasoning: readonly Item[],
    events: Set<TimelineEvent>,
  ): { added: Item[]; dropped: number } {
    const previous = this.previous;
    let dropped = 0;
    if (account.dropReasoning) {
      // Earlier turns' reasoning the provider dropped at this user message: in no context now.
      const freshKeys = new Set(fresh.map((i) => i.key));
      for (const key of [...this.reasoningInView]) {
        const item = this.view.get(key)!;
        if (this.notReceived.has(key) || this.droppedAtTurn.has(key) || this.keptTurn(key)) continue;
        if (freshKeys.has(key) && !this.earlierTurnFresh(key)) continue;
        // The previous turn's last reasoning reaches the prompt only now: it never was in one.
        if (!freshKeys.has(key)) dropped += this.cal.get(key) ?? 0;
        this.exclude(this.droppedAtTurn, key);
        this.assign(item, 0, 'measured');
      }
    }
    if (!account.keep) this.hidden = [];
    if (account.add && previous) {
      this.hidden.push({ call: previous.number, messageId: previous.call.messageId, tokens: previous.hidden });
      events.add('hidden_reasoning');
    }
    if (!account.received) for (const item of reasoning) this.exclude(this.notReceived, item.key);
    const added = fresh.filter((i) => !this.uncounted(i.key));
    for (const item of fresh) if (this.uncounted(item.key)) this.assign(item, 0, 'measured');
    return { added, dropped };
  }

  // ── What the call cost, and what the timeline and the reference call keep ──────────────────

  private bill(call: ModelCall, prompt: number, fresh: readonly Item[], runtimeFresh: boolean, hiddenBefore: number) {
    if (!this.billing) return;
    const hiddenNow = this.hiddenTotal();
    const overhead = this.overhead ?? 0;
    this.billing.call(
      call,
      {
        total: prompt,
        runtime: overhead,
        runtimeFresh,
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

  private point(
    call: ModelCall,
    prompt: number,
    { added, basis, dropped }: CallOutcome,
    events: ReadonlySet<TimelineEvent>,
    hiddenBefore: number,
  ): TimelinePoint {
    return {
      call: this.callNumber,
      messageId: call.messageId,
      at: call.time,
      promptTokens: prompt,
      runtimeOverhead: this.overhead ?? 0,
      bySource: { ...this.bySource },
      hiddenReasoning: this.hiddenTotal(),
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
      addedEstimate: sumTokens(added),
      hiddenAdded: this.hiddenTotal() - hiddenBefore,
      dropped,
    };
  }

  /** The state at the reference call (as of an earlier call: no billing after it, its cost is that far). */
  private keepSnapshot(): void {
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

  /**
   * Which account of this call's growth the counts support best (calibration-account.ts
   * decides, from the questions the call puts); the walk keeps what the decision shows: the
   * questions asked, the call's fit, its votes on the provider's rule.
   */
  private choose(
    prompt: number,
    carried: number,
    fresh: readonly Item[],
    reasoningTokens: number,
    runtimeChanged: boolean,
  ): Account {
    const previous = this.previous;
    const q = callQuestions({
      previousHidden: previous && this.inWindow.has(previous.call.message) ? previous.hidden : null,
      carriedHidden: this.hiddenTotal(),
      newUserMessage: this.userSinceCall,
      oldReasoning: this.userSinceCall ? this.carriedReasoning(fresh) : 0,
      reasoningTokens,
    });
    if (q.canAdd) this.asks.hidden = true;
    if (q.newTurn) this.asks.turn = true;
    if (q.weighsReasoning) this.asks.reasoning = true;
    if (q.weighsOld) this.asks.reasoningTurn = true;
    const turnHidden = this.hidden.filter((h) => h.call >= this.turnStart).reduce((n, h) => n + h.tokens, 0);
    const { account, fit, votes } = chooseAccount({
      policy: this.policy,
      fixed: this.fixed,
      q,
      growth: {
        prompt,
        overhead: this.overhead!,
        carried,
        unexplained: this.unexplained,
        estimate: sumTokens(fresh),
        previousHidden: previous?.hidden ?? 0,
      },
      rough: fresh.some((i) => i.rough),
      runtimeChanged,
      shrunk: this.prunedSinceCall || this.compactedSinceCall,
      vote: { call: this.callNumber, turnHidden },
    });
    if (fit) this.fits.push(fit);
    this.votes.push(...votes);
    return account;
  }

  /**
   * New to this prompt at a user message, yet of an earlier turn (the previous turn's last
   * reasoning), and droppable there: under a policy that keeps only the turns with tool calls.
   */
  private earlierTurnFresh(key: string): boolean {
    if (!this.policy.keepsToolTurns || !this.userSinceCall || this.keptTurn(key)) return false;
    const message = this.messageOf.get(key);
    return message !== undefined && (this.turnOf[message] ?? 0) < this.currentTurn;
  }

  /** Reasoning of a turn that made tool calls, which the policy keeps for the session (DeepSeek). */
  private keptTurn(key: string): boolean {
    if (!this.policy.keepsToolTurns) return false;
    const message = this.messageOf.get(key);
    return message !== undefined && this.toolTurns.has(this.turnOf[message] ?? 0);
  }

  /** Visible reasoning in view from before this call's new items, still counted. */
  private carriedReasoning(fresh: readonly Item[]): number {
    if (this.policy.keepsToolTurns) {
      // Only what a turn without tool calls left may be dropped — its last reasoning too, new to this prompt.
      const freshKeys = new Set(fresh.map((i) => i.key));
      let droppable = 0;
      for (const key of this.reasoningInView) {
        if (this.uncounted(key) || this.keptTurn(key)) continue;
        if (!freshKeys.has(key)) droppable += this.cal.get(key) ?? 0;
        else if (this.earlierTurnFresh(key)) droppable += this.view.get(key)!.tokens;
      }
      return droppable;
    }
    let total = this.reasoningCal;
    const seen = new Set<string>();
    for (const item of fresh) {
      if (seen.has(item.key) || !this.reasoningInView.has(item.key) || this.uncounted(item.key)) continue;
      seen.add(item.key);
      total -= this.cal.get(item.key) ?? 0;
    }
    return total;
  }

  /** Sets an item's cost, keeping the running totals. */
  private assign(item: Item, tokens: number, basis: 'measured' | 'estimated'): void {
    const old = this.cal.get(item.key) ?? 0;
    this.billing?.settle(item, tokens);
    if (this.reasoningInView.has(item.key) && !this.uncounted(item.key)) this.reasoningCal += tokens - old;
    this.cal.set(item.key, tokens);
    this.basis.set(item.key, basis);
    this.bySource[item.source] = (this.bySource[item.source] ?? 0) + tokens - old;
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
