/** Previous / next through zero-based pages, with a summary in between. */
export function Pager(props: {
  label: string;
  page: number;
  pageCount: number;
  unit: 'page' | 'blocks';
  summary: string;
  onPage: (page: number) => void;
}) {
  const { label, page, pageCount, unit, summary, onPage } = props;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" disabled={page === 0} onClick={() => onPage(page - 1)}>
        Previous {unit}
      </button>
      <span>
        Page {page + 1} of {pageCount} · {summary}
      </span>
      <button type="button" disabled={page + 1 >= pageCount} onClick={() => onPage(page + 1)}>
        Next {unit}
      </button>
    </nav>
  );
}
