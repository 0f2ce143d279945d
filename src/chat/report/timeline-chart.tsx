/**
 * How the context grew, call by call: each model call's prompt (provider counts), stacked by
 * source; compactions, pruning and skill loads marked; the three biggest jumps named below.
 * Plain SVG for the areas (scaled to the box), HTML for text so it stays crisp at any width.
 * The plot is one slider: arrows, Home/End and PageUp/PageDown move between calls, hovering does
 * the same, and the readout under it says what that step added; Enter, a click or the readout's
 * button shows the whole report as of that call. A table is the text alternative.
 */
import { useId, useMemo, useState } from 'react';
import { fmt } from '../../shared/format';
import { coverageText, timelineCoverage } from '../../shared/report-figures';
import type { TimelinePoint } from '../../shared/wire';
import { signed, type ReportModel } from './report-model';
import { biggestJumps, eventLabel } from './timeline-model';
import { useReportName } from './report-name';
import { layout } from './timeline-layout';
import { TimelinePlot } from './timeline-plot';
import { TimelineReadout } from './timeline-readout';
import { TimelineTable } from './timeline-table';

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
  const [selected, setSelected] = useSelectedCall(points, shownCall);
  const geometry = useMemo(() => layout(points, model), [points, model]);
  const index = Math.min(Math.max(0, selected), points.length - 1);
  const point = points[index]!;
  const delta = index === 0 ? null : point.promptTokens - points[index - 1]!.promptTokens;
  const coverage = timelineCoverage({ ...model.report, timeline: [...points] });
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
      <TimelinePlot
        noteId={`${id}-note`}
        points={points}
        geometry={geometry}
        index={index}
        setSelected={setSelected}
        shownCall={shownCall}
        onShowCall={onShowCall}
      />
      <div className="timeline-xaxis" aria-hidden="true">
        <span>call {points[0]!.call}</span>
        <span>call {points.at(-1)!.call}</span>
      </div>
      <EventKeys points={points} />
      <TimelineReadout model={model} point={point} delta={delta} shownCall={shownCall} onShowCall={onShowCall} />
      <BiggestJumps points={points} onPick={setSelected} />
      <TimelineTable points={points} />
    </section>
  );
}

/**
 * The selected call's index: the call the report is as of, else the last. The call shown changes
 * with the browser's history too (Back, Forward): the selection follows it (adjusted while
 * rendering, as React's docs do for state that follows a prop).
 */
function useSelectedCall(points: readonly TimelinePoint[], shownCall: number | null) {
  const [selected, setSelected] = useState(() => {
    const at = shownCall === null ? -1 : points.findIndex((p) => p.call === shownCall);
    return at >= 0 ? at : points.length - 1;
  });
  const [followed, setFollowed] = useState(shownCall);
  if (followed !== shownCall) {
    setFollowed(shownCall);
    const at = shownCall === null ? points.length - 1 : points.findIndex((p) => p.call === shownCall);
    if (at >= 0) setSelected(at);
  }
  return [selected, setSelected] as const;
}

/** The key to the marks on the plot, for the kinds of event the timeline has. */
function EventKeys({ points }: { points: readonly TimelinePoint[] }) {
  const eventsShown = [...new Set(points.flatMap((p) => p.events))];
  if (eventsShown.length === 0) return null;
  return (
    <ul className="timeline-keys" aria-label="Marks">
      {eventsShown.map((e) => (
        <li key={e}>
          <span className={`glyph glyph-${e}`} aria-hidden="true" /> {eventLabel(e)}
        </li>
      ))}
    </ul>
  );
}

/** The three biggest jumps, each a button that selects its call. */
function BiggestJumps({ points, onPick }: { points: readonly TimelinePoint[]; onPick: (index: number) => void }) {
  const jumps = useMemo(() => biggestJumps(points), [points]);
  if (jumps.length === 0) return null;
  return (
    <div className="jumps">
      <h4>Biggest jumps</h4>
      <ol>
        {jumps.map((j) => (
          <li key={j.point.call}>
            <button type="button" className="link" onClick={() => onPick(j.index)}>
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
  );
}
