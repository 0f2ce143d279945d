/**
 * The reader's tools: a chip per source to focus on (the chips scroll sideways when they do not
 * fit, the edge with more fading out), and previous/next through the focused source's blocks.
 */
import { useLayoutEffect, useRef, useState } from 'react';
import { fmt } from '../../shared/format';
import type { ReportModel } from './report-model';
import { colorVar } from './source-style';

export function ReaderTools({
  model,
  blockCount,
  sources,
  counts,
  focus,
  onFocus,
  nav,
}: {
  model: ReportModel;
  blockCount: number;
  /** The sources with blocks, in the order their chips show. */
  sources: readonly string[];
  counts: ReadonlyMap<string, number>;
  focus: string | null;
  onFocus: (source: string | null) => void;
  /** Where previous/next stand in the focused source (absent: nothing focused). */
  nav: { at: number; of: number; morePages: boolean; go: (to: number) => void } | null;
}) {
  const { chips, more, onScroll } = useChipsOverflow();
  return (
    <div className="drawer-tools">
      <div
        className="reader-focus"
        role="group"
        aria-label="Focus on a source"
        ref={chips}
        data-more={more}
        onScroll={onScroll}
      >
        <button type="button" aria-pressed={focus === null} onClick={() => onFocus(null)}>
          All <span className="count">{fmt(blockCount)}</span> <span className="visually-hidden">blocks</span>
        </button>
        {sources.map((id) => (
          <button key={id} type="button" aria-pressed={focus === id} onClick={() => onFocus(focus === id ? null : id)}>
            <span className="swatch" style={colorVar(model.colorOf(id))} aria-hidden="true" />
            {model.labelOf(id)} <span className="count">{fmt(counts.get(id) ?? 0)}</span>{' '}
            <span className="visually-hidden">blocks</span>
          </button>
        ))}
      </div>
      {focus && nav && (
        <nav className="reader-nav" aria-label={`Blocks of ${model.labelOf(focus)}`}>
          <button type="button" disabled={nav.at === 0} onClick={() => nav.go(nav.at - 1)}>
            Previous
          </button>
          <span role="status">
            {model.labelOf(focus)}: {nav.at + 1} of {nav.of}
            {nav.morePages ? ' on this page' : ''}
          </span>
          <button type="button" disabled={nav.at + 1 >= nav.of} onClick={() => nav.go(nav.at + 1)}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}

/** Which edges of the chips' row have more beyond them, kept up to date as it scrolls and resizes. */
function useChipsOverflow() {
  const chips = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState<'none' | 'start' | 'end' | 'both'>('none');
  const onScroll = () => {
    const el = chips.current;
    if (!el) return;
    const start = el.scrollLeft > 2;
    const end = el.scrollLeft + el.clientWidth < el.scrollWidth - 2;
    setMore(start && end ? 'both' : start ? 'start' : end ? 'end' : 'none');
  };
  useLayoutEffect(() => {
    onScroll();
    const el = chips.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(onScroll);
    observer.observe(el);
    return () => observer.disconnect();
    // Once: the chips mount with the loaded page.
  }, []);
  return { chips, more, onScroll };
}
