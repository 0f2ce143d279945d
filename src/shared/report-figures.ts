/**
 * The report's figures as every view prints them — the web report, its Markdown export and the
 * CLI table — so that none of them disagrees: one row per source and per remainder row, in one
 * order (by size, largest first; equal sizes keep the table order), each with the figure the
 * report stands behind and the percentage the JSON carries (never computed again); the empty
 * sources apart; Totals that are the sums of their columns; one rule for the biggest jumps; the
 * verdict in words. Browser-safe and pure.
 */
import { callsLeftParts, type Headroom, suggestionFrees } from './advice-text';
import { fmt, fmtCost, fmtPct, percentOf } from './format';
import type {
  Change,
  ContextReport,
  RemainderRow,
  ReportItem,
  ReportSource,
  RuntimePart,
  Suggestion,
  TimelinePoint,
} from './wire';

export { fmtCost };

/** A remainder row's key: `_remainder:KIND`. */
export const REMAINDER_PREFIX = '_remainder:';

export interface FigureRow {
  /** The source id, or `_remainder:KIND`. */
  key: string;
  label: string;
  /** The report's figure: scaled (measured) tokens; the estimate while there is no total. */
  tokens: number;
  /** Of the used total, as the JSON carries it (estimates only: of the estimates' sum, rounded once here). */
  percentOfUsed: number | null;
  /** The measured runtime (OpenCode's own prompt and tool schemas) inside this row. */
  runtimeTokens: number;
  source: ReportSource | null;
  remainder: RemainderRow | null;
}

export interface ReportFigures {
  /** No agent total yet: every figure is an estimate. */
  estimatesOnly: boolean;
  /** Rows with tokens, by size. */
  rows: FigureRow[];
  /** Sources with nothing in context, in table order: one line, not a row each. */
  empty: FigureRow[];
  /** The sums of the columns: tokens (= the agent's total), estimate, bytes, items. */
  total: { tokens: number; estimatedTokens: number; bytes: number; itemCount: number };
}

/** The figure of an item the views print: the report's (measured or scaled), else the estimate. */
export const itemTokens = (item: Pick<ReportItem, 'scaledTokens' | 'estimatedTokens'>, estimatesOnly: boolean) =>
  estimatesOnly ? item.estimatedTokens : (item.scaledTokens ?? 0);

/** An item's percentage: the JSON's; while there is no total, of the estimates' sum (rounded once, here). */
export function itemPercent(
  item: Pick<ReportItem, 'percentOfUsed' | 'estimatedTokens'>,
  figures: Pick<ReportFigures, 'estimatesOnly' | 'total'>,
): number | null {
  return figures.estimatesOnly ? percentOf(item.estimatedTokens, figures.total.tokens) : item.percentOfUsed;
}

export function reportFigures(report: ContextReport): ReportFigures {
  const estimatesOnly = report.actual === null;
  const estimateSum = report.sources.reduce((n, s) => n + s.estimatedTokens, 0);
  const all: FigureRow[] = report.sources.map((source) => {
    const tokens = estimatesOnly ? source.estimatedTokens : (source.scaledTokens ?? 0);
    return {
      key: source.id,
      label: source.label,
      tokens,
      percentOfUsed: estimatesOnly ? percentOf(tokens, estimateSum) : source.percentOfUsed,
      runtimeTokens: estimatesOnly
        ? 0
        : source.items.filter((i) => i.runtime).reduce((n, i) => n + (i.scaledTokens ?? 0), 0),
      source,
      remainder: null,
    };
  });
  if (!estimatesOnly) {
    for (const row of remainderOf(report)) {
      all.push({
        key: `${REMAINDER_PREFIX}${row.kind}`,
        label: row.label,
        tokens: row.tokens,
        percentOfUsed: row.percentOfUsed,
        runtimeTokens: 0,
        source: null,
        remainder: row,
      });
    }
  }
  // Stable: equal sizes keep the report's table order.
  const rows = all.filter((r) => r.tokens !== 0).sort((a, b) => b.tokens - a.tokens);
  const empty = all.filter((r) => r.tokens === 0);
  const sources = report.sources;
  return {
    estimatesOnly,
    rows,
    empty,
    total: {
      tokens: all.reduce((n, r) => n + r.tokens, 0),
      estimatedTokens: sources.reduce((n, s) => n + s.estimatedTokens, 0),
      bytes: sources.reduce((n, s) => n + s.bytes, 0),
      itemCount: sources.reduce((n, s) => n + s.itemCount, 0),
    },
  };
}

/** The report's remainder rows; from an older server, its one unattributed figure. */
function remainderOf(report: ContextReport): RemainderRow[] {
  if (report.remainder) return report.remainder.filter((r) => r.tokens !== 0);
  const tokens = report.calibration?.unattributed.tokens ?? 0;
  const used = report.actual?.contextUsed ?? null;
  return tokens > 0
    ? [
        {
          kind: 'unexplained',
          label: 'In no source',
          tokens,
          percentOfUsed: percentOf(tokens, used),
          reason: 'In the agent’s total but in no source.',
        },
      ]
    : [];
}

/** The items of every source, largest first (the report's figure), with their source's label. */
export function largestItems(report: ContextReport, count: number): { item: ReportItem; source: ReportSource }[] {
  const estimatesOnly = report.actual === null;
  return report.sources
    .flatMap((source) => source.items.map((item) => ({ item, source })))
    .sort((a, b) => itemTokens(b.item, estimatesOnly) - itemTokens(a.item, estimatesOnly))
    .slice(0, count);
}

/** A percentage as the views print it: the JSON's figure, "—" when there is none. */
export const pctText = (value: number | null | undefined): string => fmtPct(value);

// ---------------------------------------------------------------------------------------------
// The timeline

export interface Jump {
  index: number;
  point: TimelinePoint;
  delta: number;
}

/**
 * The biggest jumps: the largest growths from one measured call to the next, largest first. The
 * first call has no previous one, so it is never a jump (its prompt is where the session starts).
 */
export function biggestJumps(points: readonly TimelinePoint[], count = 3): Jump[] {
  return points
    .map((point, index) => ({
      index,
      point,
      delta: index === 0 ? 0 : point.promptTokens - points[index - 1]!.promptTokens,
    }))
    .filter((j) => j.index > 0 && j.delta > 0)
    .sort((a, b) => b.delta - a.delta)
    .slice(0, count);
}

/** What a jump added, in words: its largest item with the item's figure. */
export function jumpText(jump: Jump): string {
  const top = jump.point.added[0];
  return `Call ${jump.point.call}: +${fmt(jump.delta)} tokens${top ? ` — ${top.label} (${fmt(top.tokens)})` : ''}`;
}

/**
 * How many calls the timeline shows of how many counted a prompt (the numbered ones), and how
 * many more measured nothing (failed or stopped before the provider counted them: no number).
 */
export interface TimelineCoverage {
  points: number;
  calls: number;
  uncounted: number;
  /** More calls than points can hold: the timeline is thinned out evenly. */
  sampled: boolean;
}

export const TIMELINE_MAX_POINTS = 200;

export function timelineCoverage(report: ContextReport): TimelineCoverage | null {
  const points = report.timeline ?? [];
  if (points.length === 0) return null;
  const calls = Math.max(report.calibration?.calls ?? 0, points.at(-1)!.call);
  const sampled = points.length >= TIMELINE_MAX_POINTS && calls > points.length;
  return { points: points.length, calls, uncounted: report.calibration?.uncountedCalls ?? 0, sampled };
}

/** "31 model calls", "30 model calls — 1 more reported no prompt size", "200 of 1,234 calls, evenly spaced". */
export function coverageText(coverage: TimelineCoverage): string {
  const { points, calls, uncounted, sampled } = coverage;
  const counted = sampled
    ? `${fmt(points)} of ${fmt(calls)} model calls, evenly spaced`
    : `${fmt(calls)} model ${calls === 1 ? 'call' : 'calls'}`;
  if (uncounted === 0) return counted;
  return `${counted} — ${fmt(uncounted)} more reported no prompt size (failed or stopped), unnumbered`;
}

// ---------------------------------------------------------------------------------------------
// The verdict

export interface VerdictLines {
  /** "Evidence holds 58.4% of the context (19,876 tokens)." */
  biggest: string | null;
  /** "Largest item: Read evidence: slow-query.log — 13,919 tokens (40.9%)." */
  item: string | null;
  /** The first suggestion (the one that frees the most): its title, what it frees, what to do, the change. */
  action: {
    title: string;
    detail: string;
    itemIds: string[];
    kind: string;
    frees: string | null;
    change: Change | null;
  } | null;
  /** "133,988 tokens left before OpenCode compacts (20.2% of the usable 168,000 used)". */
  headroom: string | null;
  /** "99.1% of the last prompt read from cache." (the web's Cache fact, word for word) */
  cache: string | null;
  /** "$0.00 so far (as the agent reported it)". */
  cost: string | null;
}

export function verdictLines(report: ContextReport): VerdictLines | null {
  const v = report.verdict;
  if (!v) return null;
  const suggestion = actionSuggestion(report);
  return {
    biggest: v.biggestSource
      ? `${v.biggestSource.label} holds ${fmtPct(v.biggestSource.percentOfUsed)} of the context (${fmt(v.biggestSource.tokens)} tokens).`
      : null,
    item: v.biggestItem
      ? `Largest item: ${v.biggestItem.label} — ${fmt(v.biggestItem.tokens)} tokens (${fmtPct(v.biggestItem.percentOfUsed)}).`
      : null,
    action: v.action
      ? {
          title: v.action.title,
          detail: suggestion ? numbersInText(suggestion.detail) : '',
          itemIds: v.action.itemIds,
          kind: v.action.kind,
          frees: suggestion ? suggestionFrees(report, suggestion.frees, suggestion) : null,
          change: suggestion?.change ?? null,
        }
      : null,
    headroom: v.headroom ? headroomLine(v.headroom) : null,
    cache: v.cacheReadPercent === null ? null : `${fmtPct(v.cacheReadPercent)} of the last prompt read from cache.`,
    cost: costLine(report) ?? agentCostLine(report),
  };
}

/** The suggestion the verdict leads with: the report's first (older servers: matched by kind and title). */
export function actionSuggestion(report: ContextReport): Suggestion | null {
  const action = report.verdict?.action;
  if (!action) return null;
  return report.suggestions.find((s) => s.kind === action.kind && s.title === action.title) ?? null;
}

function headroomLine(h: Headroom): string {
  return `${roomText(h)}.`;
}

/**
 * The room left, one sentence for every view (the web's "Room" line, the CLI, the Markdown
 * export, the MCP text): "134,040 tokens left before OpenCode compacts — about 460 more model
 * calls at +291 tokens a call", and the basis of the calls left apart (a phone leaves it out).
 */
export function roomParts(h: Headroom): { text: string; basis: string | null } {
  if (h.left <= 0)
    return {
      text: `No room left: OpenCode compacts after the next call (${fmt(-h.left)} tokens over the usable ${fmt(h.usable)})`,
      basis: null,
    };
  const calls = callsLeftParts(h);
  return {
    text: `${fmt(h.left)} tokens left before OpenCode compacts${calls ? ` — ${calls.text}` : ''}`,
    basis: calls?.basis ?? null,
  };
}

/** The room sentence whole: its basis in brackets. */
export function roomText(h: Headroom): string {
  const { text, basis } = roomParts(h);
  return basis ? `${text} (${basis})` : text;
}

// ---------------------------------------------------------------------------------------------
// OpenCode's own prompt and tools: one item of one source row, in parts

/** The source whose row holds the measured runtime item (Agent/runtime instructions). */
export function runtimeSourceId(report: ContextReport): string {
  return report.sources.find((s) => s.items.some((i) => i.runtime))?.id ?? 'agent_instructions';
}

const sourceLabelOf = (report: ContextReport, id: string): string =>
  report.sources.find((s) => s.id === id)?.label ?? id;

export interface RuntimeFigures {
  /** The row it is part of. */
  sourceId: string;
  sourceLabel: string;
  item: ReportItem;
  /** Its figure inside that row (measured), and its share of the used context. */
  tokens: number;
  percentOfUsed: number | null;
  /** Its parts in request order (Σ tokens = `tokens`), or null: one measured block. */
  parts: RuntimePart[] | null;
  /** Without parts: why. */
  oneBlockBecause: string | null;
  /** Whose definitions split it, in words: "as OpenCode's “build” agent sent them to scripted/scripted". */
  recordedFor: string | null;
  /** Each time the rows show it changed after the first call: the call, by how much, and why. */
  changes: { call: number; delta: number; reason: string }[];
}

/**
 * The runtime item as every view shows it: a part of its source's row (its tokens in that row's
 * figure, its cost in that row's cost), split into the parts OpenCode's recorded definitions
 * name. Null when the report has no runtime item (estimates only, another runtime).
 */
export function runtimeFigures(report: ContextReport): RuntimeFigures | null {
  const source = report.sources.find((s) => s.items.some((i) => i.runtime));
  const item = source?.items.find((i) => i.runtime);
  if (!source || !item) return null;
  const recorded = report.calibration?.runtime?.parts;
  return {
    sourceId: source.id,
    sourceLabel: source.label,
    item,
    tokens: itemTokens(item, report.actual === null),
    percentOfUsed: item.percentOfUsed,
    parts: item.parts ?? null,
    oneBlockBecause: item.parts ? null : recorded && !recorded.recorded ? (recorded.reason ?? null) : null,
    recordedFor:
      recorded?.recorded && recorded.agent
        ? `as OpenCode’s “${recorded.agent}” agent sent them${recorded.model ? ` to ${recorded.model}` : ''}`
        : null,
    changes: (report.calibration?.runtime?.changes ?? [])
      .filter((c) => c.reason !== 'first call')
      .map((c) => ({ call: c.call, delta: c.delta, reason: c.reason })),
  };
}

/** A part's label with what the session did with it: "Tool: task (never called)". */
export function partLabel(part: RuntimePart): string {
  if (part.kind === 'tool' && part.called === false) return `${part.label} (never called)`;
  if (part.kind === 'mcp_server' && part.tools?.length) {
    const tools = part.tools.map((t) => `${t.name}${t.called ? '' : ' (never called)'}`).join(', ');
    return `${part.label}: ${tools}`;
  }
  return part.label;
}

/** "Changed at call 32: −109 tokens (tools added: investibook_context_report)". */
export const runtimeChangeText = (change: RuntimeFigures['changes'][number]): string =>
  `Changed at call ${fmt(change.call)}: ${change.delta >= 0 ? '+' : '−'}${fmt(Math.abs(change.delta))} tokens (${change.reason})`;

// ---------------------------------------------------------------------------------------------
// Repeated reads

/** An item read again while still in context, as every view marks it: "read again: 2 of 2", "read 1 of 2". */
export function repeatMark(item: Pick<ReportItem, 'duplicate'>): string | null {
  const d = item.duplicate;
  if (!d || d.reads < 2) return null;
  return d.ordinal > 1 ? `read again: ${d.ordinal} of ${d.reads}` : `read ${d.ordinal} of ${d.reads}`;
}

/**
 * The agent's own running cost (its ACP usage), told only where the report has no cost of its
 * own: when the model calls carry no price, the agent's "$0.00" is no cost, so it is not shown.
 */
export function agentCost(report: ContextReport): { amount: number; currency: string } | null {
  if (report.cost) return null;
  return report.verdict?.cost ?? null;
}

function agentCostLine(report: ContextReport): string | null {
  const cost = agentCost(report);
  return cost ? `${fmtCost(cost.amount, cost.currency)} so far, as the agent reported it.` : null;
}

// ---------------------------------------------------------------------------------------------
// Cost over the session

export interface CostRow {
  /** A source id, or a row's kind. */
  id: string;
  label: string;
  amount: number | null;
  inputTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
  /** Of `amount`, what content no longer in context cost (sources only). */
  leftAmount: number | null;
  /** Share of the session's cost (null without money). */
  percent: number | null;
}

/**
 * The cost rows, most expensive first, sources and rows together; their Total is the session's.
 * OpenCode's own prompt and tools are one item of their source (Agent/runtime instructions), as
 * in the token table: their cost is in that source's row, never a row of its own.
 */
export function costRows(report: ContextReport): { rows: CostRow[]; total: CostRow } | null {
  const cost = report.cost;
  if (!cost) return null;
  const share = (amount: number | null) =>
    amount === null || !cost.total ? null : Math.round((amount / cost.total) * 1000) / 10;
  const home = runtimeSourceId(report);
  const byId = new Map<string, CostRow>();
  const add = (row: Omit<CostRow, 'percent'>) => {
    const seen = byId.get(row.id);
    if (!seen) return void byId.set(row.id, { ...row, percent: null });
    byId.set(row.id, {
      ...seen,
      amount: seen.amount === null && row.amount === null ? null : (seen.amount ?? 0) + (row.amount ?? 0),
      inputTokens: seen.inputTokens + row.inputTokens,
      cacheReadTokens: seen.cacheReadTokens + row.cacheReadTokens,
      outputTokens: seen.outputTokens + row.outputTokens,
    });
  };
  for (const s of cost.sources) add(s);
  for (const r of cost.rows) {
    const label = r.kind === 'runtime' ? sourceLabelOf(report, home) : r.label;
    add({ ...r, id: r.kind === 'runtime' ? home : r.kind, label, leftAmount: null });
  }
  const rows = [...byId.values()]
    .map((r) => ({ ...r, percent: share(r.amount) }))
    .sort((a, b) => (b.amount ?? 0) - (a.amount ?? 0) || b.inputTokens - a.inputTokens);
  const sum = (pick: (r: CostRow) => number) => rows.reduce((n, r) => n + pick(r), 0);
  return {
    rows,
    total: {
      id: 'total',
      label: 'Total',
      amount: cost.total,
      inputTokens: sum((r) => r.inputTokens),
      cacheReadTokens: sum((r) => r.cacheReadTokens),
      outputTokens: sum((r) => r.outputTokens),
      leftAmount: cost.total === null ? null : sum((r) => r.leftAmount ?? 0),
      percent: cost.total === null ? null : 100,
    },
  };
}

/**
 * The cost of each row of the token table (its key: a source id, or a remainder row's), for a
 * Cost column whose sum is the session's cost — the cost table's rows, by the token table's keys;
 * what has no row of tokens now (compaction calls, a source whose content left) is told beneath.
 */
export function costCells(report: ContextReport): {
  byKey: Map<string, number>;
  total: number;
  currency: string;
  outside: { label: string; amount: number }[];
} | null {
  const cost = report.cost;
  const table = costRows(report);
  if (!cost || !table || cost.total === null) return null;
  const shown = new Set(reportFigures(report).rows.map((r) => r.key));
  const byKey = new Map<string, number>();
  const outside: { label: string; amount: number }[] = [];
  for (const row of table.rows) {
    const key = report.sources.some((s) => s.id === row.id) ? row.id : `${REMAINDER_PREFIX}${row.id}`;
    if (shown.has(key)) byKey.set(key, row.amount ?? 0);
    else if (row.amount) outside.push({ label: row.label, amount: row.amount });
  }
  return { byKey, total: cost.total, currency: cost.currency, outside };
}

/** "Cost in the total with no tokens in context now", in words a person reads. */
export function costOutsideText(report: ContextReport): string | null {
  const cells = costCells(report);
  if (!cells || cells.outside.length === 0) return null;
  const list = cells.outside.map((o) => `${o.label} ${fmtCost(o.amount, cells.currency)}`).join(', ');
  return `Also in the cost, with nothing of it in the context now: ${list}.`;
}

/** What the Cost column means, said where it is shown (a phone has no hover). */
export function costColumnNote(report: ContextReport): string | null {
  const cost = report.cost;
  if (!cost || cost.total === null) return null;
  const calls = `${fmt(cost.calls)} model call${cost.calls === 1 ? '' : 's'}`;
  const upTo = report.asOf ? ` up to call ${fmt(report.asOf.call)}` : '';
  return `Cost: what each row cost over the session${upTo} (${calls}, each billing its whole prompt again), not what it costs now.`;
}

/**
 * The headline of the cost table: "Cost over the session: $1.20 over 23 calls (every call bills
 * its whole prompt again)", or the billed tokens when no money was reported. Null without cost.
 */
export function costHeadline(report: ContextReport): string | null {
  const cost = report.cost;
  if (!cost) return null;
  const head = report.asOf ? `Cost up to model call ${fmt(report.asOf.call)}` : 'Cost over the session';
  const calls = `${fmt(cost.calls)} call${cost.calls === 1 ? '' : 's'}`;
  return cost.total === null
    ? `${head}: ${fmt(cost.tokens.input)} prompt tokens billed over ${calls}, no money reported`
    : `${head}: ${fmtCost(cost.total, cost.currency)} over ${calls} (every call bills its whole prompt again)`;
}

/** "$1.20 over 23 calls; Evidence cost the most: $0.83 (69.2%), 94% of its tokens read from cache." */
export function costLine(report: ContextReport): string | null {
  const cost = report.cost;
  const table = costRows(report);
  if (!cost || !table || cost.total === null) return null;
  const top = table.rows[0];
  const calls = `${fmt(cost.calls)} call${cost.calls === 1 ? '' : 's'}`;
  if (!top || top.amount === null) return `${fmtCost(cost.total, cost.currency)} over ${calls}.`;
  const cached = top.inputTokens > 0 ? Math.round((top.cacheReadTokens / top.inputTokens) * 100) : null;
  const saved = cost.cacheSavings ? `; the cache saved ${fmtCost(cost.cacheSavings.amount, cost.currency)}` : '';
  return `${fmtCost(cost.total, cost.currency)} over ${calls}; ${top.label} cost the most: ${fmtCost(top.amount, cost.currency)} (${fmtPct(top.percent)})${cached === null ? '' : `, ${cached}% of its tokens read from the cache`}${saved}.`;
}

/**
 * Numbers in the engine's sentences (notes, reasons, suggestion details) as the rest prints them:
 * "5962 tokens" → "5,962 tokens". Ids, dates, times, versions and paths are left alone.
 */
export function numbersInText(text: string): string {
  return text.replace(/(?<![\w.,:/#@+-])\d{4,}(?![\w,:/-]|\.\d)/g, (digits) => {
    const value = Number(digits);
    // A year stays a year.
    if (digits.length === 4 && value >= 1900 && value <= 2100) return digits;
    return fmt(value);
  });
}

/**
 * A source's folders in words, the same in every view: "docs/external/duckdb/ — 42 items, 61,204
 * tokens (12.3 %)". Where the report has no total, the estimate (≈).
 */
export function folderLines(source: Pick<ContextReport['sources'][number], 'folders'>): string[] {
  return (source.folders ?? []).map((f) => {
    const tokens = f.scaledTokens === null ? `≈${fmt(f.estimatedTokens)}` : fmt(f.scaledTokens);
    const share = f.percentOfUsed === null ? '' : ` (${fmtPct(f.percentOfUsed)})`;
    return `${f.folder} — ${fmt(f.itemCount)} items, ${tokens} tokens${share}`;
  });
}
