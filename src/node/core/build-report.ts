/**
 * Assembles the report of contract §4 from plain data: the calibrated view of the context,
 * the excluded history and omissions, and the latest ACP usage. Pure and deterministic.
 *
 * Invariant: when there is a total, the sources' scaledTokens plus `calibration.unattributed`
 * add up to it exactly.
 */
import { reasoningOf, ruleNote } from './reasoning-report';
import { reportSourceIds, sourceLabel, type SourceId } from '../../shared/sources';
import type {
  Basis,
  ContextReport,
  ContextWindow,
  Excluded,
  ItemCost,
  REMAINDER_KINDS,
  RemainderRow,
  ReportItem,
  RuntimePart,
  Subagent,
  Suggestion,
  Verdict,
} from '../../shared/wire';
import { fmt } from '../../shared/format';
import { apportion } from './apportion';
import { CATALOG_SOURCE } from './model-catalog';
import { folderOf } from './paths';
import { callsLeft } from './calls-left';
import { costReport } from './cost-report';
import { itemId, percentOf, round4, sum, totalOnWire } from './figures';
import { duplicateGroups, type DuplicateMark } from './duplicates';
import { suggest } from './suggestions';
import { downsample } from './timeline';
import type { Calibration, Counted, Item, ReportInput, RuntimePart as CoreRuntimePart } from './types';

export const DEFAULT_ITEMS = 20;
export const RUNTIME_REF = 'runtime:system-prompt-and-tools';

/** What the parts of the report share: the total, the duplicates, each item's cost and extras, request order. */
interface Shared {
  input: ReportInput;
  used: number | null;
  duplicates: Map<Item, DuplicateMark>;
  costOf: (key: string) => ItemCost | undefined;
  /** What an item carries besides its figures: the runtime's parts, a subagent's session. */
  extras: (item: Item) => Partial<ReportItem>;
  orderOf: ReadonlyMap<string, number>;
}

export function buildReport(input: ReportInput): ContextReport {
  const { calibration, usage } = input;
  const used = usage?.contextUsed ?? null;
  const costs = calibration.cost ? costReport(calibration.cost, input.runtime) : null;
  const shared = sharedOf(input, used, costs);
  const counted = countedItems(input);
  const sources = sourcesOf(shared, counted);
  // Measured: what left the context since the reference call, and the gap between that call's
  // prompt and the agent's total. Scaled: only when nothing at all could be attributed.
  const sourcesTotal = sum(sources.map((s) => s.scaledTokens ?? 0));
  const measuredMode = calibration.mode === 'measured';
  const unexplained = measuredMode ? calibration.unexplained : used !== null && sourcesTotal === 0 ? used : 0;
  const left = measuredMode ? calibration.left.tokens : 0;
  const hidden = measuredMode ? calibration.hidden.tokens : 0;
  const afterLastCall = measuredMode ? (calibration.afterLastCall?.tokens ?? 0) : 0;
  const remainder = remainderRows({ hidden, afterLastCall, left, unexplained, calibration }, used);
  const suggestions = suggest({ input, counted, duplicates: shared.duplicates, used });
  const { window } = input;
  const unattributed = { left, unexplained, hidden, afterLastCall };
  return {
    schemaVersion: 1,
    workspaceId: input.workspaceId,
    sessionId: input.sessionId,
    generatedAt: input.generatedAt,
    runtime: { name: input.runtime.rows, title: input.runtime.name },
    snapshotId: input.snapshotId,
    actual: usage && totalOnWire(usage),
    estimate: estimateOf(input, counted, used),
    providerTokens: providerTokensOf(input),
    calibration: calibrationBlock(input, unattributed),
    pending: pendingOf(shared),
    timeline: timelineOf(calibration, counted),
    window,
    verdict: verdictOf({ sources, counted, suggestions, used, window, input, hidden }),
    sources,
    remainder,
    duplicates: duplicatesOf(shared, counted),
    excluded: [...input.workspace.excluded, ...excludedEntries(input), ...notReceivedEntry(input)],
    suggestions,
    notes: notes(input),
    warnings: [...input.workspace.warnings, ...input.warnings],
    ...(costs ? { cost: costs.report } : {}),
    ...(input.parentSessionId ? { parentSessionId: input.parentSessionId } : {}),
    ...(input.origin ? { origin: input.origin } : {}),
    ...(input.asOf
      ? {
          asOf: {
            call: input.asOf.call,
            of: input.asOf.of,
            messageId: input.asOf.messageId,
            at: new Date(input.asOf.at).toISOString(),
          },
        }
      : {}),
  };
}

function sharedOf(input: ReportInput, used: number | null, costs: ReturnType<typeof costReport> | null): Shared {
  const runtimeCost = costs?.report.rows.find((r) => r.kind === 'runtime');
  const costOf = (key: string): ItemCost | undefined => {
    if (key !== RUNTIME_REF) return costs?.items.get(key);
    return runtimeCost && (({ kind: _k, label: _l, ...figures }) => figures)(runtimeCost);
  };
  const split = input.runtimeSplit;
  const parts = split && 'parts' in split ? runtimeParts(split.parts, used) : null;
  const extras = (item: Item): Partial<ReportItem> => ({
    ...(item.sourceRef === RUNTIME_REF && parts ? { parts } : {}),
    ...(item.subagent ? { subagent: subagentOf(item.subagent, input.subagents) } : {}),
  });
  const duplicates = duplicateGroups(input.calibration.view);
  return { input, used, duplicates, costOf, extras, orderOf: requestOrder(input.calibration) };
}

/** Every source with its figure and its largest items (as many as the items limit shows). */
function sourcesOf(shared: Shared, counted: readonly Counted[]): ContextReport['sources'] {
  const { input, used, duplicates, costOf, extras } = shared;
  const { calibration } = input;
  const ids = reportSourceIds(
    counted.map((c) => c.item.source),
    input.workspace.declaredSources,
  );
  const bySource = new Map<SourceId, Counted[]>(ids.map((id) => [id, []]));
  for (const c of counted) bySource.get(c.item.source)!.push(c);
  return ids.map((id) => {
    const list = bySource.get(id)!;
    const scaled = used === null || calibration.mode === 'estimate-only' ? null : sum(list.map((c) => c.scaled ?? 0));
    const sorted = [...list].sort(
      (a, b) => (b.scaled ?? b.item.tokens) - (a.scaled ?? a.item.tokens) || b.item.bytes - a.item.bytes,
    );
    const shown = input.itemsLimit === 'all' ? sorted : sorted.slice(0, input.itemsLimit);
    const hidden = sorted.slice(shown.length);
    return {
      id,
      label: labelOf(id, input.workspace.declaredSources),
      estimatedTokens: sum(list.map((c) => c.item.tokens)),
      scaledTokens: scaled,
      percentOfUsed: percentOf(scaled, used),
      bytes: sum(list.map((c) => c.item.bytes)),
      itemCount: list.length,
      items: shown.map((c) => toItem(c, used, duplicates.get(c.item), costOf(c.item.key), extras(c.item))),
      ...(scaled === null || list.length === 0 ? {} : { basis: basisOf(list, calibration.mode) }),
      ...foldersOf(list, scaled === null ? null : used),
      more: {
        itemCount: hidden.length,
        estimatedTokens: sum(hidden.map((c) => c.item.tokens)),
        scaledTokens: scaled === null ? null : sum(hidden.map((c) => c.scaled ?? 0)),
        bytes: sum(hidden.map((c) => c.item.bytes)),
      },
    };
  });
}

function estimateOf(input: ReportInput, counted: readonly Counted[], used: number | null): ContextReport['estimate'] {
  const inTotal = counted.filter((c) => c.item.sourceRef !== RUNTIME_REF).map((c) => c.item);
  const estimatedTotal = sum(counted.filter((c) => !c.item.sourceRef.startsWith('runtime:')).map((c) => c.item.tokens));
  return {
    method: methodOf(input),
    estimator: input.estimator.id,
    totalTokens: estimatedTotal,
    totalBytes: sum(inTotal.map((i) => i.bytes)),
    itemCount: inTotal.length,
    scale: used !== null && estimatedTotal > 0 ? round4(used / estimatedTotal) : null,
  };
}

function providerTokensOf({ provider }: ReportInput): ContextReport['providerTokens'] {
  return (
    provider && {
      messageId: provider.messageId,
      input: provider.tokens.input,
      output: provider.tokens.output,
      cacheRead: provider.tokens.cacheRead,
      cacheWrite: provider.tokens.cacheWrite,
      promptTokens: provider.prompt,
      convention: provider.convention,
      cacheReadSharePercent:
        provider.prompt > 0 && provider.tokens.cacheRead !== null
          ? percentOf(provider.tokens.cacheRead, provider.prompt)
          : null,
    }
  );
}

function calibrationBlock(
  input: ReportInput,
  {
    left,
    unexplained,
    hidden,
    afterLastCall,
  }: { left: number; unexplained: number; hidden: number; afterLastCall: number },
): ContextReport['calibration'] {
  const { calibration } = input;
  const split = input.runtimeSplit;
  return {
    mode: calibration.mode,
    calls: calibration.calls,
    ...(calibration.uncountedCalls > 0 ? { uncountedCalls: calibration.uncountedCalls } : {}),
    reference: calibration.reference,
    totalIsCompaction: calibration.totalIsCompaction,
    runtimeOverhead: calibration.runtimeOverhead,
    overheadChanges: calibration.overheadChanges,
    runtime: {
      changes: calibration.runtimeChanges,
      ...(split
        ? {
            parts:
              'parts' in split
                ? {
                    recorded: true,
                    agent: split.agent,
                    model: split.model,
                    // Measured with the pinned runtime (an import): never recorded, so no time of it.
                    ...(split.measuredWith
                      ? { measuredWith: split.measuredWith }
                      : { recordedAt: new Date(split.recordedAt).toISOString() }),
                    estimatedTokens: split.estimated,
                    measuredTokens: split.measured,
                    notes: split.notes,
                  }
                : { recorded: false, reason: split.reason },
          }
        : {}),
    },
    reasoning: reasoningOf(calibration),
    ...(calibration.scaledBecause ? { scaledBecause: calibration.scaledBecause } : {}),
    unattributed: {
      tokens: left + unexplained + hidden + afterLastCall,
      leftSinceCall: left,
      leftReason: calibration.mode === 'measured' ? calibration.left.reason : null,
      unexplained,
      hiddenReasoning: hidden,
      afterLastCall,
    },
  };
}

/** What was added since the last model call: in no measured prompt yet. */
function pendingOf({ input, used, duplicates, extras, orderOf }: Shared): ContextReport['pending'] {
  const { calibration } = input;
  return {
    label: 'Added since the last model call',
    estimatedTokens: sum(calibration.pending.map((i) => i.tokens)),
    bytes: sum(calibration.pending.map((i) => i.bytes)),
    itemCount: calibration.pending.length,
    items: calibration.pending.map((item) => ({
      ...toItem(
        {
          item,
          scaled: calibration.afterLastCall?.shares.get(item.key) ?? null,
          measured: false,
          order: orderOf.get(item.key) ?? 0,
        },
        used,
        duplicates.get(item),
        undefined,
        extras(item),
      ),
      source: item.source,
    })),
  };
}

/** An item still in the report carries its report figure in the timeline too: one figure per item. */
function timelineOf(calibration: Calibration, counted: readonly Counted[]): ContextReport['timeline'] {
  const countedByKey = new Map(counted.map((c) => [c.item.key, c]));
  return downsample(calibration.timeline).map((p) => ({
    ...p,
    at: new Date(p.at).toISOString(),
    added: p.added.map(({ key, ...a }) => {
      const c = countedByKey.get(key);
      return c && c.scaled !== null ? { ...a, tokens: c.scaled, itemId: itemId(c.item.sourceRef) } : a;
    }),
  }));
}

function duplicatesOf({ used, duplicates }: Shared, counted: readonly Counted[]): ContextReport['duplicates'] {
  const repeated = [...duplicates.entries()].filter(([, d]) => d.ordinal > 1);
  const scaledOf = new Map(counted.map((c) => [c.item.key, c.scaled ?? 0]));
  return {
    files: new Set(repeated.map(([item]) => `${item.readKey}\u0000${item.contentKey}`)).size,
    extraReads: repeated.length,
    repeatedEstimatedTokens: sum(repeated.map(([item]) => item.tokens)),
    repeatedScaledTokens: used === null ? null : sum(repeated.map(([item]) => scaledOf.get(item.key) ?? 0)),
  };
}

/** The report in a few figures, to show first. */
function verdictOf(facts: {
  sources: ContextReport['sources'];
  counted: readonly Counted[];
  suggestions: readonly Suggestion[];
  used: number | null;
  window: ContextWindow | null;
  input: ReportInput;
  hidden: number;
}): Verdict | null {
  const { sources, counted, suggestions, used, window, input } = facts;
  if (used === null) return null;
  const source = [...sources].sort((a, b) => (b.scaledTokens ?? 0) - (a.scaledTokens ?? 0))[0];
  const item = counted
    .filter((c) => c.scaled !== null && c.item.sourceRef !== RUNTIME_REF)
    .sort((a, b) => b.scaled! - a.scaled!)[0];
  // The suggestions are ordered by what they free (suggestions.ts): the first is the action.
  const action = suggestions[0];
  const prompt = input.provider?.prompt ?? 0;
  const cacheRead = input.provider?.tokens.cacheRead ?? null;
  return {
    biggestSource:
      source && (source.scaledTokens ?? 0) > 0
        ? { id: source.id, label: source.label, tokens: source.scaledTokens!, percentOfUsed: source.percentOfUsed }
        : null,
    biggestItem: item
      ? {
          id: itemId(item.item.sourceRef),
          label: item.item.label,
          source: item.item.source,
          tokens: item.scaled!,
          percentOfUsed: percentOf(item.scaled, used),
        }
      : null,
    action: action ? { kind: action.kind, title: action.title, itemIds: action.itemIds, frees: action.frees } : null,
    cacheReadPercent: cacheRead !== null && prompt > 0 ? percentOf(cacheRead, prompt) : null,
    cost: input.usage?.cost ?? null,
    headroom: window ? headroomOf(window, used, input) : null,
    ...(facts.hidden > 0 ? { hiddenReasoning: facts.hidden } : {}),
  };
}

/** Room before the runtime compacts, and how many calls that is at the recent growth. */
function headroomOf(window: ContextWindow, used: number, input: ReportInput): NonNullable<Verdict['headroom']> {
  // As of an earlier call, the calls after it are not the recent past.
  const asOf = input.asOf?.call;
  const timeline =
    asOf === undefined ? input.calibration.timeline : input.calibration.timeline.filter((p) => p.call <= asOf);
  const left = callsLeft(timeline, window, used, input.runtime.name);
  return {
    used,
    usable: window.usable,
    left: Math.max(0, (window.autoCompactAt ?? window.usable) - used),
    percentOfUsable: percentOf(used, window.usable) ?? 0,
    callsLeft: left.callsLeft,
    ...(left.basis ? { callsLeftBasis: left.basis } : {}),
    ...(left.because ? { callsLeftBecause: left.because } : {}),
  };
}

/** The rows of the total no source holds, each with its reason; empty ones left out. */
function remainderRows(
  figures: { hidden: number; afterLastCall: number; left: number; unexplained: number; calibration: Calibration },
  used: number | null,
): RemainderRow[] {
  const { calibration } = figures;
  const rows: RemainderRow[] = [];
  const row = (kind: (typeof REMAINDER_KINDS)[number], label: string, tokens: number, reason: string) => {
    if (tokens !== 0) rows.push({ kind, label, tokens, percentOfUsed: percentOf(tokens, used), reason });
  };
  const calls = calibration.hidden.calls;
  row(
    'hidden_reasoning',
    'Hidden reasoning kept by the provider',
    figures.hidden,
    `Reasoning the model did out of sight (${calls.length} call${calls.length === 1 ? '' : 's'}: ${calls.map((c) => `#${c.call}`).join(', ')}), kept in its prompt by the provider: measured as what each call produced beyond the reply, reasoning summary and tool calls it left, where the next prompt grew by that much. Not in any source: nobody can read it.`,
  );
  row(
    'after_last_call',
    'Added after the last persisted model call',
    figures.afterLastCall,
    "The agent's total is newer than every model call stored so far: the difference is what was added since, shared by that content (its items are listed as added since the last call).",
  );
  row(
    'left_since_call',
    `Left the context since the last model call (${calibration.left.reason === 'pruned' ? 'pruned' : calibration.left.reason === 'compacted' ? 'compacted' : 'pruned and compacted'})`,
    figures.left,
    'In the prompt the total describes, gone from the context since: the next request will not hold it.',
  );
  const misses = calibration.runtimeChanges.filter((c) => c.bound && c.bound.unexplained !== 0);
  const runtimeWords = misses.map(
    (c) =>
      ` At call ${c.call} (${c.reason}) the prompt left ${fmt(c.bound!.measured)} tokens for the runtime, which is made of ${fmt(c.bound!.expected)} (${c.bound!.basis}; ${fmt(c.bound!.low)}–${fmt(c.bound!.high)} would agree): the runtime keeps ${fmt(c.bound!.expected)} and the ${fmt(c.bound!.unexplained)} that cannot agree are here.`,
  );
  row(
    'unexplained',
    'Unexplained',
    figures.unexplained,
    `Growth of the prompts that nothing the server can see explains — no item, image, hidden reasoning or change of the runtime. Shown as such, never inside a source.${runtimeWords.join('')}`,
  );
  return rows;
}

/** What the provider's counts showed it does with reasoning, in one sentence; null when they asked nothing. */
function reasoningPolicyNote(calibration: Calibration): string | null {
  const { policy, asks } = calibration;
  const facts: string[] = [];
  if (asks.hidden)
    facts.push(
      policy.keepsHidden
        ? 'keeps the reasoning it did out of sight in later prompts'
        : 'does not keep hidden reasoning',
    );
  if (asks.turn && policy.keepsHidden)
    facts.push(policy.dropsAtTurn ? 'drops it at each new user message' : 'keeps it across user messages');
  if (asks.reasoning)
    facts.push(
      policy.receives ? 'counts the visible reasoning sent back' : 'never counts the visible reasoning sent back',
    );
  if (asks.reasoningTurn && policy.reasoningTurnOnly)
    facts.push("drops earlier turns' visible reasoning at a new user message");
  if (facts.length === 0) return null;
  const { rule, overturned } = calibration.rule;
  const lead =
    Object.keys(rule.answers).length === 0
      ? 'By its own counts,'
      : overturned.length > 0
        ? 'By its counts where they overturn its rule, by the rule elsewhere,'
        : 'By its rule,';
  return `${lead} this provider ${facts.join(', ')}.`;
}

/** Visible reasoning the provider never counted, by its own counts. */
function notReceivedEntry(input: ReportInput): Excluded[] {
  const items = input.calibration.notReceived;
  if (items.length === 0) return [];
  return [{ ...input.runtime.words.excluded.notReceived, bytes: sum(items.map((i) => i.bytes)), count: items.length }];
}

/** What an item's figure depends on. */
type CountInput = Pick<ReportInput, 'calibration' | 'usage' | 'runtime'>;

/** Request order, as the reader lists it: the measured runtime prompt first, then the view. */
function requestOrder(calibration: Calibration): Map<string, number> {
  const offset = calibration.mode === 'measured' ? 1 : 0;
  return new Map(calibration.view.map((item, index) => [item.key, index + offset]));
}

/**
 * Every item in the total with its figure, the measured runtime item first: what the sources
 * list and what the core's blocks carry (context-report.ts), one computation for both.
 */
export function countedItems(input: CountInput): Counted[] {
  const pendingKeys = new Set(input.calibration.pending.map((i) => i.key));
  const inTotal = input.calibration.view.filter((i) => !pendingKeys.has(i.key));
  const order = requestOrder(input.calibration);
  return countItems(input, inTotal, (item) => order.get(item.key) ?? 0);
}

/** Each item with its share of the total: measured, scaled in proportion, or none. */
function countItems(input: CountInput, inTotal: readonly Item[], orderOf: (item: Item) => number): Counted[] {
  const { calibration, usage } = input;
  if (calibration.mode === 'measured') {
    const overhead: Item = {
      key: RUNTIME_REF,
      source: 'agent_instructions',
      label: input.runtime.label,
      sourceRef: RUNTIME_REF,
      tokens: calibration.runtimeOverhead ?? 0,
      bytes: 0,
    };
    return [
      { item: overhead, scaled: calibration.runtimeOverhead ?? 0, measured: true, order: 0 },
      ...inTotal.map((item) => ({
        item,
        scaled: calibration.measured.get(item.key) ?? 0,
        measured: calibration.measuredBasis.get(item.key) === 'measured',
        order: orderOf(item),
      })),
    ];
  }
  if (calibration.mode === 'scaled' && usage) {
    // No per-call counts: the total is shared out in proportion, source by source, then item by item.
    const bySource = reportSourceIds(inTotal.map((i) => i.source)).map((id) => inTotal.filter((i) => i.source === id));
    const perSource = apportion(
      usage.contextUsed,
      bySource.map((list) => sum(list.map((i) => i.tokens))),
    );
    const scaled = new Map<string, number>();
    bySource.forEach((list, s) => {
      const parts = apportion(
        perSource[s]!,
        list.map((i) => i.tokens),
      );
      list.forEach((item, k) => scaled.set(item.key, parts[k]!));
    });
    return inTotal.map((item) => ({ item, scaled: scaled.get(item.key) ?? 0, measured: false, order: orderOf(item) }));
  }
  return inTotal.map((item) => ({ item, scaled: null, measured: false, order: orderOf(item) }));
}

function basisOf(list: readonly Counted[], mode: Calibration['mode']): Basis {
  if (mode !== 'measured') return 'scaled';
  const measured = list.filter((c) => c.measured).length;
  return measured === list.length ? 'measured' : measured === 0 ? 'estimated' : 'mixed';
}

/** The runtime's parts as the report carries them, largest tools first, each with its share of the used total. */
function runtimeParts(parts: readonly CoreRuntimePart[], used: number | null): RuntimePart[] {
  return parts.map((p) => ({
    kind: p.kind,
    label: p.label,
    tokens: p.tokens,
    estimatedTokens: p.estimate,
    percentOfUsed: percentOf(p.tokens, used),
    ...(p.name !== undefined ? { name: p.name } : {}),
    ...(p.called !== undefined ? { called: p.called } : {}),
    ...(p.tools
      ? { tools: p.tools.map((t) => ({ name: t.name, estimatedTokens: t.estimate, called: t.called })) }
      : {}),
  }));
}

/** A subagent's session as its call's item shows it: what its own report says it consumed. */
function subagentOf(subagent: NonNullable<Item['subagent']>, summaries: ReportInput['subagents']): Subagent {
  const summary = summaries?.get(subagent.sessionId);
  const base = {
    sessionId: subagent.sessionId,
    description: subagent.description,
    ...(subagent.agent ? { agent: subagent.agent } : {}),
  };
  if (summaries === undefined || summary === undefined) return { ...base, stored: true };
  if (summary === null) return { ...base, stored: false };
  return {
    ...base,
    stored: true,
    total: summary.total,
    contextSize: summary.contextSize,
    calls: summary.calls,
    largest: summary.largest,
    cost: summary.cost,
  };
}

function toItem(
  c: Counted,
  used: number | null,
  duplicate: DuplicateMark | undefined,
  cost: ItemCost | undefined,
  extra: Partial<ReportItem> = {},
): ReportItem {
  const { item } = c;
  return {
    id: itemId(item.sourceRef),
    label: item.label,
    sourceRef: item.sourceRef,
    estimatedTokens: item.tokens,
    scaledTokens: c.scaled,
    percentOfUsed: percentOf(c.scaled, used),
    bytes: item.bytes,
    ...(item.path !== undefined ? { path: item.path } : {}),
    ...(duplicate ? { duplicate } : {}),
    order: c.order,
    ...(c.measured ? { measured: true } : {}),
    ...(item.sourceRef === RUNTIME_REF ? { runtime: true } : {}),
    ...(cost ? { cost } : {}),
    ...extra,
  };
}

function methodOf(input: ReportInput): string {
  const { calibration } = input;
  const base = input.estimator.method;
  if (calibration.mode === 'measured') {
    const n = calibration.timeline.length;
    return `${base}, calibrated by ${n} provider-measured model call${n === 1 ? '' : 's'}`;
  }
  if (calibration.mode === 'scaled')
    return `${base}, scaled in proportion to the ACP total (no per-call provider counts)`;
  return `${base} (no ACP total yet)`;
}

function excludedEntries(input: ReportInput): Excluded[] {
  const { history, omissions: o } = input;
  const words = input.runtime.words.excluded;
  const out: Excluded[] = [];
  const add = (kind: keyof typeof words, count: number, bytes: number) => {
    if (count > 0) out.push({ ...words[kind], bytes, count });
  };
  // In the runtime's order of its words.
  for (const kind of Object.keys(words) as (keyof typeof words)[]) {
    if (kind === 'history') add(kind, history.messages, history.bytes);
    else if (kind !== 'notReceived') add(kind, o[kind].count, o[kind].bytes);
  }
  return out;
}

/**
 * Images are estimated by the provider family's published rule; that estimate only shares a
 * call's measured growth, except for what no call measured yet (pending): said either way.
 */
function imageNote(input: ReportInput): string | null {
  const { calibration } = input;
  const withImages = calibration.view.filter((item) => (item.vision ?? 0) > 0);
  if (withImages.length === 0 || !input.imageRule) return null;
  const byRule = sum(withImages.map((item) => item.vision ?? 0));
  const pending = new Set(calibration.pending);
  const unmeasured = withImages.filter((item) => pending.has(item)).length;
  const count = `${withImages.length} item${withImages.length === 1 ? '' : 's'} with images`;
  return `Images: ${count} in context; by ${input.imageRule}, ${fmt(byRule)} tokens — an estimate (an image whose size is not known is taken as 1,024 × 768). ${
    calibration.mode !== 'measured'
      ? 'No per-call provider count measures them: the estimate shares the total.'
      : unmeasured === withImages.length
        ? 'No model call has measured them yet: the estimate stands until one does.'
        : unmeasured > 0
          ? `Where a call measured them, its measured growth decides; ${unmeasured} added since keep the estimate.`
          : "Every call that carried them measured them: their figures follow the call's measured growth."
  }`;
}

function notes(input: ReportInput): string[] {
  const { calibration, usage } = input;
  const out = [`Estimated with ${input.estimator.method}: not tokenizer-exact for the agent's model.`];
  if (usage?.source === 'provider' && !input.window)
    out.push(
      `No window size: no agent reports on this session, and ${input.targetModel ? `the model ${input.targetModel} is in no catalog (${CATALOG_SOURCE})` : 'its rows name no model'}, so there is no room, compaction point or calls left to show.`,
    );
  else if (input.window?.basis === 'catalog' && input.window.source)
    out.push(`The window, the output reserve and the list prices are ${input.window.source}: the rows carry none.`);
  if (calibration.mode === 'measured') {
    const ref = calibration.reference!;
    const changes = calibration.runtimeChanges.slice(1);
    out.push(
      `Measured: each model call's prompt size (provider counts on its step) is shared among the items that call added, in proportion to their estimates; ${fmt(calibration.runtimeOverhead ?? 0)} tokens of the prompt are ${input.runtime.words.ownPrompt}, which the server cannot see (measured at the first call${changes.length ? `, again at ${changes.map((c) => `call ${c.call} (${c.reason})`).join(', ')}` : ''}).`,
    );
    if (calibration.totalIsCompaction)
      out.push(
        `The agent's latest total is the prompt of its compaction call (the history it sent to be summarised), not a request of the conversation: the figures describe the latest measured request (${fmt(ref.promptTokens)} tokens), what has left the context since, and what the next request will hold.`,
      );
    else if (!ref.matchesUsage)
      out.push(
        `Two counts of now: the total is the agent's own (its ACP usage_update, ${fmt(input.usage?.contextUsed ?? 0)} tokens), and no model call's prompt as the provider counted it equals it — the timeline's last call is ${fmt(ref.promptTokens)} tokens, and the figures describe that call; the difference is shown as unexplained.`,
      );
    out.push(ruleNote(calibration));
    const said = reasoningPolicyNote(calibration);
    if (said) out.push(said);
    if (calibration.hidden.tokens > 0)
      out.push(
        `Hidden reasoning: ${fmt(calibration.hidden.tokens)} tokens of the prompt are reasoning the model did out of sight that the provider keeps (measured from what each call produced beyond what it left visible); they are shown apart, in no source.`,
      );
    if (calibration.left.tokens > 0)
      out.push(
        `${fmt(calibration.left.tokens)} tokens of the total have left the context since that call (${calibration.left.reason === 'pruned' ? input.runtime.words.pruned : calibration.left.reason === 'compacted' ? 'compacted into a summary' : 'pruned and compacted'}); they are counted as unattributed, not in any source.`,
      );
    if (calibration.pending.length > 0)
      out.push(
        input.usage?.source === 'provider'
          ? 'Content added after the last model call (shown apart) is not in its prompt: no model call has counted it.'
          : "Content added after the last model call (shown apart) is not in the agent's total yet.",
      );
  } else if (calibration.scaledBecause === 'contradicting') {
    out.push(
      "Scaled: no model call's prompt equals the agent's total, and the total is not newer than the calls — the rows contradict it — so the total is shared out in proportion to the estimates.",
    );
  } else if (calibration.mode === 'scaled') {
    out.push(
      "Scaled: the session has no per-call provider counts, so the agent's total is shared out in proportion to the estimates; the runtime's own system prompt and tool schemas, which the server cannot see, are spread over every source.",
    );
  }
  out.push(
    'Shell commands count for the workspace files they name (the largest if several); other tool calls by the path in their input.',
    "Visible, persisted reasoning counts under its source where the provider receives it; hidden reasoning is never guessed, only measured from the provider's counts and shown apart.",
  );
  if (usage === null)
    out.push('Pending: no ACP usage has been reported for this session yet, so there are estimates only.');
  const note = input.window && input.runtime.words.windowNote(input.window);
  if (note) out.push(note);
  const images = imageNote(input);
  if (images) out.push(images);
  return out;
}

/** A source's label: the workspace's own declaration's, else the table's. */
function labelOf(id: string, declared: readonly { id: string; label: string }[] | undefined): string {
  return declared?.find((d) => d.id === id)?.label ?? sourceLabel(id);
}

/** How many folders a source lists: enough to see which part of the tree fills it. */
const FOLDERS_SHOWN = 12;

/** A source's items summed by folder, where two or more share one (contract: "Where in the tree"). */
function foldersOf(list: readonly Counted[], used: number | null): Pick<ContextReport['sources'][number], 'folders'> {
  const groups = new Map<string, Counted[]>();
  for (const c of list) {
    const folder = c.item.folder ?? (c.item.path !== undefined ? folderOf(c.item.path) : null);
    if (folder !== null) groups.set(folder, [...(groups.get(folder) ?? []), c]);
  }
  const folders = [...groups]
    .filter(([, items]) => items.length > 1)
    .map(([folder, items]) => {
      const scaled = used === null ? null : sum(items.map((c) => c.scaled ?? 0));
      return {
        folder,
        itemCount: items.length,
        estimatedTokens: sum(items.map((c) => c.item.tokens)),
        scaledTokens: scaled,
        percentOfUsed: percentOf(scaled, used),
      };
    })
    .sort((a, b) => (b.scaledTokens ?? b.estimatedTokens) - (a.scaledTokens ?? a.estimatedTokens))
    .slice(0, FOLDERS_SHOWN);
  return folders.length ? { folders } : {};
}
