/**
 * The whole context window in one bar: what is used, by source (largest first, one segment per
 * row of the table, remainder rows as their own segments, sources too small to see grouped as
 * "Other (n)", never one of 5 % of the used context or more), the free space, OpenCode's reserved output and the line
 * where it auto-compacts. The legend under it follows the bar's order; a click or tap on a
 * segment or a legend entry focuses that source in the table. The segments are for pointers; the
 * legend's buttons are the same actions for keyboards, touch and screen readers.
 */
import { fmt, fmtPct, percentOf } from '../../shared/format';
import type { ReportModel, Row } from './report-model';
import { colorVar, pctOf } from './source-style';

/** A source under this share of the bar is too thin to see or hit: it joins "Other". */
const MIN_SEGMENT = 0.01;
/** …unless it holds this share of the used context: a source that big is always named. */
const NAMED_SHARE = 0.05;
export const OTHER = '_other';

export interface Segment {
  key: string;
  label: string;
  color: string;
  tokens: number;
  /** What a click focuses: the row's key (for Other, its largest row's). */
  focus: string;
  kind: 'row' | 'remainder' | 'other';
  /** Its share as the report carries it (the row's; the runtime item's), for the legend. */
  share: string;
  /** The rows an Other segment stands for. */
  rows?: Row[];
  title: string;
}

/** The bar's segments, in its order (shared by the segments and the legend). */
export function barSegments(model: ReportModel): Segment[] {
  const whole = model.window?.contextSize ?? model.total;
  // Thin on the bar (a large window makes most sources thin), yet never a source the reader
  // should see by name: 5 % of the used context and more keep their own segment and legend entry.
  const tiny = (row: Row) =>
    whole > 0 && row.tokens / whole < MIN_SEGMENT && !(model.total > 0 && row.tokens / model.total >= NAMED_SHARE);
  const small = model.rows.filter(tiny);
  // One thin source alone is shown as itself; two or more become one segment.
  const grouped = small.length >= 2 ? new Set(small.map((r) => r.key)) : new Set<string>();
  const approx = model.estimatesOnly ? '≈' : '';
  const segments: Segment[] = [];
  for (const row of model.rows) {
    if (grouped.has(row.key)) continue;
    // One segment per row, as in the table: OpenCode's own prompt and tools are a part of their
    // source's row (the table's expanded row and the reader show the parts), never a segment apart.
    segments.push({
      share: row.shareText,
      key: row.key,
      label: row.label,
      color: row.color,
      tokens: row.tokens,
      focus: row.key,
      kind: row.source ? 'row' : 'remainder',
      title: `${row.label}: ${approx}${fmt(row.tokens)} tokens (${row.shareText})`,
    });
  }
  if (grouped.size) {
    const rows = model.rows.filter((r) => grouped.has(r.key));
    const tokens = rows.reduce((n, r) => n + r.tokens, 0);
    segments.push({
      share: fmtPct(percentOf(tokens, model.total)),
      key: OTHER,
      label: `Other (${rows.length})`,
      color: 'var(--other)',
      tokens,
      focus: rows[0]!.key,
      kind: 'other',
      rows,
      title: `Other: ${rows.map((r) => `${r.label} ${approx}${fmt(r.tokens)}`).join(', ')}`,
    });
  }
  return segments;
}

export function WindowBar({ model, onFocus }: { model: ReportModel; onFocus: (key: string) => void }) {
  const { window, total, estimatesOnly } = model;
  const segments = barSegments(model);
  // Without a window size (no usage yet) the bar is the estimates' shares.
  const whole = window?.contextSize ?? total;
  const compactAt = window?.autoCompactAt ?? null;
  const approx = estimatesOnly ? '≈' : '';
  // Only a session an agent runs here will ever report usage; an import's total is its calls' own.
  const live = model.report.actual?.source !== 'provider' && !model.report.origin;
  const description = [
    window
      ? `${fmt(total)} of ${fmt(window.contextSize)} tokens used`
      : `≈${fmt(total)} estimated tokens, ${live ? 'no window size reported yet' : 'no window size known for its model'}`,
    ...segments.map((s) => `${s.label} ${approx}${fmt(s.tokens)}`),
    ...(window && compactAt !== null
      ? [`free ${fmt(Math.max(0, compactAt - total))} before auto-compaction at ${fmt(compactAt)}`]
      : []),
    ...(window && window.reservedOutput > 0 ? [`${fmt(window.reservedOutput)} reserved for output`] : []),
  ].join('; ');
  return (
    <figure className="window-figure">
      <div className="window-bar" role="img" aria-label={`Context window: ${description}`}>
        <div className="window-track">
          {segments.map((segment) => (
            <span
              key={segment.key}
              className={`segment segment-${segment.kind}`}
              style={colorVar(segment.color, { width: pctOf(segment.tokens, whole) })}
              title={segment.title}
              data-focus={segment.focus}
              onClick={() => onFocus(segment.focus)}
            />
          ))}
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
      <ul className="bar-legend" aria-label="Legend, in the bar’s order">
        {segments.map((segment) => (
          <li key={segment.key}>
            <button type="button" className="legend-entry" title={segment.title} onClick={() => onFocus(segment.focus)}>
              <span className={`swatch swatch-${segment.kind}`} style={colorVar(segment.color)} aria-hidden="true" />
              {segment.label} <span className="legend-share">{segment.share}</span>
              {segment.kind === 'other' && (
                <span className="visually-hidden">: {segment.rows!.map((r) => r.label).join(', ')}</span>
              )}
            </button>
          </li>
        ))}
      </ul>
      <WindowScale model={model} live={live} />
    </figure>
  );
}

/** Under the bar: used, free, where compaction starts, what is kept for the reply, the window. */
function WindowScale({ model, live }: { model: ReportModel; live: boolean }) {
  const { window, total } = model;
  const compactAt = window?.autoCompactAt ?? null;
  return (
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
              <span className="key key-marker" aria-hidden="true" /> compacts at {window.assumed ? '≈' : ''}
              {fmt(compactAt)}
            </span>
          )}
          {window.reservedOutput > 0 && (
            <span>
              <span className="key key-reserved" aria-hidden="true" /> {fmt(window.reservedOutput)} kept for the reply
            </span>
          )}
          <span className="window-size">window {fmt(window.contextSize)}</span>
        </>
      ) : (
        <span>
          Shares of ≈{fmt(total)} estimated tokens —{' '}
          {live ? 'no window size until the agent reports usage' : 'no window size: no catalog knows this model'}
        </span>
      )}
    </figcaption>
  );
}

export const ASSUMED =
  "OpenCode compacts when a call passes the context limit minus the model's output limit (at most 32,000). " +
  'The report does not carry the output limit, so 32,000 is assumed.';
