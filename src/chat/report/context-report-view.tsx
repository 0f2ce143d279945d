/**
 * The /debug report inside the chat: the real total, a stacked share bar, one row per source
 * (expandable to its items), what is not in context, the estimate's limits, and the change
 * since the previous /debug. Loaded lazily as its own chunk.
 */
import { observeElementRect, useVirtualizer } from '@tanstack/react-virtual';
import { Fragment, useRef, useState } from 'react';
import type { ContextReport, ReportItem, ReportSource } from '../../shared/wire';
import { fmt, fmtBytes, fmtDelta, fmtPct } from '../../shared/format';
import { ItemContentPanel, type ContentTarget } from './item-content-panel';
import { ReaderView } from './reader-view';
import { reportToMarkdown } from './report-markdown';

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

function ReportHeader({ report }: { report: ContextReport }) {
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

function ShareBar({ report }: { report: ContextReport }) {
  const useScaled = report.actual !== null;
  const value = (s: ReportSource) => (useScaled ? (s.scaledTokens ?? 0) : s.estimatedTokens);
  const total = report.sources.reduce((n, s) => n + value(s), 0);
  const share = (s: ReportSource) => (total > 0 ? (value(s) / total) * 100 : 0);
  const shown = report.sources.filter((s) => value(s) > 0).sort((a, b) => value(b) - value(a));
  return (
    <figure className="share-bar-figure">
      <div
        className="share-bar"
        role="img"
        aria-label={`Share of ${useScaled ? 'used context' : 'estimated tokens'} by source: ${shown.map((s) => `${s.label} ${share(s).toFixed(1)}%`).join(', ')}`}
      >
        {shown.map((s) => (
          <span
            key={s.id}
            className={`share-segment src-${s.id}`}
            style={{ flexGrow: value(s) }}
            title={`${s.label}: ${share(s).toFixed(1)}%`}
          />
        ))}
      </div>
      <figcaption>
        <ul className="legend">
          {report.sources.map((s) => (
            <li key={s.id} className={value(s) === 0 ? 'empty' : undefined}>
              <span className={`swatch src-${s.id}`} aria-hidden="true" />
              {s.label} <span className="legend-value">{share(s).toFixed(1)}%</span>
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

const ROW_PX = 32;
const VISIBLE_ROWS = 12;
const FALLBACK_RECT = { width: 800, height: VISIBLE_ROWS * ROW_PX };

/**
 * A source's items: a scroll box of fixed height whose rows are virtualised, so a source of
 * 200 (or 20,000) items costs the browser a dozen rows of layout, never the whole list.
 */
function ItemsTable({
  source,
  pending,
  onReveal,
}: {
  source: ReportSource;
  pending: boolean;
  onReveal: (item: ReportItem) => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const rows = source.items.length + (source.more.itemCount > 0 ? 1 : 0);
  // eslint-disable-next-line react-hooks/incompatible-library -- its functions never leave this component
  const virtualizer = useVirtualizer({
    count: rows,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_PX,
    overscan: 6,
    // Where there is no layout (first paint, a hidden tab, jsdom) assume the box is full height.
    initialRect: FALLBACK_RECT,
    observeElementRect: (instance, report) =>
      observeElementRect(instance, (rect) => report(rect.height > 0 ? rect : FALLBACK_RECT)),
  });
  const virtualRows = virtualizer.getVirtualItems();
  const before = virtualRows[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (virtualRows.at(-1)?.end ?? 0);
  return (
    <div
      className="items-scroll"
      ref={scrollRef}
      style={{ height: `${(Math.min(VISIBLE_ROWS, rows) + 1) * ROW_PX + 2}px` }}
    >
      <table className="items-table" aria-rowcount={rows + 1}>
        <caption className="visually-hidden">Largest items of {source.label}</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Scaled</th>
            <th scope="col">Used %</th>
            <th scope="col">Estimated</th>
            <th scope="col">Bytes</th>
            <th scope="col">
              <span className="visually-hidden">Content</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {before > 0 && <tr aria-hidden="true" style={{ height: `${before}px` }} />}
          {virtualRows.map((row) => {
            const item = source.items[row.index];
            if (!item) {
              return (
                <tr key="more" className="more-row" aria-rowindex={row.index + 2}>
                  <th scope="row">
                    … {source.more.itemCount} smaller item{source.more.itemCount === 1 ? '' : 's'}
                  </th>
                  <td>{pending ? 'pending' : fmt(source.more.scaledTokens)}</td>
                  <td />
                  <td>≈{fmt(source.more.estimatedTokens)}</td>
                  <td>{fmtBytes(source.more.bytes)}</td>
                  <td />
                </tr>
              );
            }
            return (
              <tr key={item.id} aria-rowindex={row.index + 2}>
                <th scope="row" title={`${item.label}\n${item.sourceRef}`}>
                  <span className="item-label">{item.label}</span>
                  {item.duplicate && (
                    <span className={`badge${item.duplicate.ordinal > 1 ? ' badge-warn' : ''}`}>
                      read {item.duplicate.ordinal} of {item.duplicate.reads}
                    </span>
                  )}
                </th>
                <td>{pending ? 'pending' : fmt(item.scaledTokens)}</td>
                <td>{fmtPct(item.percentOfUsed)}</td>
                <td>≈{fmt(item.estimatedTokens)}</td>
                <td>{fmtBytes(item.bytes)}</td>
                <td>
                  <button
                    type="button"
                    className="reveal"
                    onClick={() => onReveal(item)}
                    aria-label={`Reveal content: ${item.label}`}
                  >
                    Reveal
                  </button>
                </td>
              </tr>
            );
          })}
          {after > 0 && <tr aria-hidden="true" style={{ height: `${after}px` }} />}
        </tbody>
      </table>
    </div>
  );
}

function Suggestions({ report, onShow }: { report: ContextReport; onShow: (itemId: string) => void }) {
  return (
    <section className="suggestions" aria-label="Suggestions">
      <strong>Suggestions</strong>
      <ul>
        {report.suggestions.map((s) => (
          <li key={`${s.kind}-${s.title}`} className={`suggestion suggestion-${s.severity}`}>
            <span className="suggestion-title">{s.title}</span>
            <span className="suggestion-detail">{s.detail}</span>
            {s.itemIds[0] && report.sources.some((src) => src.items.some((i) => i.id === s.itemIds[0])) && (
              <button type="button" className="link" onClick={() => onShow(s.itemIds.at(-1)!)}>
                Show the text
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function FinePrint({ report }: { report: ContextReport }) {
  return (
    <div className="fine-print">
      {report.excluded.length > 0 && (
        <details>
          <summary>Not in context ({report.excluded.length})</summary>
          <ul>
            {report.excluded.map((e) => (
              <li key={e.label}>
                <strong>{e.label}</strong> — {fmtBytes(e.bytes)}
                {e.count === undefined ? '' : `, ${fmt(e.count)}`}. {e.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      <details>
        <summary>About these numbers ({report.notes.length})</summary>
        <ul>
          {report.notes.map((note) => (
            <li key={note}>{note}</li>
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
