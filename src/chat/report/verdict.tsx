/**
 * The report in a few lines, first: where the context went (the biggest source and item) and what
 * to do about it (the first suggestion: what it frees; why, and its change to copy, folded). Under
 * the sources, its facts: how much room is left and how many calls that is, the cache-read share
 * and what the cache saved, the cost — every figure one the report carries elsewhere too (its
 * `verdict`), printed as it is.
 */
import { suggestionFrees } from '../../shared/advice-text';
import { fmt, fmtPct } from '../../shared/format';
import { actionSuggestion, agentCost, fmtCost, roomParts } from '../../shared/report-figures';
import { runtimeTitle } from '../../shared/report-text';
import { ChangeBlock } from './change-block';
import { LiveChange } from './live-change';
import { useReportName } from './report-name';
import type { ReportModel } from './report-model';
import { colorVar } from './source-style';
import { WrapPoints } from '../wrap-points';

export function Verdict({
  model,
  onShow,
  onDraft,
}: {
  model: ReportModel;
  onShow: (itemId: string) => void;
  onDraft: (text: string) => void;
}) {
  const { report } = model;
  const name = useReportName();
  const v = report.verdict;
  if (!v) return null;
  const listed = new Set(report.sources.flatMap((s) => s.items.map((i) => i.id)));
  const suggestion = actionSuggestion(report);
  const target = v.action?.itemIds.at(-1);
  return (
    <section className="verdict" aria-label={`In short${name}`}>
      {v.biggestSource && (
        <p className="verdict-main">
          <span className="swatch" style={colorVar(model.colorOf(v.biggestSource.id))} aria-hidden="true" />
          <strong>{v.biggestSource.label}</strong> holds <strong>{fmtPct(v.biggestSource.percentOfUsed)}</strong> of the
          context ({fmt(v.biggestSource.tokens)} tokens).
        </p>
      )}
      {v.biggestItem && (
        <p>
          Largest item:{' '}
          <span className="verdict-item">
            <WrapPoints text={v.biggestItem.label} />
          </span>{' '}
          — {fmt(v.biggestItem.tokens)} tokens ({fmtPct(v.biggestItem.percentOfUsed)}).{' '}
          {listed.has(v.biggestItem.id) && (
            <button type="button" className="link" onClick={() => onShow(v.biggestItem!.id)}>
              Show the text
            </button>
          )}
        </p>
      )}
      {v.action && (
        <div className="verdict-action">
          <p>
            <strong>What to do:</strong> {v.action.title}.{' '}
            {suggestion && (
              <span className="verdict-frees">{suggestionFrees(report, suggestion.frees, suggestion)}.</span>
            )}{' '}
            {target && listed.has(target) && target !== v.biggestItem?.id && (
              <button type="button" className="link" onClick={() => onShow(target)}>
                Show the text
              </button>
            )}
          </p>
          {/* The change folds (its own Show the text): the verdict stays a few lines, so the
              sources fit under it on one screen; the why is in the suggestions' list. */}
          {suggestion?.change && (
            <ChangeBlock
              change={suggestion.change}
              runtime={runtimeTitle(report)}
              onDraft={onDraft}
              fold
              live={suggestion.change.request ? <LiveChange report={report} suggestion={suggestion} inline /> : null}
            />
          )}
        </div>
      )}
    </section>
  );
}

/**
 * The verdict's facts — the room left and the calls it is, the cache, the cost, hidden reasoning —
 * under the sources: the verdict and the table answer "what fills my context" on one screen.
 */
export function VerdictFacts({ model }: { model: ReportModel }) {
  const { report } = model;
  const name = useReportName();
  const v = report.verdict;
  if (!v) return null;
  // The session's cost when its calls are priced; the agent's own figure only without one.
  const sessionCost =
    report.cost && report.cost.total !== null
      ? { total: report.cost.total, currency: report.cost.currency, calls: report.cost.calls }
      : null;
  const reportedCost = agentCost(report);
  const saved = report.cost?.cacheSavings;
  const room = v.headroom ? roomParts(v.headroom) : null;
  if (!v.headroom && v.cacheReadPercent === null && !sessionCost && !reportedCost && !v.hiddenReasoning) return null;
  return (
    <section className="report-facts" aria-label={`Room, cache and cost${name}`}>
      <ul className="verdict-facts">
        {v.headroom && (
          <li>
            {/* The room sentence every view prints (roomParts); a phone leaves its basis out. */}
            {v.headroom.left > 0 && <span className="fact-name">Room </span>}
            {room!.text}
            {room!.basis && <span className="wide-only"> ({room!.basis})</span>}
          </li>
        )}
        {v.cacheReadPercent !== null && (
          <li>
            <span className="fact-name">Cache</span> {fmtPct(v.cacheReadPercent)} of the last prompt read from cache
            {saved && sessionCost ? `; it saved ${fmtCost(saved.amount, sessionCost.currency)} over the session` : ''}
          </li>
        )}
        {sessionCost ? (
          <li>
            <span className="fact-name">Cost</span> {fmtCost(sessionCost.total, sessionCost.currency)} over{' '}
            {fmt(sessionCost.calls)} model {sessionCost.calls === 1 ? 'call' : 'calls'}
          </li>
        ) : (
          reportedCost && (
            <li>
              <span className="fact-name">Cost</span> {fmtCost(reportedCost.amount, reportedCost.currency)} so far
            </li>
          )
        )}
        {v.hiddenReasoning !== undefined && v.hiddenReasoning > 0 && (
          <li>
            <span className="fact-name">Hidden reasoning</span> {fmt(v.hiddenReasoning)} tokens kept by the provider
          </li>
        )}
      </ul>
    </section>
  );
}
