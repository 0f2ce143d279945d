/** What is not in context, what the numbers mean, and what could not be read: each collapsible. */
import { fmt, fmtBytes } from '../../shared/format';
import type { ContextReport } from '../../shared/wire';

export function FinePrint({ report }: { report: ContextReport }) {
  return (
    <div className="fine-print">
      {report.excluded.length > 0 && (
        <details>
          <summary>Not in context ({report.excluded.length})</summary>
          <ul>
            {report.excluded.map((e) => (
              <li key={e.label}>
                <strong>{e.label}</strong> — {fmtBytes(e.bytes)}
                {e.count === undefined ? '' : `, ${fmt(e.count)}`}. {e.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      <details>
        <summary>About these numbers ({report.notes.length})</summary>
        <ul>
          {report.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      </details>
      {report.warnings.length > 0 && (
        <details className="warnings">
          <summary>Warnings ({report.warnings.length})</summary>
          <ul>
            {report.warnings.map((warning, i) => (
              <li key={i}>{warning}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
