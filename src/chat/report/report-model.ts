/**
 * The report as the view shows it, computed once per report: one row per source plus one per
 * remainder row, in one order (by size) for the bar, the legend, the table, the timeline and the
 * Markdown export — the same rows and figures the CLI prints (src/shared/report-figures.ts);
 * every percentage as the JSON carries it; the empty sources apart; the whole window with
 * OpenCode's auto-compaction threshold; the change since a previous report.
 * Pure: no React, no DOM.
 */
import { fmt, fmtPct } from '../../shared/format';
import { runtimeTitle } from '../../shared/report-text';
import {
  itemPercent,
  REMAINDER_PREFIX,
  reportFigures,
  type FigureRow,
  type ReportFigures,
} from '../../shared/report-figures';
import { shareText } from '../share-text';
import { sourceColor, sourceLabel } from '../../shared/sources';
import type { ContextReport, ReportItem, ReportSource } from '../../shared/wire';

export { shareText, REMAINDER_PREFIX };

/** OpenCode reserves the model's output limit, capped at this, below the context limit. */
export const OUTPUT_RESERVE_CAP = 32_000;
/** What no source holds, from servers before remainder rows (and the timeline's residual). */
export const UNATTRIBUTED = '_unattributed';
export const isRemainder = (key: string): boolean => key === UNATTRIBUTED || key.startsWith(REMAINDER_PREFIX);
const NEUTRAL = 'light-dark(#9ca3af, #6b7280)';
/** Hidden reasoning is the provider's, not nobody's: a colour of its own. */
const HIDDEN = 'light-dark(#7c6f9f, #d6a2e8)';

export interface Row {
  /** The source id, or a remainder key (`isRemainder`). */
  key: string;
  label: string;
  color: string;
  /** The main unit: tokens as reported (estimates only when there is no total yet). */
  tokens: number;
  /** Of the used total, as the report carries it. */
  percentOfUsed: number | null;
  /** `percentOfUsed` as text. */
  shareText: string;
  /** The measured runtime overhead inside this row (Agent/runtime instructions). */
  runtimeTokens: number;
  source: ReportSource | null;
  /** For a remainder row: why these tokens are in no source. */
  reason?: string;
}

export interface WindowModel {
  contextSize: number;
  reservedOutput: number;
  /** Where OpenCode compacts; null when it cannot be placed. */
  autoCompactAt: number | null;
  /** True when the threshold is our reading of OpenCode's rule, not a figure the report carries. */
  assumed: boolean;
}

export interface ReportModel {
  report: ContextReport;
  mode: 'measured' | 'scaled' | 'estimate-only';
  /** No agent total yet: every figure is an estimate. */
  estimatesOnly: boolean;
  /** What the shares are of: the agent's total, or the estimates' sum. */
  total: number;
  /** Rows with tokens, by size, largest first. */
  rows: Row[];
  /** Sources with nothing in context, in table order. */
  empty: Row[];
  /** The rows' figures and the column sums, as the CLI prints them. */
  figures: ReportFigures;
  window: WindowModel | null;
  /** What is measured, what is estimated, what the server cannot see: one line (fine print). */
  boundaries: string;
  labelOf: (id: string) => string;
  colorOf: (id: string) => string;
}

/** The tokenizer's name as the report states it ("o200k_base BPE", "Claude tokenizer…", "chars/4"). */
export const estimatorName = (report: ContextReport): string =>
  report.estimate.estimator === 'chars4' ? 'chars/4' : (report.estimate.method.split(',')[0] ?? 'BPE');

function modeOf(report: ContextReport): ReportModel['mode'] {
  if (report.calibration) return report.calibration.mode;
  return report.actual ? 'scaled' : 'estimate-only';
}

export function buildReportModel(report: ContextReport): ReportModel {
  const mode = modeOf(report);
  const figures = reportFigures(report);
  const { estimatesOnly } = figures;
  const total = estimatesOnly ? figures.total.tokens : report.actual!.contextUsed;
  const labels = new Map([
    ...report.sources.map((s) => [s.id, s.label] as const),
    ...figures.rows.filter((r) => r.remainder).map((r) => [r.key, r.label] as const),
  ]);
  const labelOf = (id: string) =>
    id === UNATTRIBUTED ? 'In no source' : (labels.get(id) ?? (isRemainder(id) ? 'In no source' : sourceLabel(id)));
  const colorOf = (id: string) =>
    id === `${REMAINDER_PREFIX}hidden_reasoning` ? HIDDEN : isRemainder(id) ? NEUTRAL : sourceColor(id);
  const toRow = (row: FigureRow): Row => ({
    key: row.key,
    label: row.label,
    color: colorOf(row.key),
    tokens: row.tokens,
    percentOfUsed: row.percentOfUsed,
    shareText: fmtPct(row.percentOfUsed),
    runtimeTokens: row.runtimeTokens,
    source: row.source,
    ...(row.remainder ? { reason: row.remainder.reason } : {}),
  });
  const window = windowOf(report);
  return {
    report,
    mode,
    estimatesOnly,
    total,
    rows: figures.rows.map(toRow),
    empty: figures.empty.map(toRow),
    figures,
    window,
    boundaries: boundariesOf(report, mode),
    labelOf,
    colorOf,
  };
}

/** An item's share as the view prints it: the report's, or (estimates only) of the estimates' sum. */
export const itemShare = (model: ReportModel, item: Pick<ReportItem, 'percentOfUsed' | 'estimatedTokens'>): string =>
  fmtPct(itemPercent(item, model.figures));

function windowOf(report: ContextReport): WindowModel | null {
  const field = report.window;
  if (field && field.contextSize > 0) {
    return {
      contextSize: field.contextSize,
      reservedOutput: field.reservedOutput,
      autoCompactAt: field.autoCompactAt,
      assumed: field.basis !== 'workspace-config',
    };
  }
  // Servers before the window field: the same rule, from the agent's window size.
  const size = report.actual?.contextSize;
  if (!size) return null;
  // OpenCode compacts when a call's tokens pass limit.context − min(limit.output, 32,000). The
  // report does not carry the model's output limit; most models' is at least 32,000.
  // A window no larger than the cap belongs to a model with a smaller output limit: no guess then.
  if (size <= OUTPUT_RESERVE_CAP) return { contextSize: size, reservedOutput: 0, autoCompactAt: null, assumed: true };
  return {
    contextSize: size,
    reservedOutput: OUTPUT_RESERVE_CAP,
    autoCompactAt: size - OUTPUT_RESERVE_CAP,
    assumed: true,
  };
}

function boundariesOf(report: ContextReport, mode: ReportModel['mode']): string {
  const est = estimatorName(report);
  const unseen = `Not visible to the server: ${runtimeTitle(report)}’s system prompt and tool schemas`;
  if (mode === 'estimate-only')
    return `Nothing measured yet (no model call) · Estimated (${est}): every figure · ${unseen}, not counted`;
  if (mode === 'scaled') {
    const scale = report.estimate.scale === null ? '' : ` (by ${report.estimate.scale.toFixed(2)})`;
    return `Measured: the total only · Estimated (${est}), then multiplied${scale} to add up to the total: every source · ${unseen}, inside that share-out`;
  }
  const calls = report.calibration?.calls ?? 0;
  return `Measured: the total and ${calls} model calls’ prompts · Estimated (${est}): how each call’s growth splits among what it added · ${unseen}, measured as one block`;
}

// ---------------------------------------------------------------------------------------------
// Change since the previous report

export interface SourceChange {
  /** Token change of the source; null when the two reports' figures cannot be compared. */
  delta: number | null;
  added: ReportItem[];
  removed: ReportItem[];
  /** False when either report lists only the largest items of this source. */
  complete: boolean;
}

export interface ReportChange {
  previousAt: string;
  /** The total's change (agent-reported, or the estimates' sum when neither has one). */
  totalDelta: number | null;
  /** False when a report's figures were scaled in proportion: drift, not change. */
  comparable: boolean;
  bySource: Map<string, SourceChange>;
  added: number;
  removed: number;
}

/**
 * What changed since `previous`: items added and removed, matched by id, and token changes
 * where both reports' figures are measured (or both estimates) — never proportional drift.
 */
export function diffReports(now: ReportModel, previous: ReportModel): ReportChange {
  const comparable =
    now.mode !== 'scaled' && previous.mode !== 'scaled' && now.estimatesOnly === previous.estimatesOnly;
  const before = new Map(previous.rows.map((r) => [r.key, r]));
  const bySource = new Map<string, SourceChange>();
  let added = 0;
  let removed = 0;
  for (const row of now.rows) {
    const then = before.get(row.key);
    const nowItems = row.source?.items ?? [];
    const thenItems = then?.source?.items ?? [];
    const thenIds = new Set(thenItems.map((i) => i.id));
    const nowIds = new Set(nowItems.map((i) => i.id));
    const change: SourceChange = {
      delta: comparable ? row.tokens - (then?.tokens ?? 0) : null,
      added: nowItems.filter((i) => !thenIds.has(i.id)),
      removed: thenItems.filter((i) => !nowIds.has(i.id)),
      complete: (row.source?.more.itemCount ?? 0) === 0 && (then?.source?.more.itemCount ?? 0) === 0,
    };
    added += change.added.length;
    removed += change.removed.length;
    bySource.set(row.key, change);
  }
  for (const row of previous.rows) {
    if (bySource.has(row.key)) continue;
    const items = row.source?.items ?? [];
    removed += items.length;
    bySource.set(row.key, { delta: comparable ? -row.tokens : null, added: [], removed: items, complete: true });
  }
  return {
    previousAt: previous.report.generatedAt,
    totalDelta: comparable ? now.total - previous.total : null,
    comparable,
    bySource,
    added,
    removed,
  };
}

/** "+312", "−40", "±0". */
export function signed(value: number, format: (n: number) => string): string {
  if (value === 0) return '±0';
  return `${value > 0 ? '+' : '−'}${format(Math.abs(value))}`;
}

export const plural = (count: number, one: string, many = `${one}s`): string =>
  `${fmt(count)} ${count === 1 ? one : many}`;
