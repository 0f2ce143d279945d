/** A stacked bar of the sources' shares (scaled when the total is known), with a legend. */
import type { ContextReport, ReportSource } from '../../shared/wire';

export function ShareBar({ report }: { report: ContextReport }) {
  const useScaled = report.actual !== null;
  const value = (s: ReportSource) => (useScaled ? (s.scaledTokens ?? 0) : s.estimatedTokens);
  const total = report.sources.reduce((n, s) => n + value(s), 0);
  const share = (s: ReportSource) => (total > 0 ? (value(s) / total) * 100 : 0);
  const shown = report.sources.filter((s) => value(s) > 0).sort((a, b) => value(b) - value(a));
  return (
    <figure className="share-bar-figure">
      <div
        className="share-bar"
        role="img"
        aria-label={`Share of ${useScaled ? 'used context' : 'estimated tokens'} by source: ${shown.map((s) => `${s.label} ${share(s).toFixed(1)}%`).join(', ')}`}
      >
        {shown.map((s) => (
          <span
            key={s.id}
            className={`share-segment src-${s.id}`}
            style={{ flexGrow: value(s) }}
            title={`${s.label}: ${share(s).toFixed(1)}%`}
          />
        ))}
      </div>
      <figcaption>
        <ul className="legend">
          {report.sources.map((s) => (
            <li key={s.id} className={value(s) === 0 ? 'empty' : undefined}>
              <span className={`swatch src-${s.id}`} aria-hidden="true" />
              {s.label} <span className="legend-value">{share(s).toFixed(1)}%</span>
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
