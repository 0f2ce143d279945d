/**
 * The reader: the live context in request order — instructions, skill catalog, then the history
 * as the model sees it after compaction and pruning — each block marked with its source. It opens
 * as a full-height drawer over the report (a modal dialog: the page behind is inert, Escape
 * closes it and focus returns to where it was). Focusing a source keeps its blocks whole and
 * folds the others to one line, with previous/next through the focused blocks and a count.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { createPortal, flushSync } from 'react-dom';
import { contentQueries } from '../../api/context-report';
import { fmt } from '../../shared/format';
import { ItemContentPanel, type ContentTarget } from './item-content-panel';
import { Pager } from './pager';
import type { ReportModel } from './report-model';
import { colorVar } from './source-style';
import { WrapPoints } from '../wrap-points';

export function ReaderDrawer({
  model,
  target,
  initialSource = null,
  onClose,
}: {
  model: ReportModel;
  target: ContentTarget;
  initialSource?: string | null;
  onClose: () => void;
}) {
  const titleId = useId();
  const [page, setPage] = useState(0);
  const [focus, setFocus] = useState<string | null>(initialSource);
  const [current, setCurrent] = useState(0);
  const [revealed, setRevealed] = useState<string | null>(null);
  const reader = useQuery(contentQueries.reader(target, page));
  const host = useRef<HTMLDivElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const body = useRef<HTMLDivElement>(null);

  useModal(host, heading);
  // The source chips scroll sideways when they do not fit: the edge with more fades out.
  const chips = useRef<HTMLDivElement>(null);
  const [chipsMore, setChipsMore] = useState<'none' | 'start' | 'end' | 'both'>('none');
  const updateChipsMore = () => {
    const el = chips.current;
    if (!el) return;
    const start = el.scrollLeft > 2;
    const end = el.scrollLeft + el.clientWidth < el.scrollWidth - 2;
    setChipsMore(start && end ? 'both' : start ? 'start' : end ? 'end' : 'none');
  };

  const blocks = reader.data?.blocks ?? [];
  useLayoutEffect(() => {
    updateChipsMore();
    const el = chips.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(updateChipsMore);
    observer.observe(el);
    return () => observer.disconnect();
  }, [reader.isSuccess]);
  const counts = new Map<string, number>();
  for (const b of blocks) counts.set(b.source, (counts.get(b.source) ?? 0) + 1);
  // The report's order (largest first), then any source only the reader knows.
  const sources = [
    ...model.rows.map((r) => r.key).filter((k) => counts.has(k)),
    ...[...counts.keys()].filter((k) => !model.rows.some((r) => r.key === k)),
  ];
  const focused = focus ? blocks.filter((b) => b.source === focus) : [];
  const at = Math.min(current, Math.max(0, focused.length - 1));

  // Opened for one source: bring its first block into view once the page has loaded.
  const loaded = reader.data;
  useEffect(() => {
    if (!initialSource || !loaded) return;
    const first = loaded.blocks.find((b) => b.source === initialSource);
    const element = [...(body.current?.querySelectorAll<HTMLElement>('[data-item]') ?? [])].find(
      (el) => el.dataset.item === first?.itemId,
    );
    element?.scrollIntoView?.({ block: 'start' });
  }, [initialSource, loaded]);

  const blockElement = (itemId: string | undefined) =>
    [...(body.current?.querySelectorAll<HTMLElement>('[data-item]') ?? [])].find((el) => el.dataset.item === itemId);

  const go = (to: number) => {
    setCurrent(to);
    const block = focused[to];
    if (!block) return;
    const element = blockElement(block.itemId);
    element?.scrollIntoView?.({ block: 'start' });
    element?.focus({ preventScroll: true });
  };

  return createPortal(
    <div className="drawer-host" ref={host}>
      <div className="drawer-backdrop" aria-hidden="true" onClick={onClose} />
      <div
        className="drawer"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={(event) => {
          if (event.key !== 'Escape') return;
          event.stopPropagation();
          if (revealed) setRevealed(null);
          else onClose();
        }}
      >
        <header className="drawer-header">
          <div>
            <h2 id={titleId} ref={heading} tabIndex={-1}>
              Reader
            </h2>
            <p className="muted small">The context in the order the model reads it</p>
          </div>
          <button type="button" aria-label="Close reader" onClick={onClose}>
            Close<span className="wide-only"> reader</span>
          </button>
        </header>
        {reader.isSuccess && (
          <div className="drawer-tools">
            <div
              className="reader-focus"
              role="group"
              aria-label="Focus on a source"
              ref={chips}
              data-more={chipsMore}
              onScroll={updateChipsMore}
            >
              <button type="button" aria-pressed={focus === null} onClick={() => setFocus(null)}>
                All <span className="count">{fmt(blocks.length)}</span> <span className="visually-hidden">blocks</span>
              </button>
              {sources.map((id) => (
                <button
                  key={id}
                  type="button"
                  aria-pressed={focus === id}
                  onClick={() => {
                    const next = focus === id ? null : id;
                    // Render the new focus now, then bring its first block into view.
                    flushSync(() => {
                      setFocus(next);
                      setCurrent(0);
                    });
                    if (next)
                      blockElement(blocks.find((b) => b.source === next)?.itemId)?.scrollIntoView?.({ block: 'start' });
                  }}
                >
                  <span className="swatch" style={colorVar(model.colorOf(id))} aria-hidden="true" />
                  {model.labelOf(id)} <span className="count">{fmt(counts.get(id) ?? 0)}</span>{' '}
                  <span className="visually-hidden">blocks</span>
                </button>
              ))}
            </div>
            {focus && focused.length > 0 && (
              <nav className="reader-nav" aria-label={`Blocks of ${model.labelOf(focus)}`}>
                <button type="button" disabled={at === 0} onClick={() => go(at - 1)}>
                  Previous
                </button>
                <span role="status">
                  {model.labelOf(focus)}: {at + 1} of {focused.length}
                  {reader.data.pageCount > 1 ? ' on this page' : ''}
                </span>
                <button type="button" disabled={at + 1 >= focused.length} onClick={() => go(at + 1)}>
                  Next
                </button>
              </nav>
            )}
          </div>
        )}
        <div className="drawer-body" ref={body}>
          {reader.isPending && <p role="status">Loading the reader…</p>}
          {reader.isError && <p role="alert">{reader.error.message}</p>}
          {reader.isSuccess && (
            <>
              <ol className="reader-blocks" start={page * 200 + 1} aria-label="Context blocks in request order">
                {blocks.map((block) => {
                  const folded = focus !== null && block.source !== focus;
                  return (
                    <li
                      key={block.itemId}
                      className={`reader-block${folded ? ' folded' : ''}${focused[at]?.itemId === block.itemId ? ' current' : ''}`}
                      style={colorVar(model.colorOf(block.source))}
                      data-source={block.source}
                      data-item={block.itemId}
                      tabIndex={-1}
                    >
                      <div className="reader-block-meta">
                        <span className="reader-source">{model.labelOf(block.source)}</span>
                        <span className="reader-label">
                          <WrapPoints text={block.label} />
                        </span>
                        <span className="muted num" title={`≈${fmt(block.estimatedTokens)} by the server’s estimate`}>
                          {block.tokens == null
                            ? `≈${fmt(block.estimatedTokens)} tokens · not in the total yet`
                            : `${fmt(block.tokens)} tokens`}
                        </span>
                      </div>
                      {!folded && (
                        <>
                          <pre className="reader-preview">{block.preview}</pre>
                          {block.truncated && revealed !== block.itemId && (
                            <button type="button" className="small-button" onClick={() => setRevealed(block.itemId)}>
                              Reveal full text
                            </button>
                          )}
                          {revealed === block.itemId && (
                            <ItemContentPanel
                              target={target}
                              itemId={block.itemId}
                              label={block.label}
                              focusOnOpen
                              onClose={() => setRevealed(null)}
                            />
                          )}
                        </>
                      )}
                    </li>
                  );
                })}
              </ol>
              {reader.data.pageCount > 1 && (
                <Pager
                  label="Reader pages"
                  unit="blocks"
                  page={page}
                  pageCount={reader.data.pageCount}
                  summary={`${fmt(reader.data.blockCount)} blocks`}
                  onPage={setPage}
                />
              )}
            </>
          )}
        </div>
      </div>
    </div>,
    document.body,
  );
}

/**
 * While open: everything else on the page is inert, the page behind does not scroll, focus
 * starts on the heading, and on close it returns to the element that opened the drawer.
 */
function useModal(host: RefObject<HTMLDivElement | null>, heading: RefObject<HTMLElement | null>) {
  const opener = useRef<Element | null>(null);
  useLayoutEffect(() => {
    opener.current = document.activeElement;
  }, []);
  useEffect(() => {
    const others = [...document.body.children].filter(
      (el): el is HTMLElement => el instanceof HTMLElement && el !== host.current && !el.hasAttribute('inert'),
    );
    for (const el of others) el.setAttribute('inert', '');
    heading.current?.focus();
    return () => {
      for (const el of others) el.removeAttribute('inert');
      const back = opener.current;
      if (back instanceof HTMLElement && back.isConnected) back.focus({ preventScroll: true });
    };
  }, [host, heading]);
}
