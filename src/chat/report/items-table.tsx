import { observeElementRect, useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { fmt, fmtBytes, fmtPct } from '../../shared/format';
import type { ReportItem, ReportSource } from '../../shared/wire';

const ROW_PX = 32;
const VISIBLE_ROWS = 12;
const FALLBACK_RECT = { width: 800, height: VISIBLE_ROWS * ROW_PX };

/**
 * A source's items: a scroll box of fixed height whose rows are virtualised, so a source of
 * 200 (or 20,000) items costs the browser a dozen rows of layout, never the whole list.
 */
export function ItemsTable({
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
