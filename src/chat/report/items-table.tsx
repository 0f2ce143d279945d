/**
 * A source's items, largest first: item, tokens, share, and Reveal (the runtime's item: its
 * parts; a task call: its subagent's session). Rows are added in steps
 * (the first 25, then 100 more at a time) so a source of 200 items never costs one long task,
 * and the list stays in the chat's own scroll — no box scrolling inside a box.
 */
import { useState } from 'react';
import { fmt, fmtBytes } from '../../shared/format';
import type { ReportItem, ReportSource } from '../../shared/wire';
import { ItemContentPanel, type ContentTarget } from './item-content-panel';
import { RuntimeParts, SubagentSummary } from './item-details';
import { itemShare, shareText, type ReportModel } from './report-model';
import { itemTokens, repeatMark } from '../../shared/report-figures';
import { WrapPoints } from '../wrap-points';

const FIRST = 25;
const STEP = 100;

export const revealButtonId = (prefix: string, itemId: string) => `${prefix}-reveal-${itemId}`;

export interface Revealed {
  itemId: string;
  label: string;
  /** Opened from elsewhere (a suggestion): focus moves to the text. */
  focus: boolean;
}

type ItemsTableProps = {
  model: ReportModel;
  source: ReportSource;
  idPrefix: string;
  target: ContentTarget;
  revealed: Revealed | null;
  onReveal: (item: ReportItem) => void;
  onCloseReveal: () => void;
  /** A subagent's session: its own report. */
  onOpenSession?: (sessionId: string) => void;
};

export function ItemsTable(props: ItemsTableProps) {
  const { model, source, revealed } = props;
  const [shown, setShown] = useState(FIRST);
  const [partsOpen, setPartsOpen] = useState(false);
  const revealedIndex = revealed ? source.items.findIndex((i) => i.id === revealed.itemId) : -1;
  const count = Math.min(source.items.length, Math.max(shown, revealedIndex + 1));
  const hidden = source.items.length - count;
  return (
    <table className="items-table" aria-rowcount={source.items.length + (source.more.itemCount > 0 ? 2 : 1)}>
      <caption className="visually-hidden">Largest items of {source.label}</caption>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col" className="num">
            Tokens
          </th>
          <th scope="col" className="num">
            Used %
          </th>
        </tr>
      </thead>
      <tbody>
        {source.items.slice(0, count).map((item) => (
          <ItemRow
            key={item.id}
            {...props}
            item={item}
            partsOpen={partsOpen}
            onToggleParts={() => setPartsOpen((v) => !v)}
          />
        ))}
        {hidden > 0 && (
          <tr className="more-row">
            <td colSpan={3}>
              <button type="button" className="link" onClick={() => setShown(count + STEP)}>
                Show {fmt(Math.min(STEP, hidden))} more of {fmt(source.items.length)} items
              </button>
            </td>
          </tr>
        )}
        <ItemsTail model={model} source={source} count={count} />
      </tbody>
    </table>
  );
}

/** An item's row, and under it its runtime parts or its revealed text when open. */
function ItemRow(props: ItemsTableProps & { item: ReportItem; partsOpen: boolean; onToggleParts: () => void }) {
  const { model, target, revealed, onCloseReveal, onOpenSession, item, partsOpen } = props;
  const open = revealed?.itemId === item.id;
  return (
    <>
      <tr>
        <th
          scope="row"
          title={`${item.label}\n${item.sourceRef}\n≈${fmt(item.estimatedTokens)} estimated · ${fmtBytes(item.bytes)}`}
        >
          <span className="item-label">
            <WrapPoints text={item.label} />
          </span>
          <ItemTools {...props} open={open} />
          {item.subagent && <SubagentSummary item={item} {...(onOpenSession ? { onOpen: onOpenSession } : {})} />}
        </th>
        <td className="num">
          {/* ≈: an estimate (no total yet), or an estimated share of what its call added. */}
          {model.estimatesOnly || (model.mode === 'measured' && !item.measured) ? '≈' : ''}
          {fmt(itemTokens(item, model.estimatesOnly))}
        </td>
        <td className="num">{itemShare(model, item)}</td>
      </tr>
      {item.runtime && partsOpen && (
        <tr className="reveal-row parts-row">
          <td colSpan={3}>
            <RuntimeParts report={model.report} />
          </td>
        </tr>
      )}
      {open && (
        <tr className="reveal-row">
          <td colSpan={3}>
            <ItemContentPanel
              target={target}
              itemId={item.id}
              label={item.label}
              focusOnOpen={revealed.focus}
              onClose={onCloseReveal}
            />
          </td>
        </tr>
      )}
    </>
  );
}

/** An item's badges and buttons: repeated reads, the runtime's parts, Reveal. */
function ItemTools({
  idPrefix,
  item,
  open,
  partsOpen,
  onToggleParts,
  onReveal,
  onCloseReveal,
}: ItemsTableProps & { item: ReportItem; open: boolean; partsOpen: boolean; onToggleParts: () => void }) {
  return (
    <span className="item-tools">
      {repeatMark(item) && (
        <span className={`badge${item.duplicate!.ordinal > 1 ? ' badge-warn' : ''}`}>{repeatMark(item)}</span>
      )}
      {item.runtime && (
        <button type="button" className="reveal" aria-expanded={partsOpen} onClick={onToggleParts}>
          {item.parts ? `Parts (${item.parts.length})` : 'Why one block?'}
          <span className="visually-hidden">: {item.label}</span>
        </button>
      )}
      {item.runtime ? (
        <span className="badge">measured; its text is not visible to the server</span>
      ) : (
        <button
          type="button"
          className="reveal"
          id={revealButtonId(idPrefix, item.id)}
          aria-expanded={open}
          onClick={() => (open ? onCloseReveal() : onReveal(item))}
          aria-label={`Reveal content: ${item.label}`}
        >
          Reveal
        </button>
      )}
    </span>
  );
}

/** Under the listed items: what ≈ means there, and the smaller items not listed. */
function ItemsTail({ model, source, count }: { model: ReportModel; source: ReportSource; count: number }) {
  return (
    <>
      {!model.estimatesOnly &&
        model.mode === 'measured' &&
        source.items.slice(0, count).some((i) => !i.runtime && !i.measured) && (
          <tr className="more-row">
            <td colSpan={3} className="muted small">
              ≈ an estimated share: the model call that added the item added more with it, and its measured growth was
              shared out by estimate.
            </td>
          </tr>
        )}
      {source.more.itemCount > 0 && (
        <tr className="more-row">
          <th scope="row">
            … {fmt(source.more.itemCount)} smaller {source.more.itemCount === 1 ? 'item' : 'items'} not listed
          </th>
          <td className="num">
            {model.estimatesOnly ? `≈${fmt(source.more.estimatedTokens)}` : fmt(source.more.scaledTokens)}
          </td>
          <td className="num">
            {shareText(
              model.estimatesOnly ? source.more.estimatedTokens : (source.more.scaledTokens ?? 0),
              model.total,
            )}
          </td>
        </tr>
      )}
    </>
  );
}
