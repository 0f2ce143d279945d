/**
 * The whole context window in one bar: what is used, by source (largest first, the measured
 * runtime overhead hatched inside its source, the unattributed remainder as its own segment),
 * the free space, OpenCode's reserved output and the line where it auto-compacts. Under it, one
 * line says what is measured, what is estimated and what the server cannot see.
 */
import { fmt } from '../../shared/format';
import type { ReportModel, Row } from './report-model';
import { colorVar, pctOf } from './source-style';

function segmentTitle(row: Row, model: ReportModel): string {
  const unit = model.estimatesOnly ? 'estimated tokens' : 'tokens';
  const runtime = row.runtimeTokens > 0 ? `, of which ${fmt(row.runtimeTokens)} OpenCode runtime (measured)` : '';
  return `${row.label}: ${model.estimatesOnly ? '≈' : ''}${fmt(row.tokens)} ${unit} (${row.shareText})${runtime}`;
}

export function WindowBar({ model }: { model: ReportModel }) {
  const { window, rows, total, estimatesOnly } = model;
  const used = rows.filter((r) => r.tokens > 0);
  // Without a window size (no usage yet) the bar is the estimates' shares.
  const whole = window?.contextSize ?? total;
  const compactAt = window?.autoCompactAt ?? null;
  const description = [
    window
      ? `${fmt(total)} of ${fmt(window.contextSize)} tokens used`
      : `≈${fmt(total)} estimated tokens, no window size reported yet`,
    ...used.map((r) => `${r.label} ${estimatesOnly ? '≈' : ''}${fmt(r.tokens)}`),
    ...(window && compactAt !== null
      ? [`free ${fmt(Math.max(0, compactAt - total))} before auto-compaction at ${fmt(compactAt)}`]
      : []),
    ...(window && window.reservedOutput > 0 ? [`${fmt(window.reservedOutput)} reserved for output`] : []),
  ].join('; ');
  return (
    <figure className="window-figure">
      <div className="window-bar" role="img" aria-label={`Context window: ${description}`}>
        <div className="window-track">
          {used.map((row) =>
            row.runtimeTokens > 0 ? (
              <span key={row.key} className="segment-group" style={{ width: pctOf(row.tokens, whole) }}>
                <span
                  className="segment segment-runtime"
                  style={colorVar(row.color, { width: pctOf(row.runtimeTokens, row.tokens) })}
                  title={`OpenCode system prompt and tool schemas (measured): ${fmt(row.runtimeTokens)} tokens`}
                />
                <span
                  className="segment"
                  style={colorVar(row.color, { width: pctOf(row.tokens - row.runtimeTokens, row.tokens) })}
                  title={segmentTitle(row, model)}
                />
              </span>
            ) : (
              <span
                key={row.key}
                className={`segment${row.source ? '' : ' segment-unattributed'}`}
                style={colorVar(row.color, { width: pctOf(row.tokens, whole) })}
                title={segmentTitle(row, model)}
              />
            ),
          )}
          {window && window.reservedOutput > 0 && compactAt !== null && (
            <span
              className="window-reserved"
              style={{ left: pctOf(compactAt, whole), width: pctOf(window.reservedOutput, whole) }}
              title={`Reserved for the model's output: ${fmt(window.reservedOutput)} tokens`}
            />
          )}
        </div>
        {compactAt !== null && <span className="window-marker" style={{ left: pctOf(compactAt, whole) }} />}
      </div>
      <figcaption className="window-scale">
        {window ? (
          <>
            <span className="window-used-figure">used {fmt(total)}</span>
            <span>
              <span className="key key-free" aria-hidden="true" /> free
              {compactAt !== null ? ` ${fmt(Math.max(0, compactAt - total))}` : ''}
            </span>
            {compactAt !== null && (
              <span title={window.assumed ? ASSUMED : undefined}>
                <span className="key key-marker" aria-hidden="true" /> auto-compacts at {window.assumed ? '≈' : ''}
                {fmt(compactAt)}
              </span>
            )}
            {window.reservedOutput > 0 && (
              <span>
                <span className="key key-reserved" aria-hidden="true" /> {fmt(window.reservedOutput)} reserved for
                output
              </span>
            )}
            <span className="window-size">window {fmt(window.contextSize)}</span>
          </>
        ) : (
          <span>Shares of ≈{fmt(total)} estimated tokens — no window size until the agent reports usage</span>
        )}
      </figcaption>
      <p className="boundaries">{model.boundaries}</p>
    </figure>
  );
}

export const ASSUMED =
  "OpenCode compacts when a call passes the context limit minus the model's output limit (at most 32,000). " +
  'The report does not carry the output limit, so 32,000 is assumed.';
