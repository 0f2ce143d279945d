/**
 * How the context grew, call by call: each model call's prompt (provider counts), stacked by
 * source; compactions, pruning and skill loads marked; the three biggest jumps named below.
 * Plain SVG for the areas (scaled to the box), HTML for text so it stays crisp at any width.
 * The plot is one slider: arrows, Home/End and PageUp/PageDown move between calls, hovering does
 * the same, and the readout under it says what that step added; Enter, a click or the readout's
 * button shows the whole report as of that call. A table is the text alternative.
 */
import { useId, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { fmt } from '../../shared/format';
import { coverageText, timelineCoverage } from '../../shared/report-figures';
import type { TimelinePoint } from '../../shared/wire';
import { RelativeTime } from '../relative-time';
import { signed, type ReportModel } from './report-model';
import { colorVar, pctOf } from './source-style';
import { biggestJumps, compact, eventLabel, niceTicks, timelineSeries } from './timeline-model';
import { WrapPoints } from '../wrap-points';
import { useReportName } from './report-name';

const W = 1000;
const H = 300;

export function TimelineChart({
  model,
  points,
  shownCall = null,
  onShowCall,
}: {
  model: ReportModel;
  points: readonly TimelinePoint[];
  /** The call the report above is as of (null: the current context). */
  shownCall?: number | null;
  /** Shows the whole report as of a call (null: back to the current context). */
  onShowCall?: (call: number | null) => void;
}) {
  const id = useId();
  const name = useReportName();
  const [selected, setSelected] = useState(() => {
    const at = shownCall === null ? -1 : points.findIndex((p) => p.call === shownCall);
    return at >= 0 ? at : points.length - 1;
  });
  const [tableOpen, setTableOpen] = useState(false);
  // The call shown changes with the browser's history too (Back, Forward): the readout follows it
  // (adjusted while rendering, as React's docs do for state that follows a prop).
  const [followed, setFollowed] = useState(shownCall);
  if (followed !== shownCall) {
    setFollowed(shownCall);
    const at = shownCall === null ? points.length - 1 : points.findIndex((p) => p.call === shownCall);
    if (at >= 0) setSelected(at);
  }
  // Where the pointer last was: a move event with no move (the page scrolled or changed under a
  // still pointer) does not pick another call.
  const pointerAt = useRef<{ x: number; y: number } | null>(null);
  const geometry = useMemo(() => layout(points, model), [points, model]);
  const jumps = useMemo(() => biggestJumps(points), [points]);
  const index = Math.min(Math.max(0, selected), points.length - 1);
  const point = points[index]!;
  const delta = index === 0 ? null : point.promptTokens - points[index - 1]!.promptTokens;
  const coverage = timelineCoverage({ ...model.report, timeline: [...points] });
  const asOfIndex = shownCall === null ? -1 : points.findIndex((p) => p.call === shownCall);

  const last = points.length - 1;
  const clamp = (i: number) => Math.min(last, Math.max(0, i));
  // Functional updates: held-down keys send many events before a render.
  const onKeyDown = (event: KeyboardEvent) => {
    const step: Record<string, number> = {
      ArrowRight: 1,
      ArrowUp: 1,
      ArrowLeft: -1,
      ArrowDown: -1,
      PageUp: 10,
      PageDown: -10,
    };
    if (event.key in step) setSelected((i) => clamp(clamp(i) + step[event.key]!));
    else if (event.key === 'Home') setSelected(0);
    else if (event.key === 'End') setSelected(last);
    else if (event.key === 'Enter' && onShowCall) onShowCall(point.call);
    else return;
    event.preventDefault();
  };
  /** The index of the call under the pointer: the nearest point by x. */
  const nearest = (clientX: number, box: HTMLElement) => {
    const rect = box.getBoundingClientRect();
    const x = rect.width === 0 ? 0 : ((clientX - rect.left) / rect.width) * W;
    let best = 0;
    geometry.xs.forEach((px, i) => {
      if (Math.abs(px - x) < Math.abs(geometry.xs[best]! - x)) best = i;
    });
    return best;
  };
  const onPointer = (event: PointerEvent<HTMLDivElement>) => {
    const was = pointerAt.current;
    pointerAt.current = { x: event.clientX, y: event.clientY };
    if (event.type === 'pointermove' && was && was.x === event.clientX && was.y === event.clientY) return;
    setSelected(nearest(event.clientX, event.currentTarget));
  };

  const describe = (p: TimelinePoint, i: number) => {
    const change = i === 0 ? '' : `, ${signed(p.promptTokens - points[i - 1]!.promptTokens, fmt)}`;
    // Measured growth is exact; an estimate (growth the call did not explain) is marked ≈.
    const shrank = i > 0 && p.promptTokens < points[i - 1]!.promptTokens;
    const added = p.added.length
      ? `; ${shrank ? 'new in it' : 'added'} ${p.added.map((a) => `${a.label} ${a.measured === false ? '≈' : ''}${fmt(a.tokens)}`).join(', ')}`
      : '';
    const events = p.events.length ? `; ${p.events.map(eventLabel).join(', ')}` : '';
    return `Call ${p.call}: ${fmt(p.promptTokens)} tokens${change}${added}${events}`;
  };
  const eventsShown = [...new Set(points.flatMap((p) => p.events))];

  return (
    <section className="timeline" aria-label={`How the context grew${name}`}>
      <h3>How the context grew</h3>
      <p className="section-note" id={`${id}-note`}>
        The prompt of every model call as the provider counted it, by source
        {coverage ? ` (${coverageText(coverage)})` : ''}.{' '}
        <span className="pointer-only">
          Use the arrow keys or hover to see what each call added
          {onShowCall ? '; Enter or a click shows the whole report as of that call' : ''}.
        </span>
        <span className="touch-only">
          Tap or drag across the chart to see what each call added
          {onShowCall ? '; the button below shows the whole report as of it' : ''}.
        </span>
      </p>
      <div className="timeline-frame">
        <div className="timeline-axis" aria-hidden="true">
          <span className="axis-unit">tokens</span>
          {geometry.ticks.map((t) => (
            <span key={t} className="tick" style={{ bottom: pctOf(t, geometry.top) }}>
              {compact(t)}
            </span>
          ))}
        </div>
        <div
          className="timeline-plot"
          role="slider"
          tabIndex={0}
          aria-label="Model call"
          aria-describedby={`${id}-note`}
          aria-valuemin={1}
          aria-valuemax={points.length}
          aria-valuenow={index + 1}
          aria-valuetext={describe(point, index)}
          onKeyDown={onKeyDown}
          onPointerMove={onPointer}
          onPointerDown={onPointer}
          onClick={(event) => {
            // A mouse click chooses the call; a tap only moves the readout (its button chooses).
            const type = (event.nativeEvent as { pointerType?: string }).pointerType;
            if (!onShowCall || event.detail === 0 || type === 'touch' || type === 'pen') return;
            // Exactly the call under the pointer: the readout and the report agree on it.
            const at = nearest(event.clientX, event.currentTarget);
            setSelected(at);
            onShowCall(points[at]!.call);
          }}
        >
          {geometry.ticks.map((t) => (
            <span key={t} className="gridline" style={{ bottom: pctOf(t, geometry.top) }} />
          ))}
          <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
            {geometry.areas.map((area) => (
              <path key={area.key} d={area.d} className="area" style={colorVar(area.color)} />
            ))}
            <path d={geometry.outline} className="outline" vectorEffect="non-scaling-stroke" />
          </svg>
          {geometry.threshold !== null && (
            <span className="threshold" style={{ bottom: pctOf(geometry.threshold, geometry.top) }}>
              <span>auto-compaction {fmt(geometry.threshold)}</span>
            </span>
          )}
          {points.map((p, i) =>
            p.events.length ? (
              <span
                key={p.call}
                className={`event-mark${p.events.includes('compaction') ? ' event-compaction' : ''}${p.events.includes('pruning') ? ' event-pruning' : ''}`}
                style={{ left: pctOf(geometry.xs[i]!, W) }}
                title={`Call ${p.call}: ${p.events.map(eventLabel).join(', ')}`}
              >
                {p.events.map((e) => (
                  <span key={e} className={`glyph glyph-${e}`} />
                ))}
              </span>
            ) : null,
          )}
          {asOfIndex >= 0 && (
            <span className="as-of-mark" style={{ left: pctOf(geometry.xs[asOfIndex]!, W) }}>
              <span className="as-of-flag" style={{ transform: flagShift(geometry.xs[asOfIndex]! / W) }}>
                as of call {points[asOfIndex]!.call}
              </span>
            </span>
          )}
          <span className="cursor" style={{ left: pctOf(geometry.xs[index]!, W) }}>
            <span className="cursor-dot" style={{ bottom: pctOf(point.promptTokens, geometry.top) }} />
          </span>
        </div>
      </div>
      <div className="timeline-xaxis" aria-hidden="true">
        <span>call {points[0]!.call}</span>
        <span>call {points.at(-1)!.call}</span>
      </div>
      {eventsShown.length > 0 && (
        <ul className="timeline-keys" aria-label="Marks">
          {eventsShown.map((e) => (
            <li key={e}>
              <span className={`glyph glyph-${e}`} aria-hidden="true" /> {eventLabel(e)}
            </li>
          ))}
        </ul>
      )}
      <div className="timeline-readout">
        <p className="readout-head">
          <strong>Call {point.call}</strong>
          <span className="muted">
            {' '}
            · <RelativeTime at={point.at} />
          </span>{' '}
          · {fmt(point.promptTokens)} tokens
          {delta !== null && <span className="muted"> ({signed(delta, fmt)})</span>}
          {point.events.map((e) => (
            <span key={e} className="tag">
              {eventLabel(e)}
            </span>
          ))}
        </p>
        {onShowCall && (
          <p className="readout-action">
            {shownCall === point.call ? (
              <span className="muted">The report above is as of this call.</span>
            ) : (
              <button type="button" onClick={() => onShowCall(point.call)}>
                Show the report as of call {point.call}
              </button>
            )}
            {shownCall !== null && (
              <>
                {' '}
                <button type="button" className="link" onClick={() => onShowCall(null)}>
                  Back to the current context
                </button>
              </>
            )}
          </p>
        )}
        {delta !== null && delta < 0 && (
          <p className="muted small">
            The prompt shrank by {fmt(-delta)} tokens
            {point.events.length ? ` (${point.events.map(eventLabel).join(', ').toLowerCase()})` : ''}
            {point.added.length ? '; new in it:' : '.'}
          </p>
        )}
        {point.added.length > 0 ? (
          <ul
            className="added-list"
            aria-label={delta !== null && delta < 0 ? 'New in this prompt' : 'Added at this call'}
          >
            {point.added.map((a, i) => (
              <li key={`${a.label}-${i}`}>
                <span className="swatch" style={colorVar(model.colorOf(a.source))} aria-hidden="true" />
                <span className="added-label">
                  {delta !== null && delta < 0 ? '' : '+ '}
                  <WrapPoints text={a.label} />
                </span>
                <span className="num">{fmt(a.tokens)}</span>
              </li>
            ))}
          </ul>
        ) : (
          delta !== null && delta >= 0 && <p className="muted small">Nothing new measured at this call.</p>
        )}
      </div>
      {jumps.length > 0 && (
        <div className="jumps">
          <h4>Biggest jumps</h4>
          <ol>
            {jumps.map((j) => (
              <li key={j.point.call}>
                <button type="button" className="link" onClick={() => setSelected(j.index)}>
                  Call {j.point.call}: {signed(j.delta, fmt)} tokens
                </button>
                {j.point.added[0] && (
                  <span className="jump-what">
                    {' '}
                    — {j.point.added[0].label} ({fmt(j.point.added[0].tokens)})
                  </span>
                )}
              </li>
            ))}
          </ol>
        </div>
      )}
      <details className="timeline-table" onToggle={(e) => setTableOpen(e.currentTarget.open)}>
        <summary>Timeline as a table ({plural(points.length, 'call')})</summary>
        {tableOpen && (
          <div className="table-scroll">
            <table className="data-table">
              <caption className="visually-hidden">Prompt tokens of every model call</caption>
              <thead>
                <tr>
                  <th scope="col">Call</th>
                  <th scope="col">Tokens</th>
                  <th scope="col">Change</th>
                  <th scope="col">Largest item it added</th>
                </tr>
              </thead>
              <tbody>
                {points.map((p, i) => (
                  <tr key={p.call}>
                    <th scope="row">{p.call}</th>
                    <td className="num">{fmt(p.promptTokens)}</td>
                    <td className="num">{i === 0 ? '' : signed(p.promptTokens - points[i - 1]!.promptTokens, fmt)}</td>
                    <td className="text">
                      {p.added[0]
                        ? `${i > 0 && p.promptTokens < points[i - 1]!.promptTokens ? 'new in it: ' : ''}${p.added[0].label} (${fmt(p.added[0].tokens)})`
                        : ''}
                      {p.events.length ? ` [${p.events.map(eventLabel).join(', ')}]` : ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </details>
    </section>
  );
}

/** The as-of flag sits centred on its mark, or inside the plot near either edge. */
const flagShift = (at: number) =>
  at < 0.08 ? 'translateX(-2px)' : at > 0.92 ? 'translateX(calc(-100% + 2px))' : 'translateX(-50%)';

const plural = (n: number, one: string) => `${fmt(n)} ${n === 1 ? one : `${one}s`}`;

function layout(points: readonly TimelinePoint[], model: ReportModel) {
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
