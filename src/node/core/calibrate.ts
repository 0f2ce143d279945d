/**
 * Calibration by the provider's own counts. Every model call OpenCode makes records how big its
 * prompt was (the step's `input + cache.read + cache.write`). Walking the session call by call
 * with the request view in step, this module:
 *
 * - measures the runtime overhead the server cannot see (system prompt, environment, tool
 *   schemas) as the first call's prompt minus what the server knows was in it, and re-measures
 *   it when a later call's growth cannot be explained by what it added;
 * - gives each call's new items the growth the provider measured for that call, shared by their
 *   estimates, so an item's tokens are what it actually cost;
 * - after a compaction, re-measures everything it keeps except the always-loaded items;
 * - describes the context at the call the agent's total (ACP `used`) refers to: items added
 *   after that call are "pending", items gone since (pruned, compacted) are "left".
 *
 * Pure. Items carry estimates already; nothing here tokenizes.
 */
import type { Tokens } from '../../shared/opencode/format';
import { SOURCE_IDS, type SourceId } from '../../shared/sources';
import { apportion } from './apportion';
import type { Contribution } from './attribute';
import { HistoryWindow, type StoredMessage } from './request-view';
import type { UsageInput } from './figures';

export interface Item extends Omit<Contribution, 'texts'> {
  /** Estimated tokens. */
  tokens: number;
  /** Estimated with the cheap estimator (history): good for sharing growth, not for judging it. */
  rough?: boolean;
}

export type TokenConvention = 'input-excludes-cache' | 'input-includes-cache';

/** The prompt size a step's tokens describe, under the convention the data follows. */
export function promptOf(tokens: Tokens, acpUsed?: number): { prompt: number; convention: TokenConvention } {
  const cached = (tokens.cacheRead ?? 0) + (tokens.cacheWrite ?? 0);
  let convention: TokenConvention = 'input-excludes-cache';
  // OpenCode stores input without the cached part, and total = input + cache + output + reasoning.
  // Data whose total leaves the cache out (or whose ACP total equals input alone) counted the
  // cached tokens inside input already.
  if (tokens.total !== undefined) {
    if (cached > 0 && tokens.total === tokens.input + tokens.output + tokens.reasoning)
      convention = 'input-includes-cache';
  } else if (cached > 0 && acpUsed !== undefined && acpUsed === tokens.input) {
    convention = 'input-includes-cache';
  }
  return { prompt: convention === 'input-excludes-cache' ? tokens.input + cached : tokens.input, convention };
}

export interface ModelCall {
  /** Index of the assistant message that made the call. */
  message: number;
  messageId: string;
  time: number;
  /** The compaction (summary) call: a different request, not part of the chain. */
  compaction: boolean;
  /** Provider-measured prompt tokens; null when the call recorded none (failed, aborted). */
  prompt: number | null;
  tokens: Tokens | null;
}

/** One call per assistant message (OpenCode makes one model call per assistant message). */
export function modelCalls(messages: readonly StoredMessage[], acpUsed?: number): ModelCall[] {
  const calls: ModelCall[] = [];
  messages.forEach((message, index) => {
    const { info } = message;
    if (info.role !== 'assistant') return;
    let tokens: Tokens | undefined;
    for (const part of message.parts) if (part?.type === 'step-finish' && part.tokens) tokens = part.tokens;
    tokens ??= info.tokens;
    const measured = tokens && tokens.input + (tokens.cacheRead ?? 0) + (tokens.cacheWrite ?? 0) > 0 ? tokens : null;
    calls.push({
      message: index,
      messageId: message.id,
      time: info.time.created ?? 0,
      compaction: info.summary,
      prompt: measured ? promptOf(measured, acpUsed).prompt : null,
      tokens: measured,
    });
  });
  return calls;
}

export interface TimelinePoint {
  /** 1-based number of the model call in the session (main calls only). */
  call: number;
  messageId: string;
  at: number;
  promptTokens: number;
  runtimeOverhead: number;
  bySource: Record<SourceId, number>;
  /** The largest items this call added, with what they cost. */
  /** `measured`: the tokens are the growth the provider measured, not an estimate. */
  added: { label: string; source: SourceId; tokens: number; measured: boolean }[];
  events: ('compaction' | 'pruning' | 'skill' | 'overhead_change')[];
}

export interface CalibrationInput {
  messages: readonly StoredMessage[];
  /** Per message, every item it can put in view (both forms of a pruned output). */
  items: readonly (readonly Item[])[];
  /** Instructions and the skill catalog: in every request, from the first call on. */
  alwaysLoaded: readonly Item[];
  usage: UsageInput | null;
}

export interface OverheadChange {
  messageId: string;
  delta: number;
}

export interface Calibration {
  /** measured: step data explains the total; scaled: none, estimates scaled to the total. */
  mode: 'measured' | 'scaled' | 'estimate-only';
  /** What is in context now (the next request), in request order. */
  view: Item[];
  /** Tokens of each item of `view` as measured at the reference call (absent: pending). */
  measured: Map<string, number>;
  /** Whether each of those came from measured growth or fell back to its estimate. */
  measuredBasis: Map<string, 'measured' | 'estimated'>;
  runtimeOverhead: number | null;
  reference: { messageId: string; promptTokens: number; call: number; matchesUsage: boolean } | null;
  /** The agent's total is the prompt of a compaction call (the history sent to be summarised). */
  totalIsCompaction: boolean;
  /** In view now but added after the reference call: not in the agent's total yet. */
  pending: Item[];
  /** In the reference call, gone from the context since (pruned or compacted after it). */
  left: { items: number; tokens: number; reason: 'pruned' | 'compacted' | 'both' | null };
  /** The agent's total minus the reference call's prompt (0 when they match). */
  unexplained: number;
  overheadChanges: OverheadChange[];
  timeline: TimelinePoint[];
  calls: number;
  /** History messages (before the latest compaction, outside its tail). */
  history: number[];
}

/** Growth this far from the estimate is not the new items' cost: the overhead changed. */
export function plausible(measured: number, estimated: number): boolean {
  return measured >= 0 && measured >= estimated / 2 - 64 && measured <= estimated * 2 + 64;
}

const emptyBySource = (): Record<SourceId, number> =>
  Object.fromEntries(SOURCE_IDS.map((id) => [id, 0])) as Record<SourceId, number>;

const isInForm = (item: Item, at: number): boolean =>
  (item.from === undefined || item.from < at) && (item.until === undefined || item.until >= at);

export function calibrate(input: CalibrationInput): Calibration {
  const { messages, items, alwaysLoaded, usage } = input;
  const calls = modelCalls(messages, usage?.contextUsed);
  const main = calls.filter((c) => !c.compaction);
  const measuredCalls = main.filter((c) => c.prompt !== null);
  const reference = chooseReference(measuredCalls, usage);

  const walk = new Walk(messages, items, alwaysLoaded);
  let referenceState: State | null = null;
  let callNumber = 0;
  let compactedSinceCall = false;
  let pendingEvents = new Set<TimelinePoint['events'][number]>();
  const byMessage = new Map(calls.map((c) => [c.message, c]));

  messages.forEach((message, index) => {
    const call = byMessage.get(index);
    if (call && call.compaction) pendingEvents.add('compaction');
    if (call && !call.compaction) {
      callNumber++;
      walk.advanceTo(call.time);
      if (walk.prunedSinceCall) pendingEvents.add('pruning');
      if (call.prompt !== null) {
        const added = walk.measure(call, compactedSinceCall);
        if (added.overheadChanged) pendingEvents.add('overhead_change');
        if (added.items.some((i) => i.skill)) pendingEvents.add('skill');
        walk.timeline.push({
          call: callNumber,
          messageId: call.messageId,
          at: call.time,
          promptTokens: call.prompt,
          runtimeOverhead: walk.overhead ?? 0,
          bySource: { ...walk.bySource },
          added: added.items
            .map((i) => ({
              label: i.label,
              source: i.source,
              tokens: walk.cal.get(i.key) ?? i.tokens,
              measured: walk.basis.get(i.key) === 'measured',
            }))
            .sort((a, b) => b.tokens - a.tokens)
            .slice(0, 3),
          events: [...pendingEvents],
        });
        pendingEvents = new Set();
        compactedSinceCall = false;
        if (reference && call === reference.call) {
          referenceState = {
            view: new Map(walk.view),
            cal: new Map(walk.cal),
            basis: new Map(walk.basis),
            overhead: walk.overhead ?? 0,
          };
        }
      }
    }
    if (walk.append(index)) compactedSinceCall = true;
  });
  walk.advanceTo(Number.POSITIVE_INFINITY);

  const view = walk.orderedView();
  const history = walk.history();
  if (!reference || !referenceState || !usage) {
    return {
      mode: usage ? 'scaled' : 'estimate-only',
      view,
      measured: new Map(),
      measuredBasis: new Map(),
      runtimeOverhead: null,
      reference: null,
      totalIsCompaction: false,
      pending: [],
      left: { items: 0, tokens: 0, reason: null },
      unexplained: 0,
      overheadChanges: walk.overheadChanges,
      timeline: walk.timeline,
      calls: main.length,
      history,
    };
  }
  const state: State = referenceState;
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
    if (nowKeys.has(key)) continue;
    leftItems++;
    leftTokens += state.cal.get(key) ?? item.tokens;
    if (nowKeys.has(`${key}#pruned`)) pruned = true;
    else compacted = true;
  }
  return {
    mode: 'measured',
    view,
    measured,
    measuredBasis,
    runtimeOverhead: state.overhead,
    reference: {
      messageId: reference.call.messageId,
      promptTokens: reference.call.prompt!,
      call: main.indexOf(reference.call) + 1,
      matchesUsage: reference.matches,
    },
    totalIsCompaction:
      !reference.matches &&
      calls.some((c) => c.compaction && c.prompt === usage.contextUsed && c.time >= reference.call.time),
    pending,
    left: {
      items: leftItems,
      tokens: leftTokens,
      reason: pruned && compacted ? 'both' : pruned ? 'pruned' : compacted ? 'compacted' : null,
    },
    unexplained: usage.contextUsed - reference.call.prompt!,
    overheadChanges: walk.overheadChanges,
    timeline: walk.timeline,
    calls: main.length,
    history,
  };
}

interface State {
  view: Map<string, Item>;
  cal: Map<string, number>;
  basis: Map<string, 'measured' | 'estimated'>;
  overhead: number;
}

/**
 * The call the agent's total describes: the latest measured call whose prompt equals ACP
 * `used` (OpenCode reports the last call's prompt), else the latest measured call.
 */
function chooseReference(
  calls: readonly ModelCall[],
  usage: UsageInput | null,
): { call: ModelCall; matches: boolean } | null {
  if (calls.length === 0) return null;
  if (usage) {
    for (let i = calls.length - 1; i >= 0; i--) {
      if (calls[i]!.prompt === usage.contextUsed) return { call: calls[i]!, matches: true };
    }
  }
  return { call: calls[calls.length - 1]!, matches: false };
}

/** The view kept current message by message, and what each measured call's items cost. */
class Walk {
  readonly window: HistoryWindow;
  /** Items in view, by key. */
  readonly view = new Map<string, Item>();
  readonly cal = new Map<string, number>();
  readonly basis = new Map<string, 'measured' | 'estimated'>();
  readonly bySource = emptyBySource();
  overhead: number | null = null;
  /** Σ cal over the items in view. */
  private calTotal = 0;
  readonly overheadChanges: OverheadChange[] = [];
  readonly timeline: TimelinePoint[] = [];
  prunedSinceCall = false;
  private addedSinceCall = new Set<string>();
  private readonly inWindow = new Set<number>();
  private readonly alwaysKeys: Set<string>;
  /** Pruned outputs in time order: when their whole form leaves the view. */
  private readonly prunes: { at: number; message: number }[] = [];
  private nextPrune = 0;
  private time = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly messages: readonly StoredMessage[],
    private readonly items: readonly (readonly Item[])[],
    alwaysLoaded: readonly Item[],
  ) {
    this.window = new HistoryWindow(messages);
    this.alwaysKeys = new Set(alwaysLoaded.map((i) => i.key));
    for (const item of alwaysLoaded) this.add(item);
    items.forEach((list, message) => {
      for (const item of list) if (item.until !== undefined) this.prunes.push({ at: item.until, message });
    });
    this.prunes.sort((a, b) => a.at - b.at);
  }

  private add(item: Item): void {
    if (this.view.has(item.key)) return;
    this.view.set(item.key, item);
    this.addedSinceCall.add(item.key);
  }

  private remove(key: string): void {
    const item = this.view.get(key);
    if (!item) return;
    this.view.delete(key);
    this.addedSinceCall.delete(key);
    const cal = this.cal.get(key);
    if (cal !== undefined) {
      this.bySource[item.source] -= cal;
      this.calTotal -= cal;
      this.cal.delete(key);
      this.basis.delete(key);
    }
  }

  /** Applies the prunes that happened before `time`: whole outputs give way to placeholders. */
  advanceTo(time: number): void {
    this.prunedSinceCall = false;
    while (this.nextPrune < this.prunes.length && this.prunes[this.nextPrune]!.at < time) {
      const { message } = this.prunes[this.nextPrune++]!;
      if (this.inWindow.has(message)) this.refresh(message, time);
      this.prunedSinceCall = true;
    }
    this.time = time;
  }

  /** Brings a message's items in view to their form at `time`. */
  private refresh(message: number, time: number): void {
    for (const item of this.items[message] ?? []) {
      if (isInForm(item, time)) this.add(item);
      else this.remove(item.key);
    }
  }

  /** Adds message `index` to the history; true when it completed a compaction. */
  append(index: number): boolean {
    const reset = this.window.append(index);
    if (!reset) {
      this.inWindow.add(index);
      for (const item of this.items[index] ?? []) if (isInForm(item, this.time)) this.add(item);
      return false;
    }
    const keep = new Set(this.window.order);
    for (const message of [...this.inWindow]) {
      if (keep.has(message)) continue;
      this.inWindow.delete(message);
      for (const item of this.items[message] ?? []) this.remove(item.key);
    }
    for (const message of this.window.order) {
      if (this.inWindow.has(message)) continue;
      this.inWindow.add(message);
      for (const item of this.items[message] ?? []) if (isInForm(item, this.time)) this.add(item);
    }
    return true;
  }

  /** Assigns costs for a measured call; returns the items it measured as new. */
  measure(call: ModelCall, afterCompaction: boolean): { items: Item[]; overheadChanged: boolean } {
    const prompt = call.prompt!;
    // New since the last measured call; the whole view at the first call; after a compaction,
    // everything but the always-loaded items. Only those cost a pass over the view.
    const fresh =
      this.overhead === null || afterCompaction
        ? [...this.view.values()].filter(
            (i) => this.overhead === null || !this.alwaysKeys.has(i.key) || !this.cal.has(i.key),
          )
        : [...this.addedSinceCall].map((key) => this.view.get(key)!);
    this.addedSinceCall = new Set();
    const freshKeys = new Set(fresh.map((i) => i.key));
    const carriedTokens = this.calTotal - fresh.reduce((n, i) => n + (this.cal.get(i.key) ?? 0), 0);
    const estimated = fresh.reduce((n, i) => n + i.tokens, 0);
    let overheadChanged = false;
    let share: number;
    let basis: 'measured' | 'estimated' = 'estimated';
    if (this.overhead === null) {
      // First measured call: the overhead is what the provider counted beyond what we can see.
      share = estimated;
      this.overhead = prompt - carriedTokens - estimated;
    } else {
      const growth = prompt - this.overhead - carriedTokens;
      // Rough estimates (history) share the growth but cannot tell an overhead change from
      // their own error: a change there is caught at the first call after the compaction.
      const rough = fresh.some((i) => i.rough);
      if (fresh.length > 0 && (plausible(growth, estimated) || (rough && growth >= 0))) {
        share = growth;
        basis = 'measured';
      } else {
        share = estimated;
        const before = this.overhead;
        this.overhead = prompt - carriedTokens - estimated;
        if (this.overhead !== before) {
          this.overheadChanges.push({ messageId: call.messageId, delta: this.overhead - before });
          overheadChanged = true;
        }
      }
    }
    // Growth with nothing estimated to carry it (empty texts) is the runtime's.
    if (estimated === 0 && share !== 0) {
      this.overhead += share;
      share = 0;
    }
    // Never below zero: when what we can see outweighs the prompt, scale it down to fit.
    if (this.overhead < 0) {
      share = Math.max(0, share + this.overhead);
      this.overhead = 0;
    }
    const parts = apportion(
      share,
      fresh.map((i) => i.tokens),
    );
    fresh.forEach((item, k) => this.assign(item, parts[k]!, basis));
    if (carriedTokens > prompt) {
      const carried = [...this.view.values()].filter((i) => !freshKeys.has(i.key));
      this.rescaleCarried(carried, prompt - share - this.overhead);
    }
    return { items: fresh.filter((i) => !this.alwaysKeys.has(i.key) || this.timeline.length === 0), overheadChanged };
  }

  /** Sets an item's cost, keeping the running totals. */
  private assign(item: Item, tokens: number, basis: 'measured' | 'estimated'): void {
    const old = this.cal.get(item.key) ?? 0;
    this.cal.set(item.key, tokens);
    this.basis.set(item.key, basis);
    this.bySource[item.source] += tokens - old;
    this.calTotal += tokens - old;
  }

  /** Only when kept items alone exceed the prompt: shrink them in proportion. */
  private rescaleCarried(carried: readonly Item[], budget: number): void {
    const parts = apportion(
      Math.max(0, budget),
      carried.map((i) => this.cal.get(i.key) ?? 0),
    );
    carried.forEach((item, k) => this.assign(item, parts[k]!, this.basis.get(item.key) ?? 'estimated'));
  }

  /** Items in view now, in the order the model reads them: always-loaded, then history. */
  orderedView(): Item[] {
    const out: Item[] = [];
    for (const item of this.view.values()) if (this.alwaysKeys.has(item.key)) out.push(item);
    for (const message of this.window.order) {
      for (const item of this.items[message] ?? []) if (this.view.has(item.key)) out.push(item);
    }
    return out;
  }

  history(): number[] {
    const live = new Set(this.window.order);
    return this.messages.map((_, i) => i).filter((i) => !live.has(i));
  }
}
