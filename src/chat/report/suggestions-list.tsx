/**
 * The report's suggestions in the report's order — by what acting on each frees from every later
 * call, largest first — each with what it frees, why, the change to make (copyable; a sentence
 * for the agent can be put in the composer, never sent from here; a change the live agent can
 * make has a button the user presses) and the text of the item it names.
 */
import { suggestionFrees } from '../../shared/advice-text';
import { numbersInText } from '../../shared/report-figures';
import { runtimeTitle } from '../../shared/report-text';
import type { ContextReport } from '../../shared/wire';
import { ChangeBlock } from './change-block';
import { LiveChange } from './live-change';
import { WrapPoints } from '../wrap-points';
import { useReportName } from './report-name';

export function Suggestions({
  report,
  onShow,
  onDraft,
}: {
  report: ContextReport;
  onShow: (itemId: string) => void;
  onDraft: (text: string) => void;
}) {
  const listed = new Set(report.sources.flatMap((s) => s.items.map((i) => i.id)));
  const name = useReportName();
  return (
    <section className="suggestions" aria-label={`Suggestions${name}`}>
      <h3>Suggestions</h3>
      <p className="muted suggestions-order">By what each frees from the next call, largest first.</p>
      <ol>
        {report.suggestions.map((s) => {
          const target = s.itemIds.at(-1);
          return (
            <li key={`${s.kind}-${s.title}`} className={`suggestion suggestion-${s.severity}`}>
              <span className="suggestion-title">
                <WrapPoints text={s.title} />
              </span>
              <span className="suggestion-frees">{suggestionFrees(report, s.frees, s)}</span>
              <span className="suggestion-detail">{numbersInText(s.detail)}</span>
              {s.change && <ChangeBlock change={s.change} runtime={runtimeTitle(report)} onDraft={onDraft} />}
              {s.change?.request && <LiveChange report={report} suggestion={s} />}
              {target && listed.has(target) && (
                <span className="suggestion-actions">
                  <button type="button" className="link" onClick={() => onShow(target)}>
                    Show the text
                  </button>
                </span>
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
