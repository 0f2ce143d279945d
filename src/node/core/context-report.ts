/**
 * The core's one entry point: a session's rows, its subagents' sessions and a workspace snapshot
 * in, the context report and its items in request order out. Plain data in; the runtime
 * adapter, the estimators, a memo and a thread pool are injected, and none of them changes the
 * answer — only how fast it comes: the memo key of a whole report is a structural digest of its
 * input (sessionKey), and the keys of its parts carry what those parts read, so a warm answer
 * equals a fresh one.
 *
 * The caller reads one snapshot: the stamps, the usage, the runtime records, the subagents'
 * sessions (as the headers name them) and only the rows the memo lacks (core/read-plan.ts), then
 * calls this once.
 *
 * Steps: the session's key → the session from the memo, or made (core/make-session.ts) with
 * each subagent's summary made from its own session → the texts asked for → the report.
 */
import type { ContextReport, EstimatorId } from '../../shared/wire';
import type { AnalysisServices } from './analysis';
import { messageTexts } from './analysis';
import { buildReport, DEFAULT_ITEMS, RUNTIME_REF } from './build-report';
import { ReadPlanMissed } from './errors';
import { structuralDigest } from './hash';
import { makeSession, type Block, type Session, type SessionContext, type SessionInput } from './make-session';
import type { AgentRuntime } from './runtime';
import { Rows } from './session-rows';
import type { SubagentSummary, WorkspaceSnapshot } from './types';

export type { ThreadCounter } from './analysis';
export type { Block, SessionInput } from './make-session';
export type { Memo, StoredRow } from './session-rows';

export interface ContextInput extends SessionInput {
  workspaceId: string;
  generatedAt: string;
  estimator: EstimatorId;
  workspace: WorkspaceSnapshot;
  items?: number | 'all';
  /** The context as of this model call (1-based, main calls), not the agent's latest total. */
  asOfCall?: number;
  /**
   * The sessions of the subagents the session's calls made, by session id (null: not stored in
   * this workspace), each summarised on its call's item. Given (even empty), an item whose
   * session is not among them names it without figures; absent, every item does.
   */
  subagents?: ReadonlyMap<string, SessionInput | null>;
  /** Also the texts of these items, and of the blocks in this range of request order. */
  texts?: { items?: readonly string[]; blocks?: { start: number; count: number } };
}

export type ContextServices = AnalysisServices;

export interface ContextResult {
  report: ContextReport;
  blocks: readonly Block[];
  /** Texts asked for, by item id. */
  texts: ReadonlyMap<string, string>;
  /** The stamp of every message the report read. */
  stamps: ReadonlyMap<string, string>;
}

export const SESSION = 's';
/** A subagent's summary is its own report's, as that report is made by default. */
const SUBAGENT_ESTIMATOR: EstimatorId = 'bpe';
/** The largest sources a subagent's item names. */
const SUBAGENT_LARGEST = 3;

export async function contextReport(input: ContextInput, services: ContextServices): Promise<ContextResult> {
  const memo = services.memo ?? new Map<string, unknown>();
  const digest = sessionKey(input, services.runtime);
  let session = memo.get(`${SESSION}\u0000${digest}`) as Session | undefined;
  if (!session) {
    const subagents = input.subagents ? await summaries(input, input.subagents, { ...services, memo }) : undefined;
    const context: SessionContext = {
      workspaceId: input.workspaceId,
      estimator: input.estimator,
      workspace: input.workspace,
      ...(input.asOfCall !== undefined ? { asOfCall: input.asOfCall } : {}),
      ...(subagents ? { subagents } : {}),
    };
    session = await makeSession(input, context, services, memo, snapshotIdOf(input, services.runtime, digest));
    memo.set(`${SESSION}\u0000${digest}`, session);
  }
  const texts = input.texts
    ? collectTexts(textBlocks(session.blocks, input.texts), input, services.runtime, session)
    : new Map<string, string>();
  const report = buildReport({
    ...session.input,
    generatedAt: input.generatedAt,
    itemsLimit: input.items ?? DEFAULT_ITEMS,
  });
  return { report, blocks: session.blocks, texts, stamps: new Map(input.messages.map((m) => [m.id, m.stamp])) };
}

/**
 * The memo key of a report: everything the session's report reads, as a structural digest —
 * the runtime, and every field of the input at every depth, the rows by their messages' ids and
 * stamps (a row's stamp tells its state). Left out: what is applied to the session's report
 * after it is made (the time, the items limit, the texts asked for).
 */
export function sessionKey(input: ContextInput, runtime: Pick<AgentRuntime, 'id'>): string {
  const { rows: _rows, generatedAt: _at, items: _items, texts: _texts, subagents, ...read } = input;
  const children = subagents && [...subagents].map(([id, child]) => [id, child && withoutRows(child)] as const);
  return structuralDigest([runtime.id, read, children ?? null]);
}

/**
 * The snapshot pins item texts and reader pages: a set of definitions recorded after a turn (its
 * row reserved at the turn's end) only fills in the runtime's parts, so their text is not part of
 * it — the report shown at the turn's end keeps its reader once they land.
 */
function snapshotIdOf(input: ContextInput, runtime: Pick<AgentRuntime, 'id'>, key: string): string {
  // No definitions recorded (an import, most sessions): the input pinned is the input keyed, and
  // its key is not made twice — a structural digest of every message's id and stamp, some 20 ms
  // of a 1M-token cold report (docs/benchmarks.md, issue 42.2).
  if (input.runtimeRecords === undefined || input.runtimeRecords.every((row) => row.definitions === null))
    return `snap_${key.slice(0, 24)}`;
  const records = input.runtimeRecords.map((row) => ({ ...row, definitions: null }));
  return `snap_${sessionKey({ ...input, runtimeRecords: records }, runtime).slice(0, 24)}`;
}

function withoutRows(session: SessionInput): Omit<SessionInput, 'rows'> {
  const { rows: _rows, ...rest } = session;
  return rest;
}

/** A subagent's session as the core reports it for its summary (and as the caller plans its reading). */
export function subagentInput(
  input: Pick<ContextInput, 'workspaceId' | 'generatedAt' | 'workspace'>,
  child: SessionInput,
): ContextInput {
  return {
    ...child,
    workspaceId: input.workspaceId,
    generatedAt: input.generatedAt,
    estimator: SUBAGENT_ESTIMATOR,
    workspace: input.workspace,
    items: 1,
  };
}

/** What each subagent's session consumed, from its own report (null: not stored here). */
async function summaries(
  input: ContextInput,
  sessions: ReadonlyMap<string, SessionInput | null>,
  services: ContextServices,
): Promise<Map<string, SubagentSummary | null>> {
  const out = new Map<string, SubagentSummary | null>();
  for (const [id, child] of sessions)
    out.set(id, child && subagentSummary((await contextReport(subagentInput(input, child), services)).report));
  return out;
}

/** A subagent's report in brief: its total, its window, its calls, its largest sources and its cost. */
export function subagentSummary(report: ContextReport): SubagentSummary {
  const rows = [
    ...report.sources.map((s) => ({ id: s.id, label: s.label, tokens: s.scaledTokens ?? s.estimatedTokens })),
    ...(report.remainder ?? []).map((r) => ({ id: r.kind, label: r.label, tokens: r.tokens })),
  ];
  return {
    total: report.actual?.contextUsed ?? null,
    contextSize: report.actual?.contextSize ?? null,
    calls: report.calibration?.calls ?? 0,
    largest: rows
      .filter((x) => x.tokens > 0)
      .sort((a, b) => b.tokens - a.tokens)
      .slice(0, SUBAGENT_LARGEST),
    cost:
      report.cost && report.cost.total !== null ? { amount: report.cost.total, currency: report.cost.currency } : null,
  };
}

export function textBlocks(blocks: readonly Block[], asked: NonNullable<ContextInput['texts']>): Block[] {
  const ids = new Set(asked.items ?? []);
  const out = blocks.filter((b) => ids.has(b.itemId));
  if (asked.blocks) out.push(...blocks.slice(asked.blocks.start, asked.blocks.start + asked.blocks.count));
  return out;
}

/**
 * The texts of some blocks as the model reads them. The report keeps none, so the messages they
 * come from are analysed again, texts kept: a page costs a few messages.
 */
function collectTexts(
  wanted: readonly Block[],
  input: ContextInput,
  runtime: AgentRuntime,
  session: Session,
): Map<string, string> {
  const into = new Map<string, string>();
  const byKey = new Map<string, Block[]>();
  for (const block of wanted) byKey.set(block.key, [...(byKey.get(block.key) ?? []), block]);
  const put = (key: string, text: string) => {
    for (const block of byKey.get(key) ?? []) into.set(block.itemId, text);
  };
  if (byKey.has(RUNTIME_REF)) put(RUNTIME_REF, runtime.runtimeItem.text);
  for (const c of runtime.alwaysLoaded(input.workspace)) if (byKey.has(c.key)) put(c.key, c.texts.join('\n'));
  const rows = new Rows(input);
  const messageIds = [...new Set(wanted.flatMap((b) => b.messageId ?? []))];
  const unread = messageIds.filter((id) => !rows.has(id));
  if (unread.length > 0) throw new ReadPlanMissed(unread);
  for (const id of messageIds) {
    for (const c of messageTexts(rows.need(id), runtime, session.analysisContext))
      if (byKey.has(c.key)) put(c.key, c.texts.join('\n'));
  }
  return into;
}
