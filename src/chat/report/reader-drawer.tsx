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
import type { ReaderPage } from '../../shared/wire';
import type { ContentTarget } from './item-content-panel';
import { Pager } from './pager';
import { ReaderBlock } from './reader-block';
import { ReaderTools } from './reader-tools';
import type { ReportModel } from './report-model';

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
  const [revealed, setRevealed] = useState<string | null>(null);
  const reader = useQuery(contentQueries.reader(target, page));
  const host = useRef<HTMLDivElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const body = useRef<HTMLDivElement>(null);
  useModal(host, heading);
  useScrollToSource(body, initialSource, reader.data);
  const blocks = reader.data?.blocks ?? [];
  const { focus, focused, at, choose, go } = useFocusedSource(body, blocks, initialSource);
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
          <ReaderTools
            model={model}
            {...sourcesOf(model, blocks)}
            blockCount={blocks.length}
            focus={focus}
            onFocus={choose}
            nav={focused.length > 0 ? { at, of: focused.length, morePages: reader.data.pageCount > 1, go } : null}
          />
        )}
        <div className="drawer-body" ref={body}>
          {reader.isPending && <p role="status">Loading the reader…</p>}
          {reader.isError && <p role="alert">{reader.error.message}</p>}
          {reader.isSuccess && (
            <ReaderPageView
              model={model}
              target={target}
              data={reader.data}
              page={page}
              focus={focus}
              current={focused[at]?.itemId}
              revealed={revealed}
              onReveal={setRevealed}
              onPage={setPage}
            />
          )}
        </div>
      </div>
    </div>,
    document.body,
  );
}

/** One page of blocks in request order, and the pager when there are more. */
function ReaderPageView({
  model,
  target,
  data,
  page,
  focus,
  current,
  revealed,
  onReveal,
  onPage,
}: {
  model: ReportModel;
  target: ContentTarget;
  data: ReaderPage;
  /** The page asked for (the data shown may still be the one before). */
  page: number;
  focus: string | null;
  /** The block previous/next stand on. */
  current: string | undefined;
  revealed: string | null;
  onReveal: (itemId: string | null) => void;
  onPage: (page: number) => void;
}) {
  return (
    <>
      <ol className="reader-blocks" start={page * 200 + 1} aria-label="Context blocks in request order">
        {data.blocks.map((block) => (
          <ReaderBlock
            key={block.itemId}
            model={model}
            target={target}
            block={block}
            folded={focus !== null && block.source !== focus}
            current={current === block.itemId}
            revealed={revealed === block.itemId}
            onReveal={onReveal}
          />
        ))}
      </ol>
      {data.pageCount > 1 && (
        <Pager
          label="Reader pages"
          unit="blocks"
          page={page}
          pageCount={data.pageCount}
          summary={`${fmt(data.blockCount)} blocks`}
          onPage={onPage}
        />
      )}
    </>
  );
}

type Block = ReaderPage['blocks'][number];

/** The sources with blocks on this page and how many each: the report's order (largest first), then any only the reader knows. */
function sourcesOf(model: ReportModel, blocks: readonly Block[]) {
  const counts = new Map<string, number>();
  for (const b of blocks) counts.set(b.source, (counts.get(b.source) ?? 0) + 1);
  const sources = [
    ...model.rows.map((r) => r.key).filter((k) => counts.has(k)),
    ...[...counts.keys()].filter((k) => !model.rows.some((r) => r.key === k)),
  ];
  return { sources, counts };
}

const blockElement = (body: RefObject<HTMLElement | null>, itemId: string | undefined) =>
  [...(body.current?.querySelectorAll<HTMLElement>('[data-item]') ?? [])].find((el) => el.dataset.item === itemId);

/** Opened for one source: bring its first block into view once the page has loaded. */
function useScrollToSource(
  body: RefObject<HTMLElement | null>,
  initialSource: string | null,
  loaded: ReaderPage | undefined,
) {
  useEffect(() => {
    if (!initialSource || !loaded) return;
    const first = loaded.blocks.find((b) => b.source === initialSource);
    blockElement(body, first?.itemId)?.scrollIntoView?.({ block: 'start' });
  }, [body, initialSource, loaded]);
}

/** The source focused on (its blocks whole, the others folded) and the block previous/next stand on. */
function useFocusedSource(body: RefObject<HTMLElement | null>, blocks: readonly Block[], initialSource: string | null) {
  const [focus, setFocus] = useState<string | null>(initialSource);
  const [current, setCurrent] = useState(0);
  const focused = focus ? blocks.filter((b) => b.source === focus) : [];
  const at = Math.min(current, Math.max(0, focused.length - 1));
  const choose = (next: string | null) => {
    // Render the new focus now, then bring its first block into view.
    flushSync(() => {
      setFocus(next);
      setCurrent(0);
    });
    if (next) blockElement(body, blocks.find((b) => b.source === next)?.itemId)?.scrollIntoView?.({ block: 'start' });
  };
  const go = (to: number) => {
    setCurrent(to);
    const block = focused[to];
    if (!block) return;
    const element = blockElement(body, block.itemId);
    element?.scrollIntoView?.({ block: 'start' });
    element?.focus({ preventScroll: true });
  };
  return { focus, focused, at, choose, go };
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
