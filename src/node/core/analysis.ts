/**
 * Each message analysed by the runtime and estimated: live messages (and all before the first
 * call, whose prompt measures the runtime) with the report's estimator, history with chars/4,
 * which only shares out measured growth. An analysis is memoised by message id and stamp, the
 * estimator and everything else it depends on (`base`), with the file sizes it looked at: it is
 * used again only while those sizes are unchanged. Large live text is counted on threads.
 */
import { chars4Estimator, toItem } from './estimate';
import { structuralDigest } from './hash';
import { quotedSpans } from './narrower-read';
import { familyRules, type FamilyRules } from './providers';
import type { AgentRuntime, Header, SessionFacts } from './runtime';
import type { Memo, ReadRow, Rows } from './session-rows';
import type { AttributionContext, Contribution, Estimator, MessageAnalysis, WorkspaceSnapshot } from './types';
import type { EstimatorId } from '../../shared/wire';
import type { ProviderFamily } from './providers';

/** Counting on other threads: a text's tokens, asked in batches (`flush`). */
export interface ThreadCounter {
  count(text: string): Promise<number>;
  flush(): void;
  close(): Promise<void>;
}

/**
 * Analyses kept outside the process (the caller's store): found by message id and `storedKey`,
 * which the caller completes with what the core does not see — the row's content as stored and
 * the analyzer's version. `made` (the write path) receives each analysis made here to store it.
 */
export interface StoredAnalyses {
  find(id: string, key: string): AnalysisEntry | undefined;
  made?(id: string, key: string, entry: AnalysisEntry): void;
}

/** What the analysis of a session's messages is given. */
export interface AnalysisServices {
  runtime: AgentRuntime;
  /** The report's estimator for a provider family (the tokenizers live outside the core). */
  estimator(id: EstimatorId, family: ProviderFamily): Estimator;
  memo?: Memo;
  /** From this much new live text (characters), counting goes to threads when `open` gives some. */
  threads?: { minChars: number; open(estimator: Estimator): ThreadCounter | null };
  /** Analyses stored on the write path, used when their key and file sizes match. */
  stored?: StoredAnalyses;
}

export interface AnalysisEntry {
  analysis: MessageAnalysis;
  /** The file sizes the attribution looked at, as they were. */
  deps: [string, number | null][];
}

export interface AnalysisContext {
  facts: SessionFacts;
  family: FamilyRules;
  estimator: Estimator;
  workspace: WorkspaceSnapshot;
  /** For the memo key: everything the analysis depends on besides the message and the file sizes. */
  base: string;
}

/** How a session's messages are analysed: the facts, the estimator, which are live. */
export interface AnalysisPlan {
  context: AnalysisContext;
  /** Per message: estimated with the report's estimator (live, or before the first call). */
  good: boolean[];
  /** Per message: its memo key. */
  keys: string[];
}

/**
 * A message's key for stored analyses: the memo's without the message and its stamp (the caller
 * keys those by id and the row's content instead); no NUL, which PostgreSQL's text cannot hold.
 */
export function storedKey(context: AnalysisContext, good: boolean): string {
  return JSON.stringify([good ? context.estimator.key : chars4Estimator.key, good ? 'live' : 'history', context.base]);
}

const ANALYSIS = 'a';
/** Quotes kept of one message: enough to find what it used of a file, never its whole text. */
const MAX_QUOTES = 40;

export function analysisPlan(
  headers: readonly Header[],
  stamps: ReadonlyMap<string, string>,
  workspace: WorkspaceSnapshot,
  estimatorId: EstimatorId,
  services: AnalysisServices,
  firstCall: number,
): AnalysisPlan {
  const { runtime } = services;
  const facts = runtime.facts(headers);
  const estimator = services.estimator(estimatorId, facts.family);
  const live = new Set(runtime.liveWindow(headers));
  const good = headers.map((_, i) => live.has(i) || firstCall < 0 || i < firstCall);
  const base = structuralDigest([
    runtime.id,
    workspace.root,
    workspace.instructions.map((i) => i.path).sort(),
    workspace.skills.map((s) => s.name),
    workspace.declaredSources ?? [],
    facts,
  ]);
  const context: AnalysisContext = { facts, family: familyRules(facts.family), estimator, workspace, base };
  const keys = headers.map((h, i) => analysisKey(h.id, stamps.get(h.id) ?? '', context, good[i]!));
  return { context, good, keys };
}

function analysisKey(id: string, stamp: string, context: AnalysisContext, good: boolean): string {
  const estimator = good ? context.estimator.key : chars4Estimator.key;
  return `${ANALYSIS}\u0000${id}\u0000${stamp}\u0000${estimator}\u0000${good ? 'live' : 'history'}\u0000${context.base}`;
}

const fileSize = (workspace: WorkspaceSnapshot, path: string): number | null =>
  Object.hasOwn(workspace.files, path) ? workspace.files[path]! : null;

const sizesHold = (entry: AnalysisEntry, workspace: WorkspaceSnapshot): boolean =>
  entry.deps.every(([path, size]) => fileSize(workspace, path) === size);

/** Each message's memoised analysis, where the file sizes it looked at are unchanged (else null). */
export function memoisedAnalyses(plan: AnalysisPlan, memo: Memo): (MessageAnalysis | null)[] {
  const { workspace } = plan.context;
  return plan.keys.map((key) => {
    const entry = memo.get(key) as AnalysisEntry | undefined;
    return entry && sizesHold(entry, workspace) ? entry.analysis : null;
  });
}

/**
 * The stored analyses of the messages the memo lacks, where their key and file sizes match:
 * kept in the memo, their parsed rows let go (they are not analysed here).
 */
function storedAnalyses(
  headers: readonly Header[],
  plan: AnalysisPlan,
  analyses: (MessageAnalysis | null)[],
  { stored, rows, memo }: { stored: StoredAnalyses; rows: Rows; memo: Memo },
): void {
  const keys = [storedKey(plan.context, false), storedKey(plan.context, true)];
  analyses.forEach((found, i) => {
    if (found !== null) return;
    const id = headers[i]!.id;
    const entry = stored.find(id, keys[plan.good[i] ? 1 : 0]!);
    if (!entry || !sizesHold(entry, plan.context.workspace)) return;
    analyses[i] = entry.analysis;
    memo.set(plan.keys[i]!, entry);
    rows.drop(id);
  });
}

/** One message: the runtime's analysis, estimated; the sizes it looked at recorded. */
export function analyseMessage(
  row: ReadRow,
  runtime: AgentRuntime,
  context: AnalysisContext,
  estimator: Estimator,
  rough: boolean,
): { analysis: MessageAnalysis; deps: [string, number | null][]; contributions: Contribution[] } {
  const deps = new Map<string, number | null>();
  const ref = `messages_v2/${row.id}`;
  const analysed = runtime.analyze(parsedRow(row), attributionOf(runtime, context, rough, deps));
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

/** The row as the runtime's analyzer reads it. */
const parsedRow = (row: ReadRow) => ({
  id: row.id,
  info: row.info ?? {},
  parts: row.partsInvalid ? null : (row.parts ?? null),
});

/** What attribution is told of the workspace; the file sizes it looks at go into `deps`. */
function attributionOf(
  runtime: AgentRuntime,
  context: AnalysisContext,
  light: boolean,
  deps: Map<string, number | null>,
): AttributionContext & { facts: SessionFacts; light: boolean } {
  const { workspace } = context;
  return {
    root: workspace.root,
    instructionFiles: new Set(workspace.instructions.map((i) => i.path)),
    skillDirs: runtime.layout.skillDirs,
    pathRules: runtime.layout.pathRules,
    sessionRoots: context.facts.sessionRoots,
    skillNames: workspace.skills.map((s) => s.name),
    ...(workspace.declaredSources?.length ? { declared: workspace.declaredSources } : {}),
    fileSize: (path) => {
      const size = fileSize(workspace, path);
      deps.set(path, size);
      return size;
    },
    light,
    facts: context.facts,
  };
}

/**
 * A message's contributions — each one's key and texts — and nothing else: what a report reads
 * back when it shows an item's text (a large read's lines, a quoted reply, a block's text). Keys
 * and texts do not depend on `light` (which leaves out the content keys and skill mentions), so
 * this is analyseMessage's contributions without hashing every read's content or estimating items
 * no one reads: a 1M-token report read back 558 messages this way (docs/benchmarks.md, issue 42.2).
 */
export function messageTexts(
  row: ReadRow,
  runtime: AgentRuntime,
  context: AnalysisContext,
): readonly Pick<Contribution, 'key' | 'texts'>[] {
  return runtime.analyze(parsedRow(row), attributionOf(runtime, context, true, new Map())).contributions;
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

/**
 * Every message analysed: from the memo where it holds them, else from its row (then kept in
 * the memo). `counted`: the estimator with the counts the threads made (for the texts loaded
 * with every request, counted alongside).
 */
export async function analyseMessages(
  headers: readonly Header[],
  plan: AnalysisPlan,
  rows: Rows,
  services: AnalysisServices,
  memo: Memo,
  alwaysLoaded: readonly Contribution[],
): Promise<{ analyses: MessageAnalysis[]; counted: Estimator }> {
  const analyses = memoisedAnalyses(plan, memo);
  if (services.stored) storedAnalyses(headers, plan, analyses, { stored: services.stored, rows, memo });
  const fresh = headers.flatMap((_, i) => (analyses[i] === null ? [i] : []));
  const { estimator } = plan.context;
  const liveChars = fresh.filter((i) => plan.good[i]).reduce((n, i) => n + rows.size(headers[i]!.id), 0);
  const pool =
    // A tokenizer with a table can count on threads (chars/4 costs nothing to count).
    estimator.encoding !== undefined && services.threads && liveChars >= services.threads.minChars
      ? services.threads.open(estimator)
      : null;
  if (!pool) {
    for (const i of fresh) analyses[i] = analyseHere(headers[i]!.id, i, plan, rows, services, memo);
    return { analyses: analyses as MessageAnalysis[], counted: estimator };
  }
  try {
    const counted = await analyseOnThreads(headers, fresh, analyses, plan, rows, services, memo, {
      pool,
      alwaysLoaded,
    });
    return { analyses: analyses as MessageAnalysis[], counted };
  } finally {
    await pool.close();
  }
}

/** One message analysed and estimated on this thread, kept in the memo (and given to the store's recorder). */
function analyseHere(id: string, i: number, plan: AnalysisPlan, rows: Rows, services: AnalysisServices, memo: Memo) {
  const good = plan.good[i]!;
  const made = analyseMessage(
    rows.need(id),
    services.runtime,
    plan.context,
    good ? plan.context.estimator : chars4Estimator,
    !good,
  );
  rows.drop(id);
  const entry = { analysis: made.analysis, deps: made.deps };
  memo.set(plan.keys[i]!, entry);
  services.stored?.made?.(id, storedKey(plan.context, good), entry);
  return made.analysis;
}

/**
 * Live messages are attributed here with their texts kept while threads count the texts; the
 * history, estimated with chars/4, is analysed meanwhile. Entries are kept in the memo once
 * their counts are in.
 */
async function analyseOnThreads(
  headers: readonly Header[],
  fresh: readonly number[],
  analyses: (MessageAnalysis | null)[],
  plan: AnalysisPlan,
  rows: Rows,
  services: AnalysisServices,
  memo: Memo,
  { pool, alwaysLoaded }: { pool: ThreadCounter; alwaysLoaded: readonly Contribution[] },
): Promise<Estimator> {
  const { runtime } = services;
  const { estimator } = plan.context;
  const pending = new Map<string, Promise<number>>();
  const ask = (text: string) => {
    let found = pending.get(text);
    if (!found) pending.set(text, (found = pool.count(text).catch(() => estimator.count(text))));
    return found;
  };
  for (const c of alwaysLoaded) for (const text of c.texts) void ask(text);
  const filled: Promise<void>[] = [];
  const done: { entry: AnalysisEntry; key: string; id: string }[] = [];
  for (const i of fresh.filter((i) => plan.good[i])) {
    const id = headers[i]!.id;
    const { analysis, deps, contributions } = analyseMessage(
      rows.need(id),
      runtime,
      plan.context,
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
    done.push({ entry: { analysis, deps }, key: plan.keys[i]!, id });
  }
  pool.flush();
  for (const i of fresh) if (!plan.good[i]) analyses[i] = analyseHere(headers[i]!.id, i, plan, rows, services, memo);
  await Promise.all(filled);
  const counts = new Map<string, number>();
  for (const [text, count] of pending) counts.set(text, await count);
  const liveKey = storedKey(plan.context, true);
  for (const { entry, key, id } of done) {
    memo.set(key, entry);
    services.stored?.made?.(id, liveKey, entry);
  }
  return { ...estimator, count: (text) => counts.get(text) ?? estimator.count(text) };
}
