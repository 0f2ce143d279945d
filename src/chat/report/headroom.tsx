/** How much room is left: the usable budget, what remains before auto-compaction, and in calls. */
import { fmt } from '../../shared/format';
import { shareText, type ReportModel } from './report-model';
import { ASSUMED } from './window-bar';

export function HeadroomTiles({ model }: { model: ReportModel }) {
  const { headroom, window } = model;
  if (!headroom || !window) return null;
  const over = headroom.left <= 0;
  return (
    <dl className="headroom" aria-label="Headroom">
      <div className="tile">
        <dt>Usable budget</dt>
        <dd>
          <span className="figure">
            {window.assumed ? '≈' : ''}
            {fmt(headroom.usable)}
          </span>{' '}
          tokens
          <small title={window.assumed ? ASSUMED : undefined}>
            {fmt(window.contextSize)} window − {fmt(window.reservedOutput)} reserved for output
            {window.assumed ? ' (assumed)' : ''}
          </small>
        </dd>
      </div>
      <div className={`tile${over ? ' tile-warn' : ''}`}>
        <dt>Left before auto-compaction</dt>
        <dd>
          {over ? (
            <>
              <span className="figure">0</span> tokens
              <small>{fmt(-headroom.left)} over: OpenCode compacts after the next call</small>
            </>
          ) : (
            <>
              <span className="figure">{fmt(headroom.left)}</span> tokens
              <small>{shareText(headroom.left, headroom.usable)} of the usable budget</small>
            </>
          )}
        </dd>
      </div>
      <div className="tile">
        <dt>At the recent rate</dt>
        <dd>
          {headroom.growth && headroom.callsLeft !== null ? (
            <>
              <span className="figure">≈{fmt(headroom.callsLeft)}</span> model{' '}
              {headroom.callsLeft === 1 ? 'call' : 'calls'}
              <small>
                +{fmt(headroom.growth.perCall)} tokens per call over the last {headroom.growth.calls}{' '}
                {headroom.growth.calls === 1 ? 'call' : 'calls'}
              </small>
            </>
          ) : (
            <>
              <span className="figure">—</span>
              <small>{over ? 'no room left' : 'not enough recent calls to measure a rate'}</small>
            </>
          )}
        </dd>
      </div>
    </dl>
  );
}
