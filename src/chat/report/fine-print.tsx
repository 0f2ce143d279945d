/**
 * The caveats, last: how the numbers were made (what is measured and what estimated, the
 * estimator, the window's budget, calibration, provider counts), what is not in context, the
 * notes and any warnings — each a disclosure, closed by default. The methods are named here, and
 * only here.
 */
import { fmt, fmtPct } from '../../shared/format';
import { numbersInText, runtimeChangeText, runtimeFigures } from '../../shared/report-figures';
import { reportText, runtimeTitle } from '../../shared/report-text';
import { totalSourceSentence } from '../../shared/total-source';
import type { ContextReport } from '../../shared/wire';
import type { ReportModel } from './report-model';
import { ASSUMED } from './window-bar';

const CONVENTION: Record<string, string> = {
  'input-excludes-cache': 'input excludes the cached tokens (OpenCode’s own convention)',
  'input-includes-cache': 'input already includes the cached tokens (OpenAI style)',
};

export function FinePrint({ model }: { model: ReportModel }) {
  const { report } = model;
  return (
    <div className="fine-print">
      <details>
        <summary>How these numbers were made</summary>
        <p className="boundaries">{model.boundaries}</p>
        <Calibration model={model} />
      </details>
      {report.excluded.length > 0 && (
        <details>
          <summary>Not in context ({report.excluded.length})</summary>
          <ul>
            {reportText(report).excluded.map((e) => (
              <li key={e.label}>
                <strong>{e.label}</strong>
                {e.rest}
              </li>
            ))}
          </ul>
        </details>
      )}
      <details>
        <summary>About these numbers ({report.notes.length})</summary>
        <ul>
          {report.notes.map((note) => (
            <li key={note}>{numbersInText(note)}</li>
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

function Calibration({ model }: { model: ReportModel }) {
  const { report, window } = model;
  const c = report.calibration;
  const p = report.providerTokens;
  return (
    <dl className="facts">
      <ModeFact report={report} />
      <div>
        <dt>Estimator</dt>
        <dd>
          {report.estimate.method}
          {report.estimate.scale !== null &&
            ` · the agent’s total is ${report.estimate.scale.toFixed(2)} times these estimates`}
        </dd>
      </div>
      {window && <WindowFact model={model} />}
      {c && c.runtimeOverhead !== null && <RuntimeOverheadFact report={report} />}
      {c && (
        <div>
          <dt>In no source (unattributed)</dt>
          <dd>
            {c.unattributed.tokens === 0
              ? 'None: the sources add up to the total exactly.'
              : `${fmt(c.unattributed.tokens)} tokens in no source` +
                (c.unattributed.leftSinceCall > 0
                  ? ` — ${fmt(c.unattributed.leftSinceCall)} left the context after the last measured call${c.unattributed.leftReason ? ` (${c.unattributed.leftReason === 'both' ? 'pruned and compacted' : c.unattributed.leftReason})` : ''}`
                  : '') +
                (c.unattributed.unexplained !== 0
                  ? `; ${fmt(c.unattributed.unexplained)} between that call’s prompt and the total`
                  : '') +
                '.'}
          </dd>
        </div>
      )}
      {p && (
        <div>
          <dt>Provider counts</dt>
          <dd>
            Last call: input {fmt(p.input)}, cache read {fmt(p.cacheRead)}, cache write {fmt(p.cacheWrite)}, output{' '}
            {fmt(p.output)}
            {p.promptTokens != null && ` → prompt ${fmt(p.promptTokens)} tokens`}.
            {p.convention && ` Counted with ${CONVENTION[p.convention] ?? p.convention}.`}
            {p.cacheReadSharePercent !== null && ` Cache read: ${fmtPct(p.cacheReadSharePercent)} of the prompt.`}
          </dd>
        </div>
      )}
    </dl>
  );
}

/** How the figures were made: measured per call, scaled to the agent's total, or estimates only. */
function ModeFact({ report }: { report: ContextReport }) {
  const c = report.calibration;
  return (
    <div>
      <dt>Mode</dt>
      <dd>
        {!c || c.mode === 'scaled'
          ? report.actual
            ? 'Scaled: no per-call provider counts, so the estimates are scaled in proportion to the agent’s total.'
            : 'Estimates only: the agent has not reported a total yet.'
          : c.mode === 'measured'
            ? `Measured: ${fmt(c.calls)} model calls with provider counts; each call’s growth is shared by what it added.`
            : 'Estimates only: the agent has not reported a total yet.'}
        {c?.reference &&
          report.actual?.source !== 'provider' &&
          ` The total is call ${c.reference.call}’s prompt (${fmt(c.reference.promptTokens)} tokens)${c.reference.matchesUsage ? ', matching the agent’s total' : ', which differs from the agent’s total'}.`}
        {c?.totalIsCompaction && ' That call was a compaction: the history sent to be summarised.'}
        {report.actual?.source === 'provider' && !report.asOf && ` ${totalSourceSentence(report)}`}
      </dd>
    </div>
  );
}

/** The window, what is kept free in it, where compaction starts, and how the calls left are counted. */
function WindowFact({ model }: { model: ReportModel }) {
  const { report } = model;
  const window = model.window!;
  const basis = report.verdict?.headroom?.callsLeftBasis;
  const because = report.verdict?.headroom?.callsLeftBecause;
  return (
    <div>
      <dt>Window</dt>
      <dd>
        {fmt(window.contextSize)} tokens, {fmt(window.reservedOutput)} of them kept free for the reply
        {window.autoCompactAt !== null
          ? `: ${runtimeTitle(report)} compacts at ${window.assumed ? '≈' : ''}${fmt(window.autoCompactAt)}`
          : ''}
        .{window.assumed ? ` ${ASSUMED}` : ''}
        {basis
          ? ` The calls left are counted at the recent rate, +${fmt(basis.perCall)} tokens a call: the prompt's growth over calls ${fmt(basis.fromCall)}–${fmt(basis.toCall)}, a fall (compaction, pruning) left out.`
          : because
            ? ` Calls left not counted: ${because}.`
            : ''}
      </dd>
    </div>
  );
}

/** The runtime's own prompt and tools, and when it was re-measured. */
function RuntimeOverheadFact({ report }: { report: ContextReport }) {
  const c = report.calibration!;
  const callOf = (messageId: string) => report.timeline?.find((t) => t.messageId === messageId)?.call;
  const runtimeChanges = runtimeFigures(report)?.changes ?? [];
  return (
    <div>
      <dt>Runtime overhead</dt>
      <dd>
        {fmt(c.runtimeOverhead)} tokens: {runtimeTitle(report)}’s system prompt, environment and tool schemas, which the
        server cannot see — measured as the first call’s prompt minus everything visible in it.
        {runtimeChanges.length > 0 ? (
          <ul>
            {runtimeChanges.map((change) => (
              <li key={change.call}>{runtimeChangeText(change)}</li>
            ))}
          </ul>
        ) : (
          c.overheadChanges.length > 0 && (
            <ul>
              {c.overheadChanges.map((change) => (
                <li key={change.messageId}>
                  Re-measured at {callOf(change.messageId) ? `call ${callOf(change.messageId)}` : 'a later call'}:{' '}
                  {change.delta > 0 ? '+' : '−'}
                  {fmt(Math.abs(change.delta))} tokens (tools or instructions changed)
                </li>
              ))}
            </ul>
          )
        )}
      </dd>
    </div>
  );
}
