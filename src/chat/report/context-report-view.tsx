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
import { useDeferredValue, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { contextQueries } from '../../api/context-report';
import { flushSync } from 'react-dom';
import { fmt } from '../../shared/format';
import { costColumnNote } from '../../shared/report-figures';
import { totalSourceSentence, totalSourceShort } from '../../shared/total-source';
import type { ContextReport, ReportItem } from '../../shared/wire';
import { RelativeTime } from '../relative-time';
import { FinePrint } from './fine-print';
import type { ContentTarget } from './item-content-panel';
import { revealButtonId, type Revealed } from './items-table';
import { PendingLine } from './pending-line';
import { useAsOfCall } from './as-of-history';
import { ReportNameContext } from './report-name';
import { ReaderDrawer } from './reader-drawer';
import { reportToMarkdown } from './report-markdown';
import { buildReportModel, diffReports, plural, shareText, signed, type ReportModel } from './report-model';
import { SourceTable, toggleId } from './source-table';
import { Suggestions } from './suggestions-list';
import { TimelineChart } from './timeline-chart';
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

interface Choosing {
  call: number;
  of: number;
  state: 'loading' | 'ready' | 'error';
  message: string | null;
}

function ReportBody(
  props: ContextReportViewProps & {
    timelineModel: ReportModel;
    timelinePoints: ContextReport['timeline'] | null;
    choosing: Choosing | null;
    onChooseCall: (call: number | null) => void;
  },
) {
  const { report, previous, outdated, claimFocus, onRefresh, onDraft, sessionTitle, choosing } = props;
  const idPrefix = useId().replaceAll(':', '');
  const model = useMemo(() => buildReportModel(report), [report]);
  const previousModel = useMemo(() => (previous ? buildReportModel(previous) : null), [previous]);
  const change = useMemo(() => (previousModel ? diffReports(model, previousModel) : null), [model, previousModel]);
  // The timeline (up to 200 calls) renders in a second, interruptible pass: the top of the report
  // appears first and no single task has to build both.
  const timeline = useDeferredValue(props.timelinePoints ?? null, null);
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [reader, setReader] = useState<{ source: string | null } | null>(null);
  const [copied, setCopied] = useState<string | null>(null);

  const section = useRef<HTMLElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const target: ContentTarget = {
    workspaceId: report.workspaceId,
    sessionId: report.sessionId,
    snapshotId: report.snapshotId,
    ...(report.asOf && choosing ? { call: report.asOf.call } : {}),
  };

  const claim = useRef(claimFocus);
  useEffect(() => {
    if (!claim.current()) return;
    const frame = section.current?.closest('article') ?? section.current;
    frame?.scrollIntoView?.({ block: 'start' });
    heading.current?.focus({ preventScroll: true });
  }, []);

  /** From the bar, its legend or the verdict to a source: its row expanded, then focused. */
  const focusSource = (key: string) => {
    const row = model.rows.find((r) => r.key === key);
    // Render the open row now, so that its button is there to take the focus.
    if (row?.source && row.source.itemCount > 0) flushSync(() => setOpen((current) => new Set(current).add(key)));
    const button = document.getElementById(toggleId(idPrefix, key));
    button?.scrollIntoView?.({ block: 'center' });
    button?.focus({ preventScroll: true });
  };

  const toggle = (key: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  const closeReveal = () => {
    if (!revealed) return;
    setRevealed(null);
    document.getElementById(revealButtonId(idPrefix, revealed.itemId))?.focus();
  };

  /** From a suggestion to the item's text: expand its source, reveal it, move focus there. */
  const showItem = (itemId: string) => {
    const source = report.sources.find((s) => s.items.some((i) => i.id === itemId));
    const item = source?.items.find((i) => i.id === itemId);
    if (!source || !item) return;
    setOpen((current) => new Set(current).add(source.id));
    setRevealed({ itemId, label: item.label, focus: true });
  };

  const copy = async (what: 'JSON' | 'Markdown') => {
    const text = what === 'JSON' ? JSON.stringify(report, null, 2) : reportToMarkdown(model, sessionTitle);
    try {
      await navigator.clipboard.writeText(text);
      setCopied(`${what} copied`);
    } catch {
      setCopied(`Could not copy ${what}: the browser refused clipboard access`);
    }
  };

  // A call chosen on the chart: the report above it changes (loading, then as of that call), and
  // the chart stays where it was on the screen, under the pointer that chose it.
  const timelineBox = useRef<HTMLDivElement>(null);
  const pinnedAt = useRef<number | null>(null);
  const chooseCall = (call: number | null) => {
    pinnedAt.current = timelineBox.current?.getBoundingClientRect().top ?? null;
    props.onChooseCall(call);
  };
  useLayoutEffect(() => {
    const box = timelineBox.current;
    if (pinnedAt.current === null || !box) return;
    const list = box.closest('[aria-label="Messages"]');
    const moved = box.getBoundingClientRect().top - pinnedAt.current;
    if (list && moved !== 0) list.scrollTop += moved;
    if (choosing?.state !== 'loading') pinnedAt.current = null;
  });

  const win = model.window;
  const costNote = costColumnNote(report);
  // Its regions' names: this report's session (a subagent's says so) and the call it is as of.
  const which = [
    props.regionName ?? sessionTitle ?? (report.sessionId ? `session ${report.sessionId}` : 'no session'),
    report.parentSessionId ? 'a subagent’s session' : null,
    report.asOf && choosing ? `as of call ${report.asOf.call}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <ReportNameContext.Provider value={which}>
      <section
        className="context-report"
        aria-labelledby={`${idPrefix}-title ${idPrefix}-which`}
        ref={section}
        onKeyDown={(event) => {
          if (event.key === 'Escape' && revealed) {
            event.preventDefault();
            closeReveal();
          }
        }}
      >
        <header className={`report-summary${outdated ? ' is-outdated' : ''}`}>
          <div className="summary-main">
            <h2 id={`${idPrefix}-title`} ref={heading} tabIndex={-1}>
              Context breakdown
            </h2>
            <span id={`${idPrefix}-which`} className="visually-hidden">
              — {which}
            </span>
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
            {/* In the sticky header, so nothing sticky ever covers it. */}
            <p className="report-made muted">
              Made <RelativeTime at={report.generatedAt} />
              {sessionTitle ? <span className="wide-only"> · {sessionTitle}</span> : null}
            </p>
          </div>
          <div className="summary-actions">
            <button type="button" className={outdated ? 'primary' : undefined} onClick={onRefresh}>
              Refresh
            </button>
            <button type="button" aria-haspopup="dialog" onClick={() => setReader({ source: null })}>
              Open reader
            </button>
            <button type="button" aria-label="Copy JSON" onClick={() => void copy('JSON')}>
              <span className="wide-only">Copy </span>JSON
            </button>
            <button type="button" aria-label="Copy Markdown" onClick={() => void copy('Markdown')}>
              <span className="wide-only">Copy </span>Markdown
            </button>
          </div>
          {choosing && (
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
              <button type="button" className="link" onClick={() => props.onChooseCall(null)}>
                Back to the current context
              </button>
            </p>
          )}
          <p role="status" className="summary-status">
            {outdated && <span className="outdated">Outdated: {outdated}. Refresh for the current context.</span>}
            {copied && <span className="copy-status">{copied}</span>}
          </p>
        </header>

        {report.parentSessionId && (
          <p className="report-meta subagent-parent">
            A subagent’s session, made by a task call of{' '}
            {props.parentTitle ? `“${props.parentTitle}”` : 'another session'}
            {report.asOf && !choosing
              ? `: it has no total of its own, so this is as of its last measured call`
              : ''}.{' '}
            {props.onOpenSession && (
              <button type="button" className="link" onClick={() => props.onOpenSession!(report.parentSessionId!)}>
                Open the parent’s report
              </button>
            )}
          </p>
        )}
        <Verdict model={model} onShow={showItem} onDraft={onDraft} />
        <WindowBar model={model} onFocus={focusSource} />

        <h3 className="table-title">By source</h3>
        <SourceTable
          model={model}
          change={change}
          idPrefix={idPrefix}
          target={target}
          open={open}
          onToggle={toggle}
          revealed={revealed}
          onReveal={(item: ReportItem) => setRevealed({ itemId: item.id, label: item.label, focus: false })}
          onCloseReveal={closeReveal}
          onOpenReader={(source) => setReader({ source })}
          {...(props.onOpenSession ? { onOpenSession: props.onOpenSession } : {})}
        />
        {/* Under the Total: what the Cost column means, what is not in the total yet, the room, cache and cost. */}
        {costNote && <p className="table-note muted">{costNote}</p>}
        <PendingLine model={model} />
        <VerdictFacts model={model} />
        <ReportFootnotes model={model} change={change} />

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
        {report.suggestions.length > 0 && <Suggestions report={report} onShow={showItem} onDraft={onDraft} />}
        <FinePrint model={model} />
        {reader && (
          <ReaderDrawer model={model} target={target} initialSource={reader.source} onClose={() => setReader(null)} />
        )}
      </section>
    </ReportNameContext.Provider>
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
