/**
 * The core's one entry point: a session's rows and a workspace snapshot in, the context report
 * and its items in request order out. Plain data in; the runtime adapter, the estimators, a memo
 * and a thread pool are injected, and none of them changes the answer — only how fast it comes:
 * every memo key is derived here from everything the memoised work depends on, so a warm answer
 * equals a fresh one.
 *
 * Rows are read by the caller, as few as possible: a call may answer `needs` (these rows, at
 * these stamps), and the caller calls again with them. Everything memoised is never asked for.
 *
 * Steps: headers (memoised by id and stamp) → the session's facts (model, family, roots) and
 * plan (live messages with the report's estimator, history with chars/4) → each message
 * analysed by the runtime and estimated (memoised by id, stamp and the analysis's context, with
 * the file sizes it looked at) → calibration by the provider's counts → the report.
 */
import type { ContextReport, EstimatorId } from '../../shared/wire';
import { buildReport, countedItems, DEFAULT_ITEMS, RUNTIME_REF } from './build-report';
import { calibrate } from './calibrate';
import { narrowerReads, type TextOf } from './large-reads';
import { quotedSpans } from './narrower-read';
import { chars4Estimator, toItem } from './estimate';
import { CallUnavailable } from './errors';
import { splitRuntime } from './runtime-parts';
import { itemId } from './figures';
import { contentHash } from './hash';
import { familyRules, type FamilyRules, type ProviderFamily } from './providers';
import type { AgentRuntime, Header, ParsedRow, SessionFacts } from './runtime';
import type {
  AttributionContext,
  Contribution,
  Estimator,
  Item,
  MessageAnalysis,
  ModelCall,
  Omissions,
  RecordedRuntime,
  ReportInput,
  RuntimeSplit,
  SubagentSummary,
  UsageInput,
  WorkspaceSnapshot,
} from './types';
import { emptyOmissions } from './types';

/** One stored message as the store holds it: its JSON columns as text. */
export interface StoredRow {
  id: string;
  /** What tells one state of the row from another (its update time, and version where kept). */
  stamp: string;
  /** Bytes of the stored row. */
  size: number;
  info: string | null;
  parts: string | null;
  /** How the store held a column, when oddly (e.g. "is a BLOB; read as UTF-8"). */
  notes?: readonly string[];
}

export interface ContextInput {
  workspaceId: string;
  sessionId: string | null;
  generatedAt: string;
  estimator: EstimatorId;
  workspace: WorkspaceSnapshot;
  usage: UsageInput | null;
  /** The session's messages in order, each with its stamp. */
  messages: readonly { id: string; stamp: string }[];
  /** Rows read so far: a row whose stamp differs from its message's is not used. */
  rows: ReadonlyMap<string, StoredRow>;
  /** Warnings of the reading (the usage rows, the session). */
  warnings: readonly string[];
  items?: number | 'all';
  /** The context as of this model call (1-based, main calls), not the agent's latest total. */
  asOfCall?: number;
  /** What the runtime was for the session, as recorded where the agent ran (its definitions, by key). */
  runtimeRecords?: readonly RecordedRuntime[];
  /**
   * What the subagents' sessions the session's calls made consumed, by session id (null: not
   * stored here). Given (even empty), the core asks for those it lacks (`needs.subagents`);
   * absent, items name their subagent's session only.
   */
  subagents?: ReadonlyMap<string, SubagentSummary | null>;
  /**
   * This session is a subagent's, made by that session's call (whose window it shares). Such a
   * session gets no ACP total of its own: without one, the report describes it as of its last
   * measured call.
   */
  parent?: { sessionId: string; contextSize: number | null };
  /** Also the texts of these items, and of the blocks in this range of request order. */
  texts?: { items?: readonly string[]; blocks?: { start: number; count: number } };
}

/** A memo the core may keep work in: any value under a key the core derives. */
export interface Memo {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

/** Counting on other threads: a text's tokens, asked in batches (`flush`). */
export interface ThreadCounter {
  count(text: string): Promise<number>;
  flush(): void;
  close(): Promise<void>;
}

export interface ContextServices {
  runtime: AgentRuntime;
  /** The report's estimator for a provider family (the tokenizers live outside the core). */
  estimator(id: EstimatorId, family: ProviderFamily): Estimator;
  memo?: Memo;
  /** From this much new live text (characters), counting goes to threads when `open` gives some. */
  threads?: { minChars: number; open(estimator: Estimator): ThreadCounter | null };
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

export type ContextResult =
  | { kind: 'needs'; rows: string[]; subagents?: string[] }
  | {
      kind: 'report';
      report: ContextReport;
      blocks: readonly Block[];
      /** Texts asked for, by item id. */
      texts: ReadonlyMap<string, string>;
      /** The stamp of every message the report read. */
      stamps: ReadonlyMap<string, string>;
    };

/** What a report is made of, before the items limit and the time: memoised whole. */
interface Session {
  input: Omit<ReportInput, 'itemsLimit' | 'generatedAt'>;
  blocks: Block[];
  /** Per message: the context its analysis was made in (for texts). */
  analysisContext: AnalysisContext;
}

interface HeaderEntry {
  header: Header;
  warnings: string[];
}

interface AnalysisEntry {
  analysis: MessageAnalysis;
  /** The file sizes the attribution looked at, as they were. */
  deps: [string, number | null][];
}

interface AnalysisContext {
  facts: SessionFacts;
  family: FamilyRules;
  estimator: Estimator;
  /** For the memo key: everything the analysis depends on besides the message and the file sizes. */
  base: string;
}

const HEADER = 'h';
/** Quotes kept of one message: enough to find what it used of a file, never its whole text. */
const MAX_QUOTES = 40;
/** A read estimated above this share of the total may be a large item: its row is read with the rest. */
const LARGE_READ_PREFETCH = 0.15;
const ANALYSIS = 'a';
const SESSION = 's';

export async function contextReport(input: ContextInput, services: ContextServices): Promise<ContextResult> {
  const { runtime } = services;
  const memo = services.memo ?? new Map<string, unknown>();
  const stamps = new Map(input.messages.map((m) => [m.id, m.stamp]));
  const digest = sessionDigest(input, runtime);
  // The snapshot pins item texts and reader pages: a set of definitions recorded after a turn
  // (its row reserved at the turn's end) only fills in the runtime's parts, so their text is not
  // part of it — the report shown at the turn's end keeps its reader once they land.
  const records = input.runtimeRecords?.map((row) => ({ ...row, definitions: null }));
  const snapshotId = `snap_${sessionDigest({ ...input, ...(records ? { runtimeRecords: records } : {}) }, runtime).slice(0, 24)}`;
  const rows = new Rows(input, stamps);

  let session = memo.get(`${SESSION}\u0000${digest}`) as Session | undefined;
  if (!session) {
    const made = await makeSession(input, services, memo, rows, snapshotId, stamps);
    if ('needs' in made) return { kind: 'needs', rows: made.needs };
    if ('subagents' in made) return { kind: 'needs', rows: [], subagents: made.subagents };
    session = made.session;
    memo.set(`${SESSION}\u0000${digest}`, session);
  }

  const texts = new Map<string, string>();
  if (input.texts) {
    const wanted = textBlocks(session.blocks, input.texts);
    const needs = await collectTexts(wanted, input, services, session, rows, texts);
    if (needs.length > 0) return { kind: 'needs', rows: needs };
  }
  const report = buildReport({
    ...session.input,
    generatedAt: input.generatedAt,
    itemsLimit: input.items ?? DEFAULT_ITEMS,
  });
  return { kind: 'report', report, blocks: session.blocks, texts, stamps };
}

/** Everything a report depends on, hashed: the same digest is the same report. */
function sessionDigest(input: ContextInput, runtime: AgentRuntime): string {
  const parts = [
    runtime.id,
    input.estimator,
    input.workspaceId,
    input.sessionId ?? '',
    JSON.stringify(input.workspace),
    JSON.stringify(input.usage),
    JSON.stringify(input.warnings),
    String(input.asOfCall ?? ''),
    input.messages.map((m) => `${m.id}:${m.stamp}`).join('\n'),
    JSON.stringify(input.runtimeRecords ?? []),
    JSON.stringify(input.subagents ? [...input.subagents].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : null),
    JSON.stringify(input.parent ?? null),
  ];
  return digestOf(parts.join('\u0000'));
}

/** Two independent hashes of the same text: 128 bits, for a key that must never collide. */
const digestOf = (text: string): string => `${contentHash(text)}${contentHash(`\u0001${text}`)}`;

/** A row as the analysis reads it: its columns parsed (undefined: not valid JSON). */
interface ReadRow extends ParsedRow {
  notes: readonly string[];
  size: number;
  partsInvalid: boolean;
}

/** The rows of the input at their messages' stamps, each parsed once while it is needed. */
class Rows {
  private readonly parsed = new Map<string, ReadRow>();

  constructor(
    private readonly input: ContextInput,
    private readonly stamps: ReadonlyMap<string, string>,
  ) {}

  has(id: string): boolean {
    const row = this.input.rows.get(id);
    return row !== undefined && row.stamp === this.stamps.get(id);
  }

  get(id: string): ReadRow | undefined {
    let found = this.parsed.get(id);
    if (found || !this.has(id)) return found;
    const row = this.input.rows.get(id)!;
    const parts = parseJson(row.parts);
    found = {
      id,
      info: parseJson(row.info),
      parts,
      size: row.size,
      notes: row.notes ?? [],
      partsInvalid: parts === undefined,
    };
    this.parsed.set(id, found);
    return found;
  }

  /** Once analysed, a message's parsed row is let go: a large session's rows are most of a cold report's memory. */
  drop(id: string): void {
    this.parsed.delete(id);
  }
}

async function makeSession(
  input: ContextInput,
  services: ContextServices,
  memo: Memo,
  rows: Rows,
  snapshotId: string,
  stamps: ReadonlyMap<string, string>,
): Promise<{ session: Session } | { needs: string[] } | { subagents: string[] }> {
  const { runtime } = services;
  const warnings = [...input.warnings];

  // Headers: from the memo, else from the row.
  const headers: Header[] = [];
  const missing: string[] = [];
  for (const { id, stamp } of input.messages) {
    const key = `${HEADER}\u0000${runtime.id}\u0000${id}\u0000${stamp}`;
    let entry = memo.get(key) as HeaderEntry | undefined;
    if (!entry) {
      const row = rows.get(id);
      if (!row) {
        missing.push(id);
        continue;
      }
      const headerWarnings = [...row.notes];
      const header = runtime.header(row, row.size, (m) => headerWarnings.push(m));
      entry = { header, warnings: headerWarnings };
      memo.set(key, entry);
    }
    headers.push(entry.header);
    warnings.push(...entry.warnings);
  }
  if (missing.length > 0) return { needs: missing };

  // The plan: live messages (and all before the first call, whose prompt measures the runtime)
  // with the report's estimator; history with chars/4, which only shares out measured growth.
  const facts = runtime.facts(headers);
  const family = familyRules(facts.family);
  const estimator = services.estimator(input.estimator, facts.family);
  const shape = runtime.session(headers, input.usage);
  // A subagent's session has no ACP total of its own: it is described as of its last measured call.
  const asOfNumber = input.asOfCall ?? (input.usage === null && input.parent ? lastMeasured(shape.calls) : undefined);
  const asOf = asOfNumber === undefined ? null : asOfCall(shape.calls, asOfNumber);
  // Without an ACP total (a session imported from an export), the total is the last measured
  // call's prompt as the provider counted it (contract §8), and the report says so.
  const lastNumber = asOf || input.usage ? undefined : lastMeasured(shape.calls);
  const lastCall = lastNumber === undefined ? null : asOfCall(shape.calls, lastNumber);
  // As of an earlier call, its measured prompt is the total the report describes.
  const usage: UsageInput | null = asOf
    ? {
        contextUsed: asOf.prompt!,
        contextSize: input.usage?.contextSize ?? input.parent?.contextSize ?? null,
        recordedAt: asOf.time,
        ...(input.usage ? {} : { source: 'provider' as const }),
      }
    : lastCall
      ? { contextUsed: lastCall.prompt!, contextSize: null, recordedAt: lastCall.time, source: 'provider' }
      : input.usage;
  const live = new Set(runtime.liveWindow(headers));
  const firstCall = shape.calls.length > 0 ? Math.min(...shape.calls.map((c) => c.message)) : -1;
  const good = headers.map((_, i) => live.has(i) || firstCall < 0 || i < firstCall);
  const workspace = input.workspace;
  // Hashed (128 bits): it is part of every analysis key, and long keys make every lookup slow.
  const base = digestOf(
    JSON.stringify([
      runtime.id,
      workspace.root,
      workspace.instructions.map((i) => i.path).sort(),
      workspace.skills.map((s) => s.name),
      facts,
    ]),
  );
  const context: AnalysisContext = { facts, family, estimator, base };
  const keyOf = (id: string, good: boolean) => analysisKey(id, stamps.get(id) ?? '', context, good);

  // Analyses: from the memo where the file sizes they looked at are unchanged, else from the row.
  const analyses: (MessageAnalysis | null)[] = headers.map((h, i) => {
    const entry = memo.get(keyOf(h.id, good[i]!)) as AnalysisEntry | undefined;
    return entry && entry.deps.every(([path, size]) => fileSize(workspace, path) === size) ? entry.analysis : null;
  });
  // Also the rows of reads large enough to be told how to read less (large-reads.ts): asked now,
  // with the rest, rather than after the calibration.
  const large = usage ? LARGE_READ_PREFETCH * usage.contextUsed : Infinity;
  const needed = headers.flatMap((h, i) =>
    !rows.has(h.id) &&
    (analyses[i] === null || (good[i] && analyses[i]!.items.some((item) => item.path && item.tokens >= large)))
      ? [h.id]
      : [],
  );
  if (needed.length > 0) return { needs: needed };

  const fresh = headers.flatMap((_, i) => (analyses[i] === null ? [i] : []));
  const alwaysLoaded = runtime.alwaysLoaded(workspace);
  const freshLive = fresh.filter((i) => good[i]);
  const liveChars = freshLive.reduce((n, i) => n + (input.rows.get(headers[i]!.id)?.size ?? 0), 0);
  const pool =
    // A tokenizer with a table can count on threads (chars/4 costs nothing to count).
    estimator.encoding !== undefined && services.threads && liveChars >= services.threads.minChars
      ? services.threads.open(estimator)
      : null;
  let counted: Estimator = estimator;
  try {
    const analyse = (i: number, chosen: Estimator) => {
      const id = headers[i]!.id;
      const { analysis, deps } = analyseMessage(rows.get(id)!, input, services, context, chosen, !good[i]);
      rows.drop(id);
      return { analysis, deps, key: keyOf(id, good[i]!) };
    };
    if (pool) {
      // Live messages are attributed here with their texts kept while threads count the texts;
      // the history, estimated with chars/4, is analysed meanwhile.
      const pending = new Map<string, Promise<number>>();
      const ask = (text: string) => {
        let found = pending.get(text);
        if (!found) pending.set(text, (found = pool.count(text).catch(() => estimator.count(text))));
        return found;
      };
      for (const c of alwaysLoaded) for (const text of c.texts) void ask(text);
      const filled: Promise<void>[] = [];
      const done: { i: number; entry: AnalysisEntry; key: string }[] = [];
      for (const i of freshLive) {
        const id = headers[i]!.id;
        const { analysis, deps, contributions } = analyseMessage(
          rows.get(id)!,
          input,
          services,
          context,
          uncounted(estimator),
          false,
        );
        rows.drop(id);
        analysis.items.forEach((item, k) => {
          const texts = contributions[k]!.texts;
          filled.push(
            Promise.all(texts.map(ask)).then((counts) => {
              item.tokens = counts.reduce((a, b) => a + b, 0) + (item.vision ?? 0);
              if (item.producedTexts) item.produced = counts.slice(0, item.producedTexts).reduce((a, b) => a + b, 0);
            }),
          );
        });
        analyses[i] = analysis;
        done.push({ i, entry: { analysis, deps }, key: keyOf(id, true) });
      }
      pool.flush();
      for (const i of fresh) {
        if (good[i]) continue;
        const made = analyse(i, chars4Estimator);
        analyses[i] = made.analysis;
        memo.set(made.key, { analysis: made.analysis, deps: made.deps });
      }
      await Promise.all(filled);
      const counts = new Map<string, number>();
      for (const [text, count] of pending) counts.set(text, await count);
      counted = { ...estimator, count: (text) => counts.get(text) ?? estimator.count(text) };
      for (const { entry, key } of done) memo.set(key, entry);
    } else {
      for (const i of fresh) {
        const made = analyse(i, good[i] ? estimator : chars4Estimator);
        analyses[i] = made.analysis;
        memo.set(made.key, { analysis: made.analysis, deps: made.deps });
      }
    }
  } finally {
    await pool?.close();
  }

  const done = analyses as MessageAnalysis[];
  // The subagents' sessions the calls made: what each consumed is asked of the caller.
  const children = [
    ...new Set(done.flatMap((a) => a.items.flatMap((i) => (i.subagent ? [i.subagent.sessionId] : [])))),
  ];
  const lacking = input.subagents ? children.filter((id) => !input.subagents!.has(id)) : [];
  if (lacking.length > 0) return { subagents: lacking };
  const always = alwaysLoaded.map((c) => toItem(c, counted, warnings));
  const calibration = calibrate({
    session: shape,
    items: done.map((a) => a.items),
    alwaysLoaded: always,
    usage,
    changes: [...(runtime.definitionChanges?.(input.runtimeRecords ?? []) ?? []), ...runtimeFileChanges(workspace)],
    reasoningCopies: done.map((a) => a.reasoningCopies),
    ...(asOfNumber !== undefined ? { asOfCall: asOfNumber } : {}),
  });
  // The tools called before the call the report is as of (its own output is not in its prompt).
  const calledBy = (a: MessageAnalysis, index: number) =>
    a.items.filter((i) => !asOf || index < asOf.message || (i.segment ?? 0) < asOf.segment);
  const upTo = asOf ? done.slice(0, asOf.message + 1) : done;
  const called = new Set(upTo.flatMap((a, index) => calledBy(a, index).flatMap((i) => (i.tool ? [i.tool] : []))));
  const split = runtimeSplit(calibration, shape.calls, input, services, estimator, called);
  const history = new Set(calibration.history);
  const omissions = emptyOmissions();
  const mentions: ReportInput['mentions'] = [];
  const quotes: NonNullable<ReportInput['quotes']> = [];
  let historyBytes = 0;
  done.forEach((analysis, index) => {
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
  const reference = calibration.reference
    ? shape.calls.filter((c) => !c.compaction)[calibration.reference.call - 1]
    : undefined;
  const runtimeInput = {
    name: runtime.name,
    label: runtime.runtimeItem.label,
    words: runtime.words,
    ...(runtime.advice ? { advice: runtime.advice } : {}),
  };
  const narrowing = narrowerReads({ calibration, usage, runtime: runtimeInput }, quotes, (messageId, key) =>
    readLines(messageId, key, { input, services, context, rows }),
  );
  if ('needs' in narrowing) return { needs: narrowing.needs };
  const reportInput: Session['input'] = {
    workspaceId: input.workspaceId,
    sessionId: input.sessionId,
    snapshotId,
    runtime: runtimeInput,
    agent: reference?.agent ?? null,
    quotes,
    narrowing: narrowing.reads,
    estimator: { id: estimator.id, method: estimator.method },
    workspace,
    calibration,
    history: { messages: calibration.history.length, bytes: historyBytes },
    omissions,
    usage,
    provider: runtime.latestCount(asOf ? headers.slice(0, asOf.message + 1) : headers, usage),
    targetModel: facts.targetModel,
    imageRule: familyRules(facts.family).imageRule,
    window: runtime.window(usage, workspace.agentConfig, facts.targetModel),
    ...(split ? { runtimeSplit: split } : {}),
    ...(input.subagents ? { subagents: input.subagents } : {}),
    ...(input.parent ? { parentSessionId: input.parent.sessionId } : {}),
    ...(asOf
      ? {
          asOf: {
            call: asOfNumber!,
            of: shape.calls.filter((c) => !c.compaction).length,
            messageId: asOf.messageId,
            at: asOf.time,
          },
        }
      : {}),
    mentions,
    warnings: [...new Set(warnings)],
  };
  return { session: { input: reportInput, blocks: blocksOf(reportInput), analysisContext: context } };
}

/** The number (1-based, main calls) of the last call whose prompt was measured; undefined when none was. */
function lastMeasured(calls: readonly ModelCall[]): number | undefined {
  const main = calls.filter((c) => !c.compaction);
  for (let i = main.length - 1; i >= 0; i--) if (main[i]!.prompt !== null) return i + 1;
  return undefined;
}

/**
 * The measured runtime item in parts, by the definitions recorded for the agent and model of
 * the call the total describes; undefined when it was not measured (nothing to split).
 */
function runtimeSplit(
  calibration: ReturnType<typeof calibrate>,
  calls: readonly ModelCall[],
  input: ContextInput,
  services: ContextServices,
  estimator: Estimator,
  called: ReadonlySet<string>,
): RuntimeSplit | undefined {
  if (calibration.mode !== 'measured' || !calibration.reference) return undefined;
  const reference = calls.filter((c) => !c.compaction)[calibration.reference.call - 1];
  const call = { agent: reference?.agent ?? null, model: reference?.model ?? null };
  const { runtime } = services;
  const at = reference?.time;
  if (!runtime.runtimeParts)
    return { reason: `${runtime.name} records no definitions of its own prompt: it stays one measured block` };
  const estimate = runtime.runtimeParts(
    input.runtimeRecords ?? [],
    { ...call, ...(at !== undefined ? { at } : {}) },
    estimator,
  );
  return splitRuntime(calibration.runtimeOverhead ?? 0, estimate, called, call);
}

/** The main call `n` (1-based) of a session, measured; else why not. */
function asOfCall(calls: readonly ModelCall[], n: number): ModelCall {
  const main = calls.filter((c) => !c.compaction);
  const call = main[n - 1];
  if (!Number.isInteger(n) || n < 1 || !call)
    throw new CallUnavailable(
      'call_out_of_range',
      main.length === 0
        ? `call ${n}: this session has made no model call yet`
        : `call ${n} is out of range: this session has made ${main.length} model call${main.length === 1 ? '' : 's'} (1–${main.length})`,
    );
  if (call.prompt === null)
    throw new CallUnavailable('call_not_measured', `call ${n} recorded no provider counts (it failed or was stopped)`);
  return call;
}

function analysisKey(id: string, stamp: string, context: AnalysisContext, good: boolean): string {
  const estimator = good ? context.estimator.key : chars4Estimator.key;
  return `${ANALYSIS}\u0000${id}\u0000${stamp}\u0000${estimator}\u0000${good ? 'live' : 'history'}\u0000${context.base}`;
}

const fileSize = (workspace: WorkspaceSnapshot, path: string): number | null =>
  Object.hasOwn(workspace.files, path) ? workspace.files[path]! : null;

/** One message: the runtime's analysis, estimated; the sizes it looked at recorded. */
function analyseMessage(
  row: ReadRow,
  input: ContextInput,
  services: ContextServices,
  context: AnalysisContext,
  estimator: Estimator,
  rough: boolean,
): { analysis: MessageAnalysis; deps: [string, number | null][]; contributions: Contribution[] } {
  const { workspace } = input;
  const deps = new Map<string, number | null>();
  const attribution: AttributionContext & { facts: SessionFacts; light: boolean } = {
    root: workspace.root,
    instructionFiles: new Set(workspace.instructions.map((i) => i.path)),
    skillDirs: services.runtime.layout.skillDirs,
    sessionRoots: context.facts.sessionRoots,
    skillNames: workspace.skills.map((s) => s.name),
    fileSize: (path) => {
      const size = fileSize(workspace, path);
      deps.set(path, size);
      return size;
    },
    light: rough,
    facts: context.facts,
  };
  const ref = `messages_v2/${row.id}`;
  const analysed = services.runtime.analyze(
    { id: row.id, info: row.info ?? {}, parts: row.partsInvalid ? null : (row.parts ?? null) },
    attribution,
  );
  const warnings = [
    ...row.notes,
    ...(row.info === undefined ? [`${ref}: info is not valid JSON`] : []),
    ...(row.partsInvalid ? [`${ref}: parts is not valid JSON; skipped`] : analysed.warnings),
  ];
  const items = analysed.contributions.map((c) => {
    const item = { ...toItem(c, estimator, warnings, context.family), messageId: row.id };
    return rough ? { ...item, rough: true } : item;
  });
  const quotes = rough ? [] : quotesOf(analysed.contributions);
  return {
    analysis: {
      items,
      omissions: analysed.omissions,
      mentions: analysed.mentions,
      ...(quotes.length ? { quotes } : {}),
      warnings,
      ...(analysed.reasoningCopies ? { reasoningCopies: analysed.reasoningCopies } : {}),
      estimator: estimator.key,
    },
    deps: [...deps],
    contributions: analysed.contributions,
  };
}

/** An item's lines as the runtime's read showed them: its message analysed again, texts kept (undefined: no row). */
function readLines(
  messageId: string,
  key: string,
  at: { input: ContextInput; services: ContextServices; context: AnalysisContext; rows: Rows },
): ReturnType<TextOf> {
  const row = at.rows.get(messageId);
  if (!row) return undefined;
  const { contributions } = analyseMessage(row, at.input, at.services, at.context, chars4Estimator, false);
  at.rows.drop(messageId);
  const text = contributions.find((c) => c.key === key)?.texts.join('\n');
  return text === undefined ? null : (at.services.runtime.advice?.fileLines(text) ?? null);
}

/** What the model wrote itself (its replies, reasoning, tool calls): the `code spans` it quoted, a bounded few. */
function quotesOf(contributions: readonly Contribution[]): string[] {
  const out: string[] = [];
  for (const c of contributions) {
    for (const text of c.texts.slice(0, c.producedTexts ?? 0)) out.push(...quotedSpans(text));
    if (out.length >= MAX_QUOTES) break;
  }
  return out.slice(0, MAX_QUOTES);
}

/** The estimator's identity without its work: texts are counted elsewhere. */
const uncounted = (estimator: Estimator): Estimator => ({ ...estimator, count: () => 0 });

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

function textBlocks(blocks: readonly Block[], asked: NonNullable<ContextInput['texts']>): Block[] {
  const ids = new Set(asked.items ?? []);
  const out = blocks.filter((b) => ids.has(b.itemId));
  if (asked.blocks) out.push(...blocks.slice(asked.blocks.start, asked.blocks.start + asked.blocks.count));
  return out;
}

/**
 * The texts of some blocks as the model reads them. The report keeps none, so the messages they
 * come from are analysed again, texts kept: a page costs a few messages.
 */
async function collectTexts(
  wanted: readonly Block[],
  input: ContextInput,
  services: ContextServices,
  session: Session,
  rows: Rows,
  into: Map<string, string>,
): Promise<string[]> {
  const byKey = new Map<string, Block[]>();
  for (const block of wanted) byKey.set(block.key, [...(byKey.get(block.key) ?? []), block]);
  const put = (key: string, text: string) => {
    for (const block of byKey.get(key) ?? []) into.set(block.itemId, text);
  };
  if (byKey.has(RUNTIME_REF)) put(RUNTIME_REF, services.runtime.runtimeItem.text);
  for (const c of services.runtime.alwaysLoaded(input.workspace)) if (byKey.has(c.key)) put(c.key, c.texts.join('\n'));
  const messageIds = [...new Set(wanted.flatMap((b) => b.messageId ?? []))];
  const needs = messageIds.filter((id) => !rows.has(id));
  if (needs.length > 0) return needs;
  for (const id of messageIds) {
    const { contributions } = analyseMessage(
      rows.get(id)!,
      input,
      services,
      session.analysisContext,
      chars4Estimator,
      false,
    );
    for (const c of contributions) if (byKey.has(c.key)) put(c.key, c.texts.join('\n'));
  }
  return [];
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

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
