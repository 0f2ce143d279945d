/**
 * The timeline of model calls as stacked series, in the report's one order (largest source at
 * the bottom), and the jumps worth naming. Pure: the chart draws what this computes.
 */
import { runtimeTitle } from '../../shared/report-text';
import type { TimelinePoint } from '../../shared/wire';
// One rule for the biggest jumps, in the web and the CLI.
export { biggestJumps, type Jump } from '../../shared/report-figures';
import { isRemainder, REMAINDER_PREFIX, UNATTRIBUTED, type ReportModel } from './report-model';

const RUNTIME = '_runtime';

export interface Series {
  key: string;
  label: string;
  color: string;
  /** Tokens per point, in point order. */
  values: number[];
}

export const EVENT_LABELS: Record<string, string> = {
  compaction: 'Compaction',
  pruning: 'Outputs pruned',
  skill: 'Skill loaded',
  overhead_change: 'Runtime changed',
  hidden_reasoning: 'Hidden reasoning',
  unexplained: 'Unexplained growth',
};

export const eventLabel = (event: string): string => EVENT_LABELS[event] ?? event.replaceAll('_', ' ');

/**
 * One series per source in the report's order; the runtime overhead counts with Agent/runtime
 * instructions (as in the table), and what no source explains is its own series.
 */
export function timelineSeries(points: readonly TimelinePoint[], model: ReportModel): Series[] {
  const keys = model.rows.map((r) => r.key).filter((k) => !isRemainder(k));
  for (const p of points) for (const k of Object.keys(p.bySource)) if (!keys.includes(k)) keys.push(k);
  const runtimeKey = keys.includes('agent_instructions') ? 'agent_instructions' : RUNTIME;
  if (runtimeKey === RUNTIME) keys.push(RUNTIME);
  const series = keys.map((key) => ({
    key,
    label: key === RUNTIME ? `${runtimeTitle(model.report)} runtime (measured)` : model.labelOf(key),
    color: model.colorOf(key),
    values: points.map((p) => (p.bySource[key] ?? 0) + (key === runtimeKey ? p.runtimeOverhead : 0)),
  }));
  const hiddenKey = `${REMAINDER_PREFIX}hidden_reasoning`;
  const hidden = points.map((p) => p.hiddenReasoning ?? 0);
  if (hidden.some((v) => v > 0))
    series.push({ key: hiddenKey, label: model.labelOf(hiddenKey), color: model.colorOf(hiddenKey), values: hidden });
  const residual = points.map((p, i) =>
    Math.max(0, p.promptTokens - series.reduce((n, s) => n + (s.values[i] ?? 0), 0)),
  );
  if (residual.some((v) => v > 0))
    series.push({ key: UNATTRIBUTED, label: 'In no source', color: model.colorOf(UNATTRIBUTED), values: residual });
  return series.filter((s) => s.values.some((v) => v > 0));
}

/** A round axis maximum and its ticks: the lowest top reached in at most five steps of 1, 2, 2.5 or 5 × 10^n. */
export function niceTicks(max: number): { top: number; ticks: number[] } {
  if (max <= 0) return { top: 1, ticks: [0, 1] };
  const magnitude = 10 ** Math.floor(Math.log10(max / 5));
  const step = [1, 2, 2.5, 5, 10, 20].map((m) => m * magnitude).find((s) => Math.ceil(max / s) <= 5)!;
  const top = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let i = 0; i * step <= top + step / 2; i++) ticks.push(i * step);
  return { top, ticks };
}

/** 12k, 1.5k, 800: axis labels. */
export function compact(tokens: number): string {
  if (tokens >= 1_000_000) return `${+(tokens / 1_000_000).toFixed(1)}M`;
  if (tokens >= 1000) return `${+(tokens / 1000).toFixed(1)}k`;
  return String(tokens);
}
