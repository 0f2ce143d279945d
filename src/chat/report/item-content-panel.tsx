/**
 * The second step of disclosure: an item's text, loaded only when the user asks, one bounded
 * page at a time, pinned to the report's snapshot.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { contentQueries } from '../../api/context-report';
import { ApiError } from '../../api/http';
import { fmt } from './format';

export interface ContentTarget {
  workspaceId: string;
  sessionId: string | null;
  snapshotId: string;
}

export function ItemContentPanel({ target, itemId, label, onClose }: { target: ContentTarget; itemId: string; label: string; onClose: () => void }) {
  const [page, setPage] = useState(0);
  const content = useQuery(contentQueries.item(target, itemId, page));
  return (
    <section className="item-content" aria-label={`Content of ${label}`}>
      <header className="item-content-header">
        <strong>{label}</strong>
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
          <pre className="item-text" tabIndex={0}>
            {content.data.text}
          </pre>
          <nav className="pager" aria-label="Content pages">
            <button type="button" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
              Previous page
            </button>
            <span>
              Page {page + 1} of {content.data.pageCount} · {fmt(content.data.totalChars)} characters
            </span>
            <button type="button" disabled={page + 1 >= content.data.pageCount} onClick={() => setPage((p) => p + 1)}>
              Next page
            </button>
          </nav>
        </>
      )}
    </section>
  );
}
