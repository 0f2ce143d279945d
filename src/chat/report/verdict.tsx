/**
 * The report in a few lines, first: where the context went (the biggest source and item), what to
 * do about it (the first suggestion), how much room is left, the cache-read share and the cost —
 * every figure one the report carries elsewhere too (its `verdict`), printed as it is.
 */
import { fmt, fmtPct } from '../../shared/format';
import { agentCost, fmtCost, numbersInText } from '../../shared/report-figures';
import type { ReportModel } from './report-model';
import { colorVar } from './source-style';
import { agentSentence } from './suggestions-list';

export function Verdict({
  model,
  onShow,
  onDraft,
}: {
  model: ReportModel;
  onShow: (itemId: string) => void;
  onDraft: (text: string) => void;
}) {
  const { report, headroom } = model;
  const v = report.verdict;
  if (!v) return null;
  const listed = new Set(report.sources.flatMap((s) => s.items.map((i) => i.id)));
  const suggestion = v.action
    ? report.suggestions.find((s) => s.kind === v.action!.kind && s.title === v.action!.title)
    : undefined;
  const target = v.action?.itemIds.at(-1);
  // The session's cost when its calls are priced; the agent's own figure only without one.
  const sessionCost =
    report.cost && report.cost.total !== null
      ? { total: report.cost.total, currency: report.cost.currency, calls: report.cost.calls }
      : null;
  const reportedCost = agentCost(report);
  const rate =
    headroom?.growth && headroom.callsLeft !== null
      ? ` — about ${fmt(headroom.callsLeft)} more model ${headroom.callsLeft === 1 ? 'call' : 'calls'} at the recent +${fmt(headroom.growth.perCall)} per call`
      : '';
  return (
    <section className="verdict" aria-label="In short">
      {v.biggestSource && (
        <p className="verdict-main">
          <span className="swatch" style={colorVar(model.colorOf(v.biggestSource.id))} aria-hidden="true" />
          <strong>{v.biggestSource.label}</strong> holds <strong>{fmtPct(v.biggestSource.percentOfUsed)}</strong> of the
          context ({fmt(v.biggestSource.tokens)} tokens).
        </p>
      )}
      {v.biggestItem && (
        <p>
          Largest item: <span className="verdict-item">{v.biggestItem.label}</span> — {fmt(v.biggestItem.tokens)} tokens
          ({fmtPct(v.biggestItem.percentOfUsed)}).{' '}
          {listed.has(v.biggestItem.id) && (
            <button type="button" className="link" onClick={() => onShow(v.biggestItem!.id)}>
              Show the text
            </button>
          )}
        </p>
      )}
      {v.action && (
        <p className="verdict-action">
          <strong>What to do:</strong> {v.action.title}.{' '}
          {suggestion && <span className="muted verdict-detail">{numbersInText(suggestion.detail)} </span>}
          {suggestion?.kind === 'duplicate_read' && (
            <button type="button" className="link" onClick={() => onDraft(agentSentence(suggestion))}>
              Ask the agent to reuse it
            </button>
          )}
          {suggestion?.kind !== 'duplicate_read' && target && listed.has(target) && (
            <button type="button" className="link" onClick={() => onShow(target)}>
              Show the text
            </button>
          )}
        </p>
      )}
      <ul className="verdict-facts">
        {v.headroom && (
          <li>
            <span className="fact-name">Room</span>{' '}
            {v.headroom.left > 0
              ? `${fmt(v.headroom.left)} tokens before OpenCode compacts${rate}`
              : `none: OpenCode compacts after the next call`}
          </li>
        )}
        {v.cacheReadPercent !== null && (
          <li>
            <span className="fact-name">Cache</span> {fmtPct(v.cacheReadPercent)} of the last prompt read from cache
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
