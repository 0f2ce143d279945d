/**
 * The timeline's plot, one slider: arrows, Home/End and PageUp/PageDown move between calls,
 * hovering does the same; Enter or a mouse click shows the whole report as of that call.
 * Plain SVG for the areas (scaled to the box), HTML for text so it stays crisp at any width.
 */
import {
  useRef,
  type Dispatch,
  type KeyboardEvent,
  type MouseEvent,
  type PointerEvent,
  type SetStateAction,
} from 'react';
import { fmt } from '../../shared/format';
import type { TimelinePoint } from '../../shared/wire';
import { signed } from './report-model';
import { colorVar, pctOf } from './source-style';
import { flagShift, H, W, type TimelineGeometry } from './timeline-layout';
import { compact, eventLabel } from './timeline-model';

type PlotProps = {
  /** The id of the note that describes the slider. */
  noteId: string;
  points: readonly TimelinePoint[];
  geometry: TimelineGeometry;
  /** The selected call's index. */
  index: number;
  setSelected: Dispatch<SetStateAction<number>>;
  shownCall: number | null;
  onShowCall?: (call: number | null) => void;
};

export function TimelinePlot(props: PlotProps) {
  const { noteId, points, geometry, index } = props;
  const handlers = useSliderHandlers(props);
  return (
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
        aria-describedby={noteId}
        aria-valuemin={1}
        aria-valuemax={points.length}
        aria-valuenow={index + 1}
        aria-valuetext={describe(points, index)}
        {...handlers}
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
        <PlotMarks {...props} />
      </div>
    </div>
  );
}

/** Over the areas: the threshold, the event marks, the as-of flag and the cursor. */
function PlotMarks({ points, geometry, index, shownCall }: PlotProps) {
  const point = points[index]!;
  const asOfIndex = shownCall === null ? -1 : points.findIndex((p) => p.call === shownCall);
  return (
    <>
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
    </>
  );
}

/** The slider's keys, pointer and click. */
function useSliderHandlers({ points, geometry, index, setSelected, onShowCall }: PlotProps) {
  // Where the pointer last was: a move event with no move (the page scrolled or changed under a
  // still pointer) does not pick another call.
  const pointerAt = useRef<{ x: number; y: number } | null>(null);
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
    else if (event.key === 'Enter' && onShowCall) onShowCall(points[index]!.call);
    else return;
    event.preventDefault();
  };
  const onPointer = (event: PointerEvent<HTMLDivElement>) => {
    const was = pointerAt.current;
    pointerAt.current = { x: event.clientX, y: event.clientY };
    if (event.type === 'pointermove' && was && was.x === event.clientX && was.y === event.clientY) return;
    setSelected(nearest(geometry, event.clientX, event.currentTarget));
  };
  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    // A mouse click chooses the call; a tap only moves the readout (its button chooses).
    const type = (event.nativeEvent as { pointerType?: string }).pointerType;
    if (!onShowCall || event.detail === 0 || type === 'touch' || type === 'pen') return;
    // Exactly the call under the pointer: the readout and the report agree on it.
    const at = nearest(geometry, event.clientX, event.currentTarget);
    setSelected(at);
    onShowCall(points[at]!.call);
  };
  return { onKeyDown, onPointerMove: onPointer, onPointerDown: onPointer, onClick };
}

/** The index of the call under the pointer: the nearest point by x. */
function nearest(geometry: TimelineGeometry, clientX: number, box: HTMLElement) {
  const rect = box.getBoundingClientRect();
  const x = rect.width === 0 ? 0 : ((clientX - rect.left) / rect.width) * W;
  let best = 0;
  geometry.xs.forEach((px, i) => {
    if (Math.abs(px - x) < Math.abs(geometry.xs[best]! - x)) best = i;
  });
  return best;
}

/** The slider's value as text: the call, its tokens, its change, what it added and its events. */
function describe(points: readonly TimelinePoint[], i: number) {
  const p = points[i]!;
  const change = i === 0 ? '' : `, ${signed(p.promptTokens - points[i - 1]!.promptTokens, fmt)}`;
  // Measured growth is exact; an estimate (growth the call did not explain) is marked ≈.
  const shrank = i > 0 && p.promptTokens < points[i - 1]!.promptTokens;
  const added = p.added.length
    ? `; ${shrank ? 'new in it' : 'added'} ${p.added.map((a) => `${a.label} ${a.measured === false ? '≈' : ''}${fmt(a.tokens)}`).join(', ')}`
    : '';
  const events = p.events.length ? `; ${p.events.map(eventLabel).join(', ')}` : '';
  return `Call ${p.call}: ${fmt(p.promptTokens)} tokens${change}${added}${events}`;
}
