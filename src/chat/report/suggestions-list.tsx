/**
 * The report's suggestions, each leading to the text of the item it names; a duplicated read
 * also offers a ready sentence for the agent, put in the composer (never sent from here).
 */
import { numbersInText } from '../../shared/report-figures';
import type { ContextReport, Suggestion } from '../../shared/wire';

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
  return (
    <section className="suggestions" aria-labelledby={`suggestions-${report.snapshotId}-${report.generatedAt}`}>
      <h3 id={`suggestions-${report.snapshotId}-${report.generatedAt}`}>Suggestions</h3>
      <ul>
        {report.suggestions.map((s) => {
          const target = s.itemIds.at(-1);
          return (
            <li key={`${s.kind}-${s.title}`} className={`suggestion suggestion-${s.severity}`}>
              <span className="suggestion-title">{s.title}</span>
              <span className="suggestion-detail">{numbersInText(s.detail)}</span>
              <span className="suggestion-actions">
                {target && listed.has(target) && (
                  <button type="button" className="link" onClick={() => onShow(target)}>
                    Show the text
                  </button>
                )}
                {s.kind === 'duplicate_read' && (
                  <button type="button" className="link" onClick={() => onDraft(agentSentence(s))}>
                    Ask the agent to reuse it
                  </button>
                )}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** "evidence/x.txt is in context 2 times" → a sentence the user can send to the agent. */
export function agentSentence(s: Suggestion): string {
  const path = s.title.replace(/ is in context \d+ times$/, '');
  const repeated = s.figures.repeatedScaledTokens ?? s.figures.repeatedEstimatedTokens;
  const cost = repeated ? ` (each extra read costs about ${Math.round(repeated).toLocaleString('en-US')} tokens)` : '';
  return `${path} is already in your context${cost}. Please refer to the earlier read instead of reading it again, unless it has changed.`;
}
