/**
 * The calibration walk's state: what the walk knows after each step, immutable. Every step
 * (calibration-view.ts, calibration-call.ts) takes a state and returns a new one; the
 * collections are persistent (persistent.ts), so a step shares everything it does not change
 * — adding an item to a view of thousands copies a few nodes, not the view. Insertion order is
 * kept where the walk iterates (ordered maps and sets): which items are fresh at a call, and
 * in what order costs are settled, follow it.
 *
 * The context is what the walk is given and never changes: the session's items and messages,
 * indexed once and shared by every policy walked (reasoning-policy.ts walks several).
 */
import { closeEdit, Keys, newEdit, PList, PMap, PSet, type Edit } from './persistent';
import type { SourceId } from '../../shared/sources';
import type { Bill } from './calibration-bills';
import type { Account, Fit } from './calibration-account';
import { DEFAULT_POLICY, emptyBySource } from './calibration-steps';
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
} from './types';

export type Basis = 'measured' | 'estimated';

export interface HiddenBlock {
  call: number;
  messageId: string;
  tokens: number;
}

/** The walk's state at the reference call. */
export interface Snapshot {
  view: Map<string, Item>;
  cal: Map<string, number>;
  basis: Map<string, Basis>;
  overhead: number;
  hidden: HiddenBlock[];
  unexplained: number;
  /** The view in request order, and the history, as of that call. */
  ordered: Item[];
  history: number[];
}

/** The history window after message `index` was appended: restarted (a compaction), and its order. */
export interface WindowStep {
  readonly restarted: boolean;
  readonly order: PList<number>;
}

/** What the walk is given, indexed once: shared by every walk of the same input. */
export interface WalkContext {
  readonly input: CalibrationInput;
  readonly alwaysKeys: ReadonlySet<string>;
  /** Per message, its turn (the user messages before it); the turns that made tool calls. */
  readonly turnOf: readonly number[];
  readonly toolTurns: ReadonlySet<number>;
  readonly messageOf: ReadonlyMap<string, number>;
  readonly itemsByKey: ReadonlyMap<string, Item>;
  /** Pruned outputs in time order: when their whole form leaves the view. */
  readonly prunes: readonly { at: number; message: number }[];
  readonly changes: readonly { at: number; what: string; reason?: string }[];
  /** The runtime's history window before the first message, and after each. */
  readonly windowStart: PList<number>;
  readonly window: readonly WindowStep[];
}

/** How one walk is run: the reasoning policy tried, the reference call, whether it bills. */
export interface WalkRules {
  readonly policy: ReasoningPolicy;
  readonly reference: ModelCall | null;
  /** Whether each item's cost is kept (the walk whose figures the report shows). */
  readonly billing: boolean;
  /** Questions the provider's rule answers: no call's counts may answer them otherwise. */
  readonly fixed: ReadonlySet<PolicyQuestion>;
}

/** Which questions of the policy this session's calls put at all. */
export interface Asks {
  readonly hidden: boolean;
  readonly turn: boolean;
  readonly reasoning: boolean;
  readonly reasoningTurn: boolean;
}

/** The previous measured call, and the hidden reasoning it produced (beyond what it left visible). */
export interface Previous {
  readonly call: ModelCall;
  readonly number: number;
  readonly hidden: number;
}

/** What the measured call in progress has decided so far (calibration-call.ts's steps fill it). */
export interface CallInProgress {
  readonly prompt: number;
  readonly events: readonly TimelineEvent[];
  readonly first: boolean;
  /** New to this prompt (the whole view at the first call, all but the always-loaded after a compaction). */
  readonly fresh: readonly Item[];
  readonly hiddenBefore: number;
  /** The runtime switched and is measured again at this call (why), else null. */
  readonly change: string | null;
  /** Of the fresh items, the visible reasoning the policy weighs; the account chosen for the growth. */
  readonly reasoning: readonly Item[];
  readonly account: Account | null;
  /** What the call added (counted), on what basis, and what reasoning it dropped. */
  readonly added: readonly Item[];
  readonly basis: Basis;
  readonly dropped: number;
}

export interface WalkState {
  readonly context: WalkContext;
  readonly rules: WalkRules;
  // The view and what each item in it costs.
  readonly view: PMap<string, Item>;
  readonly cal: PMap<string, number>;
  readonly basis: PMap<string, Basis>;
  readonly bySource: Readonly<Record<SourceId, number>>;
  /** Σ cal over the items in view. */
  readonly calTotal: number;
  /** Keys of the reasoning items in view, and Σ cal of those the provider counts. */
  readonly reasoningInView: PSet<string>;
  readonly reasoningCal: number;
  /** Visible reasoning the provider does not count: never (notReceived), or no longer (droppedAtTurn). */
  readonly notReceived: PSet<string>;
  readonly droppedAtTurn: PSet<string>;
  // The runtime, the hidden reasoning, what nothing explains.
  readonly overhead: number | null;
  readonly runtimeKey: string | null;
  /** The runtime as measured per combination of agent, model and tools: met again, not measured again. */
  readonly overheads: PMap<string, number>;
  readonly runtimeChanges: PList<RuntimeChange>;
  /** Hidden reasoning carried, per call that produced it (a plain array: summed at every call). */
  readonly hidden: readonly HiddenBlock[];
  readonly unexplained: number;
  // What the walk shows besides the view: the policy's evidence, the timeline, the reference call.
  readonly fits: PList<Fit>;
  readonly votes: PList<PolicyVote>;
  readonly asks: Asks;
  readonly timeline: PList<TimelinePoint>;
  readonly snapshot: Snapshot | null;
  /** Whether calls are billed still (as of an earlier call, none after it); what was billed, in order. */
  readonly billing: boolean;
  readonly bills: PList<Bill>;
  // The window: its order, the messages in it, how many segments of each are in view; the prunes applied.
  readonly order: PList<number>;
  readonly inWindow: PSet<number>;
  readonly segmentsIn: PMap<number, number>;
  readonly nextPrune: number;
  readonly time: number;
  // Since the previous measured call.
  readonly prunedSinceCall: boolean;
  readonly compactedSinceCall: boolean;
  readonly userSinceCall: boolean;
  readonly addedSinceCall: PSet<string>;
  readonly previous: Previous | null;
  /** Measured calls so far; the turn of the call being measured; the number of its turn's first call. */
  readonly callNumber: number;
  readonly currentTurn: number;
  readonly turnStart: number;
  readonly current: CallInProgress | null;
  /** The batch a step's writes share (calibration-walk.ts's walkStep), open inside that step only. */
  readonly edit: Edit | null;
}

/** What the per-item steps read and write (calibration-view.ts): a step's loop over items works on this part alone. */
export type ItemState = Pick<
  WalkState,
  | 'view'
  | 'cal'
  | 'basis'
  | 'bySource'
  | 'calTotal'
  | 'reasoningInView'
  | 'reasoningCal'
  | 'notReceived'
  | 'droppedAtTurn'
  | 'addedSinceCall'
  | 'billing'
  | 'bills'
  | 'edit'
>;

/**
 * The per-item part of a state: a loop over many items updates this small object — each item
 * copies a dozen fields, not the whole state — and puts it back once (`{ ...s, ...part }`).
 */
export function itemState(s: ItemState): ItemState {
  return {
    view: s.view,
    cal: s.cal,
    basis: s.basis,
    bySource: s.bySource,
    calTotal: s.calTotal,
    reasoningInView: s.reasoningInView,
    reasoningCal: s.reasoningCal,
    notReceived: s.notReceived,
    droppedAtTurn: s.droppedAtTurn,
    addedSinceCall: s.addedSinceCall,
    billing: s.billing,
    bills: s.bills,
    edit: s.edit,
  };
}

/** The session's items and messages indexed for the walk, and its window stepped through once. */
export function walkContext(input: CalibrationInput): WalkContext {
  const { session, items, alwaysLoaded } = input;
  const turnOf: number[] = [];
  let turn = 0;
  for (const message of session.messages) turnOf.push(message.userTurn ? ++turn : turn);
  const toolTurns = new Set<number>();
  const messageOf = new Map<string, number>();
  const itemsByKey = new Map<string, Item>();
  const prunes: { at: number; message: number }[] = [];
  items.forEach((list, message) => {
    for (const item of list) {
      itemsByKey.set(item.key, item);
      messageOf.set(item.key, message);
      if (item.tool) toolTurns.add(turnOf[message] ?? 0);
      if (item.until !== undefined) prunes.push({ at: item.until, message });
    }
  });
  prunes.sort((a, b) => a.at - b.at);
  return {
    input,
    alwaysKeys: new Set(alwaysLoaded.map((i) => i.key)),
    turnOf,
    toolTurns,
    messageOf,
    itemsByKey,
    prunes,
    changes: [...(input.changes ?? [])].sort((a, b) => a.at - b.at),
    ...windowSteps(input),
  };
}

/**
 * The runtime's window appended message by message (WindowWalk: its order grows at its end, or
 * is replaced at a restart), kept as persistent lists: each message's order shares the previous one's.
 */
export function windowSteps({ session }: Pick<CalibrationInput, 'session'>): {
  windowStart: PList<number>;
  window: WindowStep[];
} {
  const window = session.window();
  let seen: readonly number[] = window.order;
  const windowStart = PList.of(seen);
  let order = windowStart;
  const steps = session.messages.map((_, index) => {
    const restarted = window.append(index);
    const now = window.order;
    if (now !== seen) order = PList.of(now);
    else if (now.length > order.size) order = order.concat(now.slice(order.size));
    seen = now;
    return { restarted, order };
  });
  return { windowStart, window: steps };
}

/** The state before the first message: nothing in view but what is always loaded. */
export function startWalk(context: WalkContext, rules: Partial<WalkRules> = {}): WalkState {
  // One numbering of item keys for every per-item collection of this walk.
  const keys = new Keys<string>();
  const state: WalkState = {
    context,
    rules: { policy: DEFAULT_POLICY, reference: null, billing: false, fixed: new Set(), ...rules },
    view: PMap.empty(keys),
    cal: PMap.empty(keys, 'unordered'),
    basis: PMap.empty(keys, 'unordered'),
    bySource: emptyBySource(),
    calTotal: 0,
    reasoningInView: PSet.empty(keys),
    reasoningCal: 0,
    notReceived: PSet.empty(keys),
    droppedAtTurn: PSet.empty(keys),
    overhead: null,
    runtimeKey: null,
    overheads: PMap.empty(),
    runtimeChanges: PList.of(),
    hidden: [],
    unexplained: 0,
    fits: PList.of(),
    votes: PList.of(),
    asks: { hidden: false, turn: false, reasoning: false, reasoningTurn: false },
    timeline: PList.of(),
    snapshot: null,
    billing: rules.billing ?? false,
    bills: PList.of(),
    edit: null,
    ...startWindow(context, keys),
  };
  return state;
}

function startWindow(
  context: WalkContext,
  keys: Keys<string>,
): Pick<
  WalkState,
  | 'order'
  | 'inWindow'
  | 'segmentsIn'
  | 'nextPrune'
  | 'time'
  | 'prunedSinceCall'
  | 'compactedSinceCall'
  | 'userSinceCall'
  | 'addedSinceCall'
  | 'previous'
  | 'callNumber'
  | 'currentTurn'
  | 'turnStart'
  | 'current'
> {
  const messages = new Keys<number>();
  return {
    order: context.windowStart,
    inWindow: PSet.empty(messages),
    segmentsIn: PMap.empty(messages, 'unordered'),
    nextPrune: 0,
    time: Number.NEGATIVE_INFINITY,
    prunedSinceCall: false,
    compactedSinceCall: false,
    userSinceCall: false,
    addedSinceCall: PSet.empty(keys),
    previous: null,
    callNumber: 0,
    currentTurn: 0,
    turnStart: 0,
    current: null,
  };
}

// ── What the state tells (pure reads) ─────────────────────────────────────────────────────────

/** Reasoning the runtime sends but the provider does not count (never, or no longer). */
export const uncounted = (s: ItemState, key: string): boolean => s.notReceived.has(key) || s.droppedAtTurn.has(key);

export const hiddenTotal = (s: WalkState): number => s.hidden.reduce((n, h) => n + h.tokens, 0);

export const calOf = (s: ItemState, items: readonly Item[]): number =>
  items.reduce((n, i) => n + (s.cal.get(i.key) ?? 0), 0);

/** Items in view now, in the order the model reads them: always-loaded, then history. */
export function orderedView(s: WalkState): Item[] {
  const { alwaysKeys, input } = s.context;
  const out: Item[] = [];
  s.view.forEach((item) => {
    if (alwaysKeys.has(item.key)) out.push(item);
  });
  for (const message of s.order) {
    for (const item of input.items[message] ?? []) if (s.view.has(item.key)) out.push(item);
  }
  return out;
}

/** The messages out of the window now. */
export function history(s: WalkState): number[] {
  const live = new Set(s.order);
  return s.context.input.session.messages.map((_, i) => i).filter((i) => !live.has(i));
}

/** The visible reasoning the provider was shown not to count, never or no longer. */
export function notReceivedItems(s: WalkState): Item[] {
  return [...s.notReceived, ...s.droppedAtTurn].flatMap((key) => s.context.itemsByKey.get(key) ?? []);
}

/** Reasoning of a turn that made tool calls, which the policy keeps for the session (DeepSeek). */
export function keptTurn(s: WalkState, key: string): boolean {
  if (!s.rules.policy.keepsToolTurns) return false;
  const message = s.context.messageOf.get(key);
  return message !== undefined && s.context.toolTurns.has(s.context.turnOf[message] ?? 0);
}

/**
 * New to this prompt at a user message, yet of an earlier turn (the previous turn's last
 * reasoning), and droppable there: under a policy that keeps only the turns with tool calls.
 */
export function earlierTurnFresh(s: WalkState, key: string): boolean {
  if (!s.rules.policy.keepsToolTurns || !s.userSinceCall || keptTurn(s, key)) return false;
  const message = s.context.messageOf.get(key);
  return message !== undefined && (s.context.turnOf[message] ?? 0) < s.currentTurn;
}

/** A bill kept while the walk bills (its order is the ledger's: calibration-bills.ts replays it). */
export const billed = (s: ItemState, bill: Bill): PList<Bill> => (s.billing ? s.bills.push(bill) : s.bills);

/** The state while a measured call is walked: what it decided so far. */
export type Measuring = WalkState & { readonly current: CallInProgress };

/**
 * The state inside one step: its writes batched under a new edit (persistent.ts: what this step
 * allocated is written in place, never what the given state holds) — until `frozen`.
 */
export const transient = (s: WalkState): WalkState => ({ ...s, edit: newEdit() });

/** The step's result: its edit closed, so no later write can reach what it holds. */
export function frozen(s: WalkState): WalkState {
  closeEdit(s.edit);
  return s;
}
