/**
 * The /debug report inside the chat: the real total, a stacked share bar, one row per source
 * (expandable to its items), what is not in context, the estimate's limits, and the change
 * since the previous /debug. Loaded lazily as its own chunk.
 */
import { Fragment, useState } from 'react';
import type { ContextReport, ReportSource } from '../../shared/wire';
import { fmt, fmtBytes, fmtDelta, fmtPct } from '../../shared/format';
import { FinePrint } from './fine-print';
import { ItemContentPanel, type ContentTarget } from './item-content-panel';
import { ItemsTable } from './items-table';
import { ReaderView } from './reader-view';
import { ReportHeader } from './report-header';
import { reportToMarkdown } from './report-markdown';
import { ShareBar } from './share-bar';
import { Suggestions } from './suggestions-list';

interface Props {
  report: ContextReport;
  previous: ContextReport | null;
  onDismiss: () => void;
}

export default function ContextReportView({ report, previous, onDismiss }: Props) {
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const [copied, setCopied] = useState<string | null>(null);
  const [revealed, setRevealed] = useState<{ itemId: string; label: string } | null>(null);
  const [readerOpen, setReaderOpen] = useState(false);
  const target: ContentTarget = {
    workspaceId: report.workspaceId,
    sessionId: report.sessionId,
    snapshotId: report.snapshotId,
  };
  const revealIn = (source: ReportSource) =>
    revealed && source.items.some((i) => i.id === revealed.itemId) ? revealed : null;
  const pending = report.actual === null;
  const deltas = previous ? sourceDeltas(report, previous) : null;

  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  /** From a suggestion to the item's text: expand its source and reveal it. */
  const showItem = (itemId: string) => {
    const source = report.sources.find((s) => s.items.some((i) => i.id === itemId));
    const item = source?.items.find((i) => i.id === itemId);
    if (!source || !item) return;
    setOpen((current) => new Set(current).add(source.id));
    setRevealed({ itemId, label: item.label });
  };

  const copy = async (what: 'JSON' | 'Markdown') => {
    const text = what === 'JSON' ? JSON.stringify(report, null, 2) : reportToMarkdown(report);
    try {
      await navigator.clipboard.writeText(text);
      setCopied(`${what} copied`);
    } catch {
      setCopied(`Could not copy ${what}: the browser refused clipboard access`);
    }
  };

  return (
    <section className="context-report" aria-label="Context breakdown">
      <ReportHeader report={report} />
      <ShareBar report={report} />
      <table className="report-table">
        <caption className="visually-hidden">Context by semantic source</caption>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Scaled tokens</th>
            <th scope="col">Used %</th>
            <th scope="col">Estimated</th>
            <th scope="col">Bytes</th>
            <th scope="col">Items</th>
            {deltas && <th scope="col">Change</th>}
          </tr>
        </thead>
        <tbody>
          {report.sources.map((source) => (
            <Fragment key={source.id}>
              <tr className={`source-row${source.itemCount === 0 ? ' empty' : ''}`}>
                <th scope="row">
                  <button
                    type="button"
                    className="disclosure"
                    aria-expanded={open.has(source.id)}
                    aria-controls={`items-${report.generatedAt}-${source.id}`}
                    disabled={source.itemCount === 0}
                    onClick={() => toggle(source.id)}
                  >
                    <span className="chevron" aria-hidden="true" />
                    <span className={`swatch src-${source.id}`} aria-hidden="true" />
                    {source.label}
                  </button>
                </th>
                <td>{pending ? 'pending' : fmt(source.scaledTokens)}</td>
                <td>{fmtPct(source.percentOfUsed)}</td>
                <td>≈{fmt(source.estimatedTokens)}</td>
                <td>{fmtBytes(source.bytes)}</td>
                <td>{source.itemCount}</td>
                {deltas && <td className="delta">{fmtDelta(deltas.get(source.id) ?? null)}</td>}
              </tr>
              {open.has(source.id) && (
                <tr className="items-row" id={`items-${report.generatedAt}-${source.id}`}>
                  <td colSpan={deltas ? 7 : 6}>
                    <ItemsTable
                      source={source}
                      pending={pending}
                      onReveal={(item) => setRevealed({ itemId: item.id, label: item.label })}
                    />
                    {revealIn(source) && (
                      <ItemContentPanel
                        key={revealed!.itemId}
                        target={target}
                        itemId={revealed!.itemId}
                        label={revealed!.label}
                        onClose={() => setRevealed(null)}
                      />
                    )}
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      {report.duplicates.extraReads > 0 && (
        <p className="duplicates-summary">
          <strong>Read more than once:</strong> {report.duplicates.files} file{report.duplicates.files === 1 ? '' : 's'}{' '}
          — {report.duplicates.extraReads} extra read{report.duplicates.extraReads === 1 ? '' : 's'} repeat ≈
          {fmt(report.duplicates.repeatedEstimatedTokens)} tokens
          {report.duplicates.repeatedScaledTokens === null
            ? ''
            : ` (${fmt(report.duplicates.repeatedScaledTokens)} scaled)`}
          .
        </p>
      )}
      {deltas && previous && (
        <p className="delta-summary">
          Change column: since the previous /debug at {new Date(previous.generatedAt).toLocaleTimeString()} (
          {fmtDelta((report.actual?.contextUsed ?? 0) - (previous.actual?.contextUsed ?? 0))} tokens used in total).
        </p>
      )}
      {report.suggestions.length > 0 && <Suggestions report={report} onShow={(id) => showItem(id)} />}
      <FinePrint report={report} />
      {readerOpen && <ReaderView target={target} onClose={() => setReaderOpen(false)} />}
      <div className="report-actions">
        <button type="button" aria-expanded={readerOpen} onClick={() => setReaderOpen((open) => !open)}>
          {readerOpen ? 'Close reader' : 'Open reader'}
        </button>
        <button type="button" onClick={() => void copy('JSON')}>
          Copy JSON
        </button>
        <button type="button" onClick={() => void copy('Markdown')}>
          Copy Markdown
        </button>
        <button type="button" onClick={onDismiss}>
          Dismiss
        </button>
        <span role="status" className="copy-status">
          {copied}
        </span>
      </div>
    </section>
  );
}

/** Per-source change in scaled tokens (estimated while pending) since the previous report. */
function sourceDeltas(report: ContextReport, previous: ContextReport): Map<string, number | null> {
  const value = (r: ContextReport, s: ReportSource) => (r.actual ? s.scaledTokens : s.estimatedTokens);
  const before = new Map(previous.sources.map((s) => [s.id, value(previous, s)]));
  return new Map(
    report.sources.map((s) => {
      const now = value(report, s);
      const then = before.get(s.id);
      return [s.id, now === null || then === null || then === undefined ? null : now - then];
    }),
  );
}
