/** One block of the reader: its source, label and tokens, and (unless folded) its text, revealable in full. */
import { fmt } from '../../shared/format';
import type { ReaderPage } from '../../shared/wire';
import { WrapPoints } from '../wrap-points';
import { ItemContentPanel, type ContentTarget } from './item-content-panel';
import type { ReportModel } from './report-model';
import { colorVar } from './source-style';

export function ReaderBlock({
  model,
  target,
  block,
  folded,
  current,
  revealed,
  onReveal,
}: {
  model: ReportModel;
  target: ContentTarget;
  block: ReaderPage['blocks'][number];
  /** Another source is focused: the block shows one line. */
  folded: boolean;
  /** The focused source's block that previous/next stand on. */
  current: boolean;
  revealed: boolean;
  onReveal: (itemId: string | null) => void;
}) {
  return (
    <li
      className={`reader-block${folded ? ' folded' : ''}${current ? ' current' : ''}`}
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
          {block.truncated && !revealed && (
            <button type="button" className="small-button" onClick={() => onReveal(block.itemId)}>
              Reveal full text
            </button>
          )}
          {revealed && (
            <ItemContentPanel
              target={target}
              itemId={block.itemId}
              label={block.label}
              focusOnOpen
              onClose={() => onReveal(null)}
            />
          )}
        </>
      )}
    </li>
  );
}
