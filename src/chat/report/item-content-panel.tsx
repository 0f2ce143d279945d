/**
 * The second step of disclosure: an item's text, loaded only when the user asks, one bounded
 * page at a time, pinned to the report's snapshot.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { contentQueries } from '../../api/context-report';
import { ApiError } from '../../api/http';
import { fmt } from '../../shared/format';
import { Pager } from './pager';

export interface ContentTarget {
  workspaceId: string;
  sessionId: string | null;
  snapshotId: string;
  /** The report is as of this model call: its items' text is too. */
  call?: number | undefined;
}

export function ItemContentPanel({
  target,
  itemId,
  label,
  focusOnOpen = false,
  onClose,
}: {
  target: ContentTarget;
  itemId: string;
  label: string;
  /** Move focus here when it opens (a suggestion's "Show the text"). */
  focusOnOpen?: boolean;
  onClose: () => void;
}) {
  const [page, setPage] = useState(0);
  const content = useQuery(contentQueries.item(target, itemId, page));
  const headingId = useId();
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!focusOnOpen) return;
    ref.current?.scrollIntoView?.({ block: 'nearest' });
    ref.current?.focus({ preventScroll: true });
  }, [focusOnOpen]);
  return (
    <section
      className="item-content"
      aria-label={`Content of ${label}`}
      ref={ref}
      tabIndex={-1}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.stopPropagation();
        onClose();
      }}
    >
      <header className="item-content-header">
        <strong id={headingId}>{label}</strong>
        <button type="button" onClick={onClose} aria-label={`Close the content of ${label}`}>
          Close
        </button>
      </header>
      {content.isPending && <p role="status">Loading content…</p>}
      {content.isError && (
        <p role="alert" className="report-error">
          {content.error instanceof ApiError && content.error.code === 'context_changed'
            ? 'The context has changed since this report was made. Run /debug again to see the current content.'
            : content.error.message}
        </p>
      )}
      {content.isSuccess && (
        <>
          {content.data.omissions.map((omission) => (
            <p key={omission} className="omission">
              Omitted: {omission}
            </p>
          ))}
          <pre className="item-text" tabIndex={0} aria-labelledby={headingId}>
            {content.data.text}
          </pre>
          {content.data.pageCount > 1 ? (
            <Pager
              label="Content pages"
              unit="page"
              page={page}
              pageCount={content.data.pageCount}
              summary={`${fmt(content.data.totalChars)} characters`}
              onPage={setPage}
            />
          ) : (
            <p className="muted small">Page 1 of 1 · {fmt(content.data.totalChars)} characters · Esc closes</p>
          )}
        </>
      )}
    </section>
  );
}
