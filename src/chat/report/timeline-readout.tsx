/** The readout under the timeline: what the selected call added, and the buttons to see the report as of it. */
import { fmt } from '../../shared/format';
import type { TimelinePoint } from '../../shared/wire';
import { RelativeTime } from '../relative-time';
import { WrapPoints } from '../wrap-points';
import { signed, type ReportModel } from './report-model';
import { colorVar } from './source-style';
import { eventLabel } from './timeline-model';

export function TimelineReadout({
  model,
  point,
  delta,
  shownCall,
  onShowCall,
}: {
  model: ReportModel;
  point: TimelinePoint;
  /** The change from the call before (null: the first call). */
  delta: number | null;
  shownCall: number | null;
  onShowCall?: (call: number | null) => void;
}) {
  const shrank = delta !== null && delta < 0;
  return (
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
      {onShowCall && <ReadoutAction point={point} shownCall={shownCall} onShowCall={onShowCall} />}
      {shrank && (
        <p className="muted small">
          The prompt shrank by {fmt(-delta)} tokens
          {point.events.length ? ` (${point.events.map(eventLabel).join(', ').toLowerCase()})` : ''}
          {point.added.length ? '; new in it:' : '.'}
        </p>
      )}
      {point.added.length > 0 ? (
        <ul className="added-list" aria-label={shrank ? 'New in this prompt' : 'Added at this call'}>
          {point.added.map((a, i) => (
            <li key={`${a.label}-${i}`}>
              <span className="swatch" style={colorVar(model.colorOf(a.source))} aria-hidden="true" />
              <span className="added-label">
                {shrank ? '' : '+ '}
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
  );
}

function ReadoutAction({
  point,
  shownCall,
  onShowCall,
}: {
  point: TimelinePoint;
  shownCall: number | null;
  onShowCall: (call: number | null) => void;
}) {
  return (
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
  );
}
