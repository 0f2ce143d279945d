/**
 * The live context in request order — instructions, skill catalog, then the history as the
 * model sees it after compaction and pruning — each block coloured by its source. Choosing a
 * source focuses its blocks without moving anything.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { contentQueries } from '../../api/context-report';
import { sourceLabel } from '../../shared/sources';
import { fmt } from '../../shared/format';
import { Pager } from './pager';
import { ItemContentPanel, type ContentTarget } from './item-content-panel';

export function ReaderView({ target, onClose }: { target: ContentTarget; onClose: () => void }) {
  const [page, setPage] = useState(0);
  const [focus, setFocus] = useState<string | null>(null);
  const [revealed, setRevealed] = useState<string | null>(null);
  const reader = useQuery(contentQueries.reader(target, page));
  const sources = reader.data ? [...new Set(reader.data.blocks.map((b) => b.source))] : [];
  return (
    <section className="reader" aria-label="Context in request order">
      <header className="item-content-header">
        <strong>Reader — the context in the order the model reads it</strong>
        <button type="button" onClick={onClose}>
          Close reader
        </button>
      </header>
      {reader.isPending && <p role="status">Loading the reader…</p>}
      {reader.isError && <p role="alert">{reader.error.message}</p>}
      {reader.isSuccess && (
        <>
          <div className="reader-focus" role="group" aria-label="Focus on a source">
            <button type="button" aria-pressed={focus === null} onClick={() => setFocus(null)}>
              All
            </button>
            {sources.map((id) => (
              <button
                key={id}
                type="button"
                aria-pressed={focus === id}
                onClick={() => setFocus(focus === id ? null : id)}
              >
                <span className={`swatch src-${id}`} aria-hidden="true" />
                {sourceLabel(id)}
              </button>
            ))}
          </div>
          <ol className="reader-blocks" start={page * 200 + 1}>
            {reader.data.blocks.map((block) => (
              <li
                key={block.itemId}
                className={`reader-block block-${block.source}${focus && focus !== block.source ? ' unfocused' : ''}`}
                data-source={block.source}
              >
                <div className="reader-block-meta">
                  <span className="reader-source">{sourceLabel(block.source)}</span>
                  <span className="reader-label">{block.label}</span>
                  <span className="muted">≈{fmt(block.estimatedTokens)} tokens</span>
                </div>
                <pre className="reader-preview">{block.preview}</pre>
                {block.truncated && revealed !== block.itemId && (
                  <button type="button" onClick={() => setRevealed(block.itemId)}>
                    Reveal full text
                  </button>
                )}
                {revealed === block.itemId && (
                  <ItemContentPanel
                    target={target}
                    itemId={block.itemId}
                    label={block.label}
                    onClose={() => setRevealed(null)}
                  />
                )}
              </li>
            ))}
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
    </section>
  );
}
