/** What entered the context after the last model call: shown apart, not in the total yet. */
import { fmt } from '../../shared/format';
import type { ContextReport } from '../../shared/wire';
import type { ReportModel } from './report-model';
import { colorVar } from './source-style';

export function PendingLine({ model }: { model: ReportModel }) {
  const pending: ContextReport['pending'] = model.report.pending;
  if (!pending || pending.itemCount === 0 || model.estimatesOnly) return null;
  return (
    <details className="pending-line">
      <summary>
        <span className="pending-figure">+≈{fmt(pending.estimatedTokens)} tokens</span> added since the last model call
        ({pending.itemCount} {pending.itemCount === 1 ? 'item' : 'items'}) — not in the total until the next call
      </summary>
      <ul>
        {pending.items.map((item) => (
          <li key={item.id}>
            <span className="swatch" style={colorVar(model.colorOf(item.source))} aria-hidden="true" />
            {item.label}{' '}
            <span className="muted">
              · {model.labelOf(item.source)} · ≈{fmt(item.estimatedTokens)}
            </span>
          </li>
        ))}
      </ul>
    </details>
  );
}
