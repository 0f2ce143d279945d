/**
 * The report's sticky summary: its title, the total (of the window, and whose count it is), when
 * it was made, its actions, the as-of banner and the outdated and copy status.
 */
import type { Ref } from 'react';
import { fmt } from '../../shared/format';
import { runtimeTitle } from '../../shared/report-text';
import { totalSourceSentence, totalSourceShort } from '../../shared/total-source';
import type { ContextReport } from '../../shared/wire';
import { RelativeTime } from '../relative-time';
import { shareText, type ReportModel } from './report-model';

/** A call chosen on the timeline, and how loading the report as of it goes. */
export interface Choosing {
  call: number;
  of: number;
  state: 'loading' | 'ready' | 'error';
  message: string | null;
}

export interface ReportSummaryProps {
  model: ReportModel;
  report: ContextReport;
  idPrefix: string;
  /** What tells this report from others on the page (read by screen readers with the title). */
  which: string;
  heading: Ref<HTMLHeadingElement>;
  outdated: string | null;
  sessionTitle?: string | null | undefined;
  choosing: Choosing | null;
  copied: string | null;
  onRefresh: () => void;
  onOpenReader: () => void;
  onCopy: (what: 'JSON' | 'Markdown') => void;
  onChooseCall: (call: number | null) => void;
}

export function ReportSummary(props: ReportSummaryProps) {
  const { report, idPrefix, which, heading, outdated, sessionTitle, choosing, copied } = props;
  return (
    <header className={`report-summary${outdated ? ' is-outdated' : ''}`}>
      <div className="summary-main">
        <h2 id={`${idPrefix}-title`} ref={heading} tabIndex={-1}>
          Context breakdown
        </h2>
        <span id={`${idPrefix}-which`} className="visually-hidden">
          — {which}
        </span>
        <SummaryFigure model={props.model} report={report} />
        {/* In the sticky header, so nothing sticky ever covers it. */}
        <p className="report-made muted">
          Made <RelativeTime at={report.generatedAt} />
          <span className="report-runtime"> · {runtimeTitle(report)}</span>
          {sessionTitle ? <span className="wide-only"> · {sessionTitle}</span> : null}
        </p>
      </div>
      <SummaryActions {...props} />
      {choosing && <AsOfBanner choosing={choosing} onBack={() => props.onChooseCall(null)} />}
      <p role="status" className="summary-status">
        {outdated && <span className="outdated">Outdated: {outdated}. Refresh for the current context.</span>}
        {copied && <span className="copy-status">{copied}</span>}
      </p>
    </header>
  );
}

function SummaryFigure({ model, report }: { model: ReportModel; report: ContextReport }) {
  const win = model.window;
  return (
    <p className="summary-figure">
      {model.estimatesOnly ? (
        <strong>≈{fmt(model.total)} tokens · no usage reported yet — estimates only</strong>
      ) : (
        <>
          <strong>
            {fmt(model.total)} / {fmt(win?.contextSize ?? report.actual?.contextSize)} tokens
          </strong>
          {win && (
            <span className="muted">
              {' '}
              · {shareText(model.total, win.contextSize)}
              <span className="wide-only"> of the window</span>
            </span>
          )}
          {/* The agent's own total is the usual case: on a phone the fine print says so; a provider's count always shows. */}
          <span
            className={`muted total-source${report.actual?.source === 'acp' && !report.asOf ? ' wide-only' : ''}`}
            title={totalSourceSentence(report) ?? undefined}
          >
            {' '}
            · {totalSourceShort(report)}
          </span>
        </>
      )}
    </p>
  );
}

function SummaryActions({ outdated, onRefresh, onOpenReader, onCopy }: ReportSummaryProps) {
  return (
    <div className="summary-actions">
      <button type="button" className={outdated ? 'primary' : undefined} onClick={onRefresh}>
        Refresh
      </button>
      <button type="button" aria-haspopup="dialog" onClick={onOpenReader}>
        Open reader
      </button>
      <button type="button" aria-label="Copy JSON" onClick={() => onCopy('JSON')}>
        <span className="wide-only">Copy </span>JSON
      </button>
      <button type="button" aria-label="Copy Markdown" onClick={() => onCopy('Markdown')}>
        <span className="wide-only">Copy </span>Markdown
      </button>
    </div>
  );
}

function AsOfBanner({ choosing, onBack }: { choosing: Choosing; onBack: () => void }) {
  return (
    <p className="as-of-banner" role="status">
      {choosing.state === 'ready' ? (
        <strong>
          As of call {choosing.call} of {choosing.of} — read-only
        </strong>
      ) : choosing.state === 'loading' ? (
        <span>Loading the report as of call {choosing.call}…</span>
      ) : (
        <span>
          The report as of call {choosing.call} could not be loaded: {choosing.message}
        </span>
      )}{' '}
      <button type="button" className="link" onClick={onBack}>
        Back to the current context
      </button>
    </p>
  );
}
