/**
 * The /debug report inside the chat. A sticky summary (the total, when it was made, outdated
 * state, actions) stays in view while the body scrolls. One screen answers "what fills my
 * context": the verdict (where the context went, what to do about it — why and the change
 * folded), the whole window as one bar with its legend, and one row per source in the bar's order
 * (expandable to its items, each revealable) down to the Total. Then what follows or folds: what
 * the Cost column means, what came after the last call, the room, cache and cost, how the context
 * grew call by call (a call chosen there shows the whole report as of it), suggestions, and the
 * fine print last. The reader opens as a drawer over it.
 */
import { useQuery } from '@tanstack/react-query';
import { useDeferredValue, useId, useMemo, useState } from 'react';
import { contextQueries } from '../../api/context-report';
import { fmt } from '../../shared/format';
import { costColumnNote } from '../../shared/report-figures';
import type { ContextReport } from '../../shared/wire';
import { RelativeTime } from '../relative-time';
import { FinePrint } from './fine-print';
import type { ContentTarget } from './item-content-panel';
import { PendingLine } from './pending-line';
import { useAsOfCall } from './as-of-history';
import { ReportNameContext } from './report-name';
import { ReaderDrawer } from './reader-drawer';
import { buildReportModel, diffReports, plural, signed, type ReportModel } from './report-model';
import { ReportSummary, type Choosing } from './report-summary';
import { SourceTable } from './source-table';
import { Suggestions } from './suggestions-list';
import { TimelineChart } from './timeline-chart';
import { useClaimFocus, useCopyReport, useOpenSources, useTimelinePin } from './use-report-body';
import { Verdict, VerdictFacts } from './verdict';
import { WindowBar } from './window-bar';

export interface ContextReportViewProps {
  report: ContextReport;
  /** The previous report of the same workspace and session on this page, if any. */
  previous: ContextReport | null;
  /** Why the report no longer describes the context (new messages, a newer call), or null. */
  outdated: string | null;
  /** Asked once on mount: true when the report should scroll into view and focus its heading. */
  claimFocus: () => boolean;
  onRefresh: () => void;
  onDraft: (text: string) => void;
  /** The session's title as the chat names it (its first message, cut). */
  sessionTitle?: string | null;
  /** A subagent's report: its parent session's title, as the chat names it. */
  parentTitle?: string | null;
  /** Another session's report (a subagent's, its parent's), as a new output. */
  onOpenSession?: (sessionId: string) => void;
  /** The report's own name in the browser's history (its transcript entry): the call it is shown as of. */
  historyKey: string;
  /** What tells this report from another on the page (an earlier report of the same session says when it was made). */
  regionName?: string | undefined;
}

/**
 * The report, or — once a call is chosen on the timeline — the whole report as of that call
 * (`?call=N`), read-only, in the same views; the timeline keeps every call to choose from.
 */
export function ContextReportView(props: ContextReportViewProps) {
  const current = props.report;
  // A step in the browser's history: Back returns to the current context, Forward to the call.
  const [call, setCall] = useAsOfCall(props.historyKey);
  const asOf = useQuery({
    ...contextQueries.asOf(current.workspaceId, current.sessionId, call ?? 0),
    enabled: call !== null,
  });
  const report = call !== null && asOf.data ? asOf.data : current;
  const calls = current.timeline?.at(-1)?.call ?? current.calibration?.calls ?? 0;
  const choosing =
    call === null
      ? null
      : {
          call,
          of: asOf.data?.asOf?.of ?? calls,
          state: asOf.isError ? ('error' as const) : asOf.data ? ('ready' as const) : ('loading' as const),
          message: asOf.error instanceof Error ? asOf.error.message : null,
        };
  // The timeline always shows every call of the current context, drawn from its report: choosing
  // a call changes the report above it, never the chart under the pointer.
  const currentModel = useMemo(() => buildReportModel(current), [current]);
  return (
    <ReportBody
      {...props}
      report={report}
      timelineModel={currentModel}
      timelinePoints={current.timeline ?? null}
      choosing={choosing}
      onChooseCall={setCall}
      previous={call === null ? props.previous : null}
    />
  );
}

function ReportBody(
  props: ContextReportViewProps & {
    timelineModel: ReportModel;
    timelinePoints: ContextReport['timeline'] | null;
    choosing: Choosing | null;
    onChooseCall: (call: number | null) => void;
  },
) {
  const { report, previous, onDraft, sessionTitle, choosing } = props;
  const idPrefix = useId().replaceAll(':', '');
  const model = useMemo(() => buildReportModel(report), [report]);
  const previousModel = useMemo(() => (previous ? buildReportModel(previous) : null), [previous]);
  const change = useMemo(() => (previousModel ? diffReports(model, previousModel) : null), [model, previousModel]);
  // The timeline (up to 200 calls) renders in a second, interruptible pass: the top of the report
  // appears first and no single task has to build both.
  const timeline = useDeferredValue(props.timelinePoints ?? null, null);
  const [reader, setReader] = useState<{ source: string | null } | null>(null);
  const { section, heading } = useClaimFocus(props.claimFocus);
  const sources = useOpenSources(report, model, idPrefix);
  const { copied, copy } = useCopyReport(report, model, sessionTitle);
  const { timelineBox, chooseCall } = useTimelinePin(choosing, props.onChooseCall);
  const target = contentTarget(report, choosing);
  const which = regionName(props);
  return (
    <ReportNameContext.Provider value={which}>
      <section
        className="context-report"
        aria-labelledby={`${idPrefix}-title ${idPrefix}-which`}
        ref={section}
        onKeyDown={sources.onKeyDown}
      >
        <ReportSummary
          {...props}
          model={model}
          idPrefix={idPrefix}
          which={which}
          heading={heading}
          copied={copied}
          onOpenReader={() => setReader({ source: null })}
          onCopy={(what) => void copy(what)}
        />
        <SubagentParent {...props} />
        <Verdict model={model} onShow={sources.showItem} onDraft={onDraft} />
        <WindowBar model={model} onFocus={sources.focusSource} />

        <h3 className="table-title">By source</h3>
        <SourceTable
          model={model}
          change={change}
          idPrefix={idPrefix}
          target={target}
          open={sources.open}
          onToggle={sources.toggle}
          revealed={sources.revealed}
          onReveal={sources.reveal}
          onCloseReveal={sources.closeReveal}
          onOpenReader={(source) => setReader({ source })}
          {...(props.onOpenSession ? { onOpenSession: props.onOpenSession } : {})}
        />
        <UnderTheTotal model={model} change={change} />

        {timeline && timeline.length > 0 && (
          <div ref={timelineBox}>
            <TimelineChart
              model={props.timelineModel}
              points={timeline}
              shownCall={choosing?.call ?? null}
              onShowCall={chooseCall}
            />
          </div>
        )}
        {report.suggestions.length > 0 && <Suggestions report={report} onShow={sources.showItem} onDraft={onDraft} />}
        <FinePrint model={model} />
        {reader && (
          <ReaderDrawer model={model} target={target} initialSource={reader.source} onClose={() => setReader(null)} />
        )}
      </section>
    </ReportNameContext.Provider>
  );
}

/** Where an item's text is read from: the report's snapshot, as of the chosen call. */
function contentTarget(report: ContextReport, choosing: Choosing | null): ContentTarget {
  return {
    workspaceId: report.workspaceId,
    sessionId: report.sessionId,
    snapshotId: report.snapshotId,
    ...(report.asOf && choosing ? { call: report.asOf.call } : {}),
  };
}

/** Its regions' names: this report's session (a subagent's says so) and the call it is as of. */
function regionName({
  report,
  regionName,
  sessionTitle,
  choosing,
}: Pick<ContextReportViewProps, 'report' | 'regionName' | 'sessionTitle'> & { choosing: Choosing | null }) {
  return [
    regionName ?? sessionTitle ?? (report.sessionId ? `session ${report.sessionId}` : 'no session'),
    report.parentSessionId ? 'a subagent’s session' : null,
    report.asOf && choosing ? `as of call ${report.asOf.call}` : null,
  ]
    .filter(Boolean)
    .join(', ');
}

/** A subagent's report names the session that made it, with the way to its report. */
function SubagentParent({
  report,
  parentTitle,
  onOpenSession,
  choosing,
}: Pick<ContextReportViewProps, 'report' | 'parentTitle' | 'onOpenSession'> & { choosing: Choosing | null }) {
  if (!report.parentSessionId) return null;
  return (
    <p className="report-meta subagent-parent">
      A subagent’s session, made by a task call of {parentTitle ? `“${parentTitle}”` : 'another session'}
      {report.asOf && !choosing ? `: it has no total of its own, so this is as of its last measured call` : ''}.{' '}
      {onOpenSession && (
        <button type="button" className="link" onClick={() => onOpenSession(report.parentSessionId!)}>
          Open the parent’s report
        </button>
      )}
    </p>
  );
}

/** Under the Total: what the Cost column means, what is not in the total yet, the room, cache and cost. */
function UnderTheTotal({ model, change }: { model: ReportModel; change: ReturnType<typeof diffReports> | null }) {
  const costNote = costColumnNote(model.report);
  return (
    <>
      {costNote && <p className="table-note muted">{costNote}</p>}
      <PendingLine model={model} />
      <VerdictFacts model={model} />
      <ReportFootnotes model={model} change={change} />
    </>
  );
}

function ReportFootnotes({ model, change }: { model: ReportModel; change: ReturnType<typeof diffReports> | null }) {
  const { duplicates } = model.report;
  return (
    <>
      {duplicates.extraReads > 0 && (
        <p className="footnote">
          <strong>Read more than once:</strong> {plural(duplicates.files, 'file')} —{' '}
          {plural(duplicates.extraReads, 'extra read')} repeat{duplicates.extraReads === 1 ? 's' : ''}{' '}
          {model.estimatesOnly || duplicates.repeatedScaledTokens === null
            ? `≈${fmt(duplicates.repeatedEstimatedTokens)}`
            : fmt(duplicates.repeatedScaledTokens)}{' '}
          tokens.
        </p>
      )}
      {change && (
        <p className="footnote change-summary">
          <strong>Since the previous /debug</strong> (<RelativeTime at={change.previousAt} />
          ):{' '}
          {change.totalDelta === null
            ? 'figures were scaled in proportion, so only items are compared'
            : `${signed(change.totalDelta, fmt)} tokens in total`}
          {' · '}
          {plural(change.added, 'item')} added, {plural(change.removed, 'item')} removed.
        </p>
      )}
    </>
  );
}
