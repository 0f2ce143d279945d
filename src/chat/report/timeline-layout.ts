/** The timeline's geometry: where each call, stacked area, outline, tick and the threshold fall in the plot box. */
import type { TimelinePoint } from '../../shared/wire';
import type { ReportModel } from './report-model';
import { niceTicks, timelineSeries } from './timeline-model';

/** The plot box the SVG is drawn in (scaled to the element's size). */
export const W = 1000;
export const H = 300;

export type TimelineGeometry = ReturnType<typeof layout>;

export function layout(points: readonly TimelinePoint[], model: ReportModel) {
  const series = timelineSeries(points, model);
  const first = points[0]!.call;
  const span = Math.max(1, points.at(-1)!.call - first);
  const xs = points.map((p) => (points.length === 1 ? W / 2 : ((p.call - first) / span) * W));
  const highest = Math.max(...points.map((p) => p.promptTokens));
  const compactAt = model.window?.autoCompactAt ?? null;
  // Show the threshold when it is in sight; otherwise the growth would be a flat line at the bottom.
  const threshold = compactAt !== null && compactAt <= highest * 1.6 ? compactAt : null;
  const { top, ticks } = niceTicks(Math.max(highest, threshold ?? 0) * 1.04);
  const y = (tokens: number) => H - (tokens / top) * H;
  const below = points.map(() => 0);
  const areas = series.map((s) => {
    const lower = [...below];
    s.values.forEach((v, i) => (below[i] = below[i]! + v));
    const up = xs.map((x, i) => `${x.toFixed(1)},${y(below[i]!).toFixed(1)}`);
    const down = xs.map((x, i) => `${x.toFixed(1)},${y(lower[i]!).toFixed(1)}`).reverse();
    if (points.length === 1) {
      // One call: a full-width band.
      const [u, d] = [y(below[0]!).toFixed(1), y(lower[0]!).toFixed(1)];
      return { key: s.key, color: s.color, d: `M0,${u}L${W},${u}L${W},${d}L0,${d}Z` };
    }
    return { key: s.key, color: s.color, d: `M${up.join('L')}L${down.join('L')}Z` };
  });
  const outline =
    points.length === 1
      ? `M0,${y(points[0]!.promptTokens)}L${W},${y(points[0]!.promptTokens)}`
      : `M${xs.map((x, i) => `${x.toFixed(1)},${y(points[i]!.promptTokens).toFixed(1)}`).join('L')}`;
  return { xs, areas, outline, top, ticks, threshold };
}

/** The as-of flag sits centred on its mark, or inside the plot near either edge. */
export const flagShift = (at: number) =>
  at < 0.08 ? 'translateX(-2px)' : at > 0.92 ? 'translateX(calc(-100% + 2px))' : 'translateX(-50%)';
