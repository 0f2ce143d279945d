/**
 * The report's interactions, each a small hook: the focus it claims on arrival, which sources are
 * open and which item is revealed, copying it, and keeping the timeline under the pointer when a
 * call chosen there changes the report above it.
 */
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { flushSync } from 'react-dom';
import type { ContextReport, ReportItem } from '../../shared/wire';
import { revealButtonId, type Revealed } from './items-table';
import { reportToMarkdown } from './report-markdown';
import type { ReportModel } from './report-model';
import type { Choosing } from './report-summary';
import { toggleId } from './source-table';

/** Asked once on mount: scrolls the report into view and focuses its heading when it should. */
export function useClaimFocus(claimFocus: () => boolean) {
  const section = useRef<HTMLElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const claim = useRef(claimFocus);
  useEffect(() => {
    if (!claim.current()) return;
    const frame = section.current?.closest('article') ?? section.current;
    frame?.scrollIntoView?.({ block: 'start' });
    heading.current?.focus({ preventScroll: true });
  }, []);
  return { section, heading };
}

/** Which sources are expanded and which item's text is revealed, and the ways to them. */
export function useOpenSources(report: ContextReport, model: ReportModel, idPrefix: string) {
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const [revealed, setRevealed] = useState<Revealed | null>(null);
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
  const reveal = (item: ReportItem) => setRevealed({ itemId: item.id, label: item.label, focus: false });
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
  /** Escape closes a revealed item's text, anywhere in the report. */
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && revealed) {
      event.preventDefault();
      closeReveal();
    }
  };
  return { open, toggle, focusSource, revealed, reveal, closeReveal, showItem, onKeyDown };
}

/** Copies the report as JSON or Markdown; the status says whether the browser let it. */
export function useCopyReport(report: ContextReport, model: ReportModel, sessionTitle: string | null | undefined) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async (what: 'JSON' | 'Markdown') => {
    const text = what === 'JSON' ? JSON.stringify(report, null, 2) : reportToMarkdown(model, sessionTitle);
    try {
      await navigator.clipboard.writeText(text);
      setCopied(`${what} copied`);
    } catch {
      setCopied(`Could not copy ${what}: the browser refused clipboard access`);
    }
  };
  return { copied, copy };
}

/**
 * A call chosen on the chart: the report above it changes (loading, then as of that call), and
 * the chart stays where it was on the screen, under the pointer that chose it.
 */
export function useTimelinePin(choosing: Choosing | null, onChooseCall: (call: number | null) => void) {
  const timelineBox = useRef<HTMLDivElement>(null);
  const pinnedAt = useRef<number | null>(null);
  const chooseCall = (call: number | null) => {
    pinnedAt.current = timelineBox.current?.getBoundingClientRect().top ?? null;
    onChooseCall(call);
  };
  useLayoutEffect(() => {
    const box = timelineBox.current;
    if (pinnedAt.current === null || !box) return;
    const list = box.closest('[aria-label="Messages"]');
    const moved = box.getBoundingClientRect().top - pinnedAt.current;
    if (list && moved !== 0) list.scrollTop += moved;
    if (choosing?.state !== 'loading') pinnedAt.current = null;
  });
  return { timelineBox, chooseCall };
}
