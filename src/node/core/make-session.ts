/**
 * What a report is made of, before the items limit and the time: the headers (memo or rows) →
 * the session's facts and its calls (as of one, if asked) → every message analysed and
 * estimated (core/analysis.ts) → calibration by the provider's counts → the runtime item in
 * parts → what the report describes (mentions, omissions, warnings) → the blocks in request
 * order. Pure; memoised whole by the caller.
 */
import { countedItems, RUNTIME_REF } from './build-report';
import { calibrate } from './calibrate';
import { numberedCalls } from './calibration-steps';
import { analyseMessages, analysisPlan, messageTexts, type AnalysisContext, type AnalysisServices } from './analysis';
import { toItem } from './estimate';
import { narrowerReads, type TextOf } from './large-reads';
import { CallUnavailable, ReadPlanMissed } from './errors';
import { itemId } from './figures';
import { familyRules } from './providers';
import { splitRuntime } from './runtime-parts';
import { headersOf, Rows, type Memo, type SessionRows } from './session-rows';
import type { AgentRuntime, Header } from './runtime';
import type {
  Estimator,
  Item,
  MessageAnalysis,
  ModelCall,
  Omissions,
  RecordedRuntime,
  ReportInput,
  RuntimeSplit,
  SessionShape,
  SubagentSummary,
  UsageInput,
  WorkspaceSnapshot,
} from './types';
import { emptyOmissions, type SessionOrigin } from './types';
import type { ContextWindow, EstimatorId } from '../../shared/wire';

/** One session as the core reads it: its messages and rows, its usage, its runtime records. */
export interface SessionInput extends SessionRows {
  sessionId: string | null;
  usage: UsageInput | null;
  /** Warnings of the reading (the usage rows, the session). */
  warnings: readonly string[];
  /** What the runtime was for the session, as recorded where the agent ran (its definitions, by key). */
  runtimeRecords?: readonly RecordedRuntime[];
  /**
   * This session is a subagent's, made by that session's call (whose window it shares). Such a
   * session gets no ACP total of its own: without one, the report describes it as of its last
   * measured call.
   */
  parent?: { sessionId: string; contextSize: number | null };
  /** Where an imported session came from (its import's record): no agent ever reports on it. */
  origin?: SessionOrigin;
}

/** What makeSession reads besides the session's own rows. */
export interface SessionContext {
  workspaceId: string;
  estimator: EstimatorId;
  workspace: WorkspaceSnapshot;
  /** The context as of this model call (1-based, main calls), not the agent's latest total. */
  asOfCall?: number;
  /** What the subagents' sessions consumed, by session id (null: not stored here); absent: not read. */
  subagents?: ReadonlyMap<string, SubagentSummary | null>;
}

/** An item in request order, with its figure in the report. */
export interface Block {
  itemId: string;
  key: string;
  source: Item['source'];
  label: string;
  sourceRef: string;
  estimatedTokens: number;
  /** The item's figure in the report (measured or scaled), null while there is no total. */
  tokens: number | null;
  bytes: number;
  /** The message it comes from (absent: the workspace or the runtime). */
  messageId?: string;
}

/** What a report is made of, before the items limit and the time: memoised whole. */
export interface Session {
  input: Omit<ReportInput, 'itemsLimit' | 'generatedAt'>;
  blocks: Block[];
  /** Per message: the context its analysis was made in (for texts). */
  analysisContext: AnalysisContext;
}

/** The session's calls, and the one the report is as of with the total it describes. */
interface CallsView {
  shape: SessionShape;
  asOfNumber: number | undefined;
  asOf: ModelCall | null;
  usage: UsageInput | null;
}

export async function makeSession(
  session: SessionInput,
  context: SessionContext,
  services: AnalysisServices,
  memo: Memo,
  snapshotId: string,
): Promise<Session> {
  const { runtime } = services;
  const rows = new Rows(session);
  const read = headersOf(session, rows, runtime, memo);
  if (read.missing.length > 0) throw new ReadPlanMissed(read.missing);
  const { headers } = read;
  const calls = callsView(headers, session, services, context.asOfCall);
  const plan = analysisPlan(headers, rows.stamps, context.workspace, context.estimator, services, firstCall(calls));
  const alwaysLoaded = runtime.alwaysLoaded(context.workspace);
  const { analyses, counted } = await analyseMessages(headers, plan, rows, services, memo, alwaysLoaded);
  const warnings = [...session.warnings, ...read.warnings];
  const always = alwaysLoaded.map((c) => toItem(c, counted, warnings));
  const calibration = calibrate({
    session: calls.shape,
    items: analyses.map((a) => a.items),
    alwaysLoaded: always,
    usage: calls.usage,
    changes: [
      ...(runtime.definitionChanges?.(session.runtimeRecords ?? []) ?? []),
      ...runtimeFileChanges(context.workspace),
    ],
    reasoningCopies: analyses.map((a) => a.reasoningCopies),
    ...(calls.asOfNumber !== undefined ? { asOfCall: calls.asOfNumber } : {}),
    runtimeExpected: recordedRuntime(session, services, plan.context.estimator),
  });
  const split = runtimeSplit(calibration, calls.shape.calls, session, services, plan.context.estimator, {
    called: calledTools(analyses, calls.asOf),
  });
  const described = describedMessages(analyses, headers, new Set(calibration.history), warnings);
  const reference = calibration.reference
    ? numberedCalls(calls.shape.calls)[calibration.reference.call - 1]
    : undefined;
  const runtimeInput = runtimeInputOf(runtime);
  const narrowing = narrowerReads(
    { calibration, usage: calls.usage, runtime: runtimeInput },
    described.quotes,
    (id, key) => readLines(rows, runtime, plan.context, id, key),
  );
  const window = runtime.window(calls.usage, context.workspace.agentConfig, plan.context.facts.targetModel);
  const asOfHeaders = calls.asOf ? headers.slice(0, calls.asOf.message + 1) : headers;
  const reportInput: Session['input'] = {
    workspaceId: context.workspaceId,
    sessionId: session.sessionId,
    snapshotId,
    runtime: runtimeInput,
    agent: reference?.agent ?? null,
    quotes: described.quotes,
    narrowing,
    estimator: { id: plan.context.estimator.id, method: plan.context.estimator.method },
    workspace: context.workspace,
    calibration,
    history: { messages: calibration.history.length, bytes: described.historyBytes },
    omissions: described.omissions,
    usage: withWindow(calls.usage, window),
    provider: runtime.latestCount(asOfHeaders, calls.usage),
    targetModel: plan.context.facts.targetModel,
    imageRule: familyRules(plan.context.facts.family).imageRule,
    window,
    ...(split ? { runtimeSplit: split } : {}),
    ...(context.subagents ? { subagents: context.subagents } : {}),
    ...(session.parent ? { parentSessionId: session.parent.sessionId } : {}),
    ...(session.origin ? { origin: session.origin } : {}),
    ...(calls.asOf ? { asOf: asOfBlock(calls) } : {}),
    mentions: described.mentions,
    ...nextPromptInput(asOfHeaders, calibration.view, runtime, (id, key) =>
      itemText(rows, runtime, plan.context, id, key),
    ),
    warnings: [...new Set(warnings)],
  };
  return { input: reportInput, blocks: blocksOf(reportInput), analysisContext: plan.context };
}

/** A total the rows measured without a window (an import) takes the window the catalog gives. */
function withWindow(usage: UsageInput | null, window: ContextWindow | null): UsageInput | null {
  if (!usage || usage.contextSize !== null || !window) return usage;
  return { ...usage, contextSize: window.contextSize };
}

/** The first model call's message (-1: none): every message before it is estimated like live ones. */
export const firstCall = (calls: Pick<CallsView, 'shape'>): number =>
  calls.shape.calls.length > 0 ? Math.min(...calls.shape.calls.map((c) => c.message)) : -1;

/** The session's calls; as of an earlier call, its measured prompt is the total the report describes. */
export function callsView(
  headers: readonly Header[],
  session: Pick<SessionInput, 'usage' | 'parent'>,
  services: Pick<AnalysisServices, 'runtime'>,
  asOfCall: number | undefined,
): CallsView {
  const shape = services.runtime.session(headers, session.usage);
  // A subagent's session has no ACP total of its own: it is described as of its last measured call.
  const asOfNumber = asOfCall ?? (session.usage === null && session.parent ? lastMeasured(shape.calls) : undefined);
  const asOf = asOfNumber === undefined ? null : asOfCallOf(shape.calls, asOfNumber);
  // Without an ACP total (a session imported from an export), the total is the last measured
  // call's prompt as the provider counted it (contract §8), and the report says so.
  const lastNumber = asOf || session.usage ? undefined : lastMeasured(shape.calls);
  const lastCall = lastNumber === undefined ? null : asOfCallOf(shape.calls, lastNumber);
  const usage: UsageInput | null = asOf
    ? {
        contextUsed: asOf.prompt!,
        contextSize: session.usage?.contextSize ?? session.parent?.contextSize ?? null,
        recordedAt: asOf.time,
        ...(session.usage ? {} : { source: 'provider' as const }),
      }
    : lastCall
      ? { contextUsed: lastCall.prompt!, contextSize: null, recordedAt: lastCall.time, source: 'provider' }
      : session.usage;
  return { shape, asOfNumber, asOf, usage };
}

function asOfBlock({ shape, asOfNumber, asOf }: CallsView): NonNullable<ReportInput['asOf']> {
  return {
    call: asOfNumber!,
    of: numberedCalls(shape.calls).length,
    messageId: asOf!.messageId,
    at: asOf!.time,
  };
}

/** The tools called before the call the report is as of (its own output is not in its prompt). */
function calledTools(analyses: readonly MessageAnalysis[], asOf: ModelCall | null): Set<string> {
  const calledBy = (a: MessageAnalysis, index: number) =>
    a.items.filter((i) => !asOf || index < asOf.message || (i.segment ?? 0) < asOf.segment);
  const upTo = asOf ? analyses.slice(0, asOf.message + 1) : analyses;
  return new Set(upTo.flatMap((a, index) => calledBy(a, index).flatMap((i) => (i.tool ? [i.tool] : []))));
}

/** Of the messages the report describes (not the history): warnings, omissions, mentions; the history's bytes. */
function describedMessages(
  analyses: readonly MessageAnalysis[],
  headers: readonly Header[],
  history: ReadonlySet<number>,
  warnings: string[],
) {
  const omissions = emptyOmissions();
  const mentions: ReportInput['mentions'] = [];
  const quotes: NonNullable<ReportInput['quotes']> = [];
  let historyBytes = 0;
  analyses.forEach((analysis, index) => {
    const header = headers[index]!;
    if (history.has(index)) {
      historyBytes += header.size;
      return;
    }
    warnings.push(...analysis.warnings);
    addOmissions(omissions, analysis.omissions);
    mentions.push({ messageId: header.id, names: analysis.mentions });
    quotes.push({ messageId: header.id, quotes: analysis.quotes ?? [] });
  });
  return { omissions, mentions, quotes, historyBytes };
}

/** The runtime as the report names it: its name, its item's label, its words, its advice. */
const runtimeInputOf = (runtime: AgentRuntime): ReportInput['runtime'] => ({
  name: runtime.name,
  rows: runtime.rows,
  label: runtime.runtimeItem.label,
  words: runtime.words,
  ...(runtime.advice ? { advice: runtime.advice } : {}),
});

/** The runtime's request view with a change made, and the latest reply for a hand-off (absent: it builds none). */
function nextPromptInput(
  headers: readonly Header[],
  view: readonly Item[],
  runtime: AgentRuntime,
  textOf: (messageId: string, key: string) => string | undefined,
): Pick<ReportInput, 'next' | 'latestReply'> {
  const next = runtime.nextPrompt?.(headers);
  if (!next) return {};
  const latestReply = replyText(view, next, textOf);
  return { next, ...(latestReply ? { latestReply } : {}) };
}

/** The text of the latest assistant reply in view (for a new session's hand-off), if a row holds it. */
function replyText(
  view: readonly Item[],
  next: NonNullable<ReportInput['next']>,
  textOf: (messageId: string, key: string) => string | undefined,
): string | undefined {
  const replies = new Set(next.messages.filter((m) => m.role === 'assistant').map((m) => m.id));
  for (let i = view.length - 1; i >= 0; i--) {
    const item = view[i]!;
    if (item.source !== 'conversation' || !item.messageId || !replies.has(item.messageId)) continue;
    const text = textOf(item.messageId, item.key);
    if (text) return text;
  }
  return undefined;
}

/** One item's text, its message analysed again with texts kept (undefined: no row). */
function itemText(
  rows: Rows,
  runtime: AgentRuntime,
  context: AnalysisContext,
  messageId: string,
  key: string,
): string | undefined {
  // The read plan reads the reply a hand-off quotes (read-plan.ts handOffReply); an earlier one,
  // looked at only when that reply has no text, is quoted only if its row was read.
  const row = rows.get(messageId);
  if (!row) return undefined;
  const contributions = messageTexts(row, runtime, context);
  return contributions.find((c) => c.key === key)?.texts.join('\n');
}

/** An item's lines as the runtime's read showed them: its message analysed again, texts kept (undefined: no row). */
function readLines(
  rows: Rows,
  runtime: AgentRuntime,
  context: AnalysisContext,
  messageId: string,
  key: string,
): ReturnType<TextOf> {
  const contributions = messageTexts(rows.need(messageId), runtime, context);
  rows.drop(messageId);
  const text = contributions.find((c) => c.key === key)?.texts.join('\n');
  return text === undefined ? null : (runtime.advice?.fileLines(text) ?? null);
}

/** The number of the last call whose prompt was measured (numberedCalls); undefined when none was. */
function lastMeasured(calls: readonly ModelCall[]): number | undefined {
  const count = numberedCalls(calls).length;
  return count === 0 ? undefined : count;
}

/**
 * The measured runtime item in parts, by the definitions recorded for the agent and model of
 * the call the total describes; undefined when it was not measured (nothing to split).
 */
function runtimeSplit(
  calibration: ReturnType<typeof calibrate>,
  calls: readonly ModelCall[],
  session: SessionInput,
  services: Pick<AnalysisServices, 'runtime'>,
  estimator: Estimator,
  { called }: { called: ReadonlySet<string> },
): RuntimeSplit | undefined {
  if (calibration.mode !== 'measured' || !calibration.reference) return undefined;
  const reference = numberedCalls(calls)[calibration.reference.call - 1];
  const call = { agent: reference?.agent ?? null, model: reference?.model ?? null };
  const { runtime } = services;
  const at = reference?.time;
  if (!runtime.runtimeParts)
    return { reason: `${runtime.name} records no definitions of its own prompt: it stays one measured block` };
  const estimate = runtime.runtimeParts(
    session.runtimeRecords ?? [],
    { ...call, ...(at !== undefined ? { at } : {}) },
    estimator,
  );
  return splitRuntime(calibration.runtimeOverhead ?? 0, estimate, called, call);
}

/**
 * What the runtime is made of for a call, by the definitions recorded for its agent and model
 * (their parts' estimates, framing not counted); null where none were recorded.
 */
function recordedRuntime(
  session: SessionInput,
  { runtime }: Pick<AnalysisServices, 'runtime'>,
  estimator: Estimator,
): ((call: ModelCall) => number | null) | undefined {
  const records = session.runtimeRecords ?? [];
  if (!runtime.runtimeParts || records.length === 0) return undefined;
  return (call) => {
    const estimate = runtime.runtimeParts!(
      records,
      { agent: call.agent ?? null, model: call.model ?? null, at: call.time },
      estimator,
    );
    if ('reason' in estimate || estimate.parts.length === 0) return null;
    return estimate.parts.reduce((n, p) => n + p.estimate, 0);
  };
}

/**
 * Call `n` (1-based) of a session: the n-th that measured a prompt (numberedCalls — a call that
 * failed or was stopped before the provider counted it has no number); else why not.
 */
function asOfCallOf(calls: readonly ModelCall[], n: number): ModelCall {
  const numbered = numberedCalls(calls);
  const call = numbered[n - 1];
  if (!Number.isInteger(n) || n < 1 || !call)
    throw new CallUnavailable(
      'call_out_of_range',
      numbered.length === 0
        ? `call ${n}: this session has no model call whose prompt was counted yet`
        : `call ${n} is out of range: this session has ${numbered.length} model call${numbered.length === 1 ? '' : 's'} whose prompt the provider counted (1–${numbered.length})`,
    );
  return call;
}

/** The items in request order: the runtime's own prompt first when it was measured. */
function blocksOf(input: Session['input']): Block[] {
  // The figures the report gives each item (pending ones have none), without building it again.
  const counted = countedItems(input);
  const figureOf = new Map(counted.map((c) => [itemId(c.item.sourceRef), c.scaled] as const));
  const runtime = counted.find((c) => c.item.sourceRef === RUNTIME_REF);
  const items: Item[] = [...(runtime ? [runtime.item] : []), ...input.calibration.view];
  return items.map((item) => {
    const id = itemId(item.sourceRef);
    return {
      itemId: id,
      key: item.key,
      source: item.source,
      label: item.label,
      sourceRef: item.sourceRef,
      estimatedTokens: item.tokens,
      tokens: figureOf.get(id) ?? null,
      bytes: item.bytes,
      ...(item.messageId ? { messageId: item.messageId } : {}),
    };
  });
}

/**
 * When the files the runtime puts in every request last changed on disk: a call after that
 * change may carry a different runtime prompt (instructions, the skill catalog).
 */
function runtimeFileChanges(workspace: WorkspaceSnapshot): { at: number; what: string }[] {
  const instructions = new Set(workspace.instructions.map((i) => i.path));
  const skills = new Set(workspace.skills.map((s) => s.path));
  return workspace.stamps.flatMap((stamp) =>
    instructions.has(stamp.path)
      ? [{ at: stamp.mtimeMs, what: `instructions (${stamp.path})` }]
      : skills.has(stamp.path)
        ? [{ at: stamp.mtimeMs, what: `skill catalog (${stamp.path})` }]
        : [],
  );
}

function addOmissions(into: Omissions, from: Omissions): void {
  for (const key of Object.keys(into) as (keyof Omissions)[]) {
    into[key].count += from[key].count;
    into[key].bytes += from[key].bytes;
  }
}
