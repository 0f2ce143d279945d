/** The timeline's text alternative: every call in a table, rendered only once opened. */
import { useState } from 'react';
import { fmt } from '../../shared/format';
import type { TimelinePoint } from '../../shared/wire';
import { signed } from './report-model';
import { eventLabel } from './timeline-model';

export function TimelineTable({ points }: { points: readonly TimelinePoint[] }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="timeline-table" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Timeline as a table ({plural(points.length, 'call')})</summary>
      {open && (
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
  );
}

const plural = (n: number, one: string) => `${fmt(n)} ${n === 1 ? one : `${one}s`}`;
