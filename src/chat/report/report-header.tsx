/** The report's head: the agent-reported total with a meter, the estimator and scale, cache reads. */
import { fmt } from '../../shared/format';
import type { ContextReport } from '../../shared/wire';

export function ReportHeader({ report }: { report: ContextReport }) {
  const { actual, estimate, providerTokens } = report;
  const share = providerTokens?.cacheReadSharePercent ?? null;
  return (
    <header className="report-header">
      {actual ? (
        <div className="report-total">
          <strong>
            {fmt(actual.contextUsed)} / {fmt(actual.contextSize)} tokens
          </strong>
          {actual.percent !== null && (
            <>
              <span className="report-percent">{actual.percent.toFixed(1)}% of the context window</span>
              <meter
                min={0}
                max={100}
                value={Math.min(100, actual.percent)}
                low={60}
                high={80}
                optimum={0}
                aria-label="Context window used"
              >
                {actual.percent.toFixed(1)}%
              </meter>
            </>
          )}
        </div>
      ) : (
        <div className="report-total pending-total">
          <strong>No usage reported yet — estimates only</strong>
        </div>
      )}
      <p className="report-method">
        Estimated with {estimate.method}
        {estimate.scale !== null && <> · scaled ×{estimate.scale.toFixed(2)} to the agent-reported total</>}
        {share !== null && <> · cache read {share.toFixed(1)}% of prompt tokens</>}
        {' · '}session <code>{report.sessionId ?? '—'}</code>
      </p>
    </header>
  );
}
