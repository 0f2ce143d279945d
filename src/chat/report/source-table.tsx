/**
 * One row per source and per remainder row, in the report's one order: source, tokens, share —
 * and the change since the previous /debug on wide screens — then the Total (the sum of each
 * column: the agent's total) and one line for the sources with nothing in context. Everything
 * else (how the figure was made, the estimate, bytes, item count, what changed) is in the
 * expanded row, above the source's items.
 */
import { Fragment } from 'react';
import { fmt, fmtBytes } from '../../shared/format';
import { runtimeTitle } from '../../shared/report-text';
import { costCells, costOutsideText, fmtCost, folderLines } from '../../shared/report-figures';
import type { ReportItem } from '../../shared/wire';
import type { ContentTarget } from './item-content-panel';
import { ItemsTable, type Revealed } from './items-table';
import { plural, signed, type ReportChange, type ReportModel, type Row, type SourceChange } from './report-model';
import { colorVar } from './source-style';
import { useNarrow } from '../use-narrow';
import { WrapPoints } from '../wrap-points';

const BASIS: Record<string, string> = {
  measured: 'as the provider counted it',
  estimated: 'estimated',
  mixed: 'partly counted by the provider, partly estimated',
  scaled: 'estimated, then shared out in proportion to the total',
};

/** What a source whose name alone does not say holds: on its label (hover) and in its expanded row. */
const WHAT_IT_HOLDS: Record<string, string> = {
  unknown_tool_payload:
    'Tool calls, and their results, that name no file, web address or working folder: nothing says which source they belong to.',
};

/** The id of a row's disclosure button: the bar and the verdict move focus there. */
export const toggleId = (prefix: string, key: string) => `${prefix}-toggle-${key.replace(/[^\w-]/g, '_')}`;

type SourceTableProps = {
  model: ReportModel;
  change: ReportChange | null;
  idPrefix: string;
  target: ContentTarget;
  open: ReadonlySet<string>;
  onToggle: (key: string) => void;
  revealed: Revealed | null;
  onReveal: (item: ReportItem) => void;
  onCloseReveal: () => void;
  onOpenReader: (source: string) => void;
  onOpenSession?: (sessionId: string) => void;
};

/** The columns as shown: the change only on wide screens, the cost only when the calls reported it. */
interface Columns {
  change: ReportChange | null;
  cost: ReturnType<typeof costCells>;
  money: (amount: number | undefined) => string;
  count: number;
}

export function SourceTable(props: SourceTableProps) {
  const { model } = props;
  // The change since the previous /debug: a column on wide screens; on a phone only the expanded
  // row says it (a column hidden by CSS would still widen the table through the rows' colspan).
  const narrow = useNarrow();
  const change = narrow ? null : props.change;
  // What each row cost over the session, when the calls reported their cost.
  const cost = costCells(model.report);
  const money = (amount: number | undefined) => (amount === undefined ? '' : fmtCost(amount, cost!.currency));
  const columns: Columns = { change, cost, money, count: (change ? 4 : 3) + (cost ? 1 : 0) };
  return (
    <table className="report-table">
      <caption className="visually-hidden">Context by semantic source, largest first, and the total</caption>
      <thead>
        <tr>
          <th scope="col">Source</th>
          <th scope="col" className="num">
            Tokens
          </th>
          <th scope="col" className="num">
            Used %
          </th>
          {change && (
            <th scope="col" className="num col-change">
              Change
            </th>
          )}
          {cost && (
            <th scope="col" className="num col-cost">
              Cost
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {model.rows.map((row) => (
          <SourceRow key={row.key} {...props} row={row} columns={columns} />
        ))}
      </tbody>
      <TableFoot model={model} columns={columns} />
    </table>
  );
}

/** A source's row and, when open, its expanded row. */
function SourceRow(props: SourceTableProps & { row: Row; columns: Columns }) {
  const { model, idPrefix, open, onToggle, row, columns } = props;
  const { change, cost, money } = columns;
  const expandable = row.source ? row.source.itemCount > 0 || row.source.items.length > 0 : true;
  const isOpen = open.has(row.key);
  const detailsId = `${idPrefix}-source-${row.key}`;
  const rowChange = change?.bySource.get(row.key) ?? null;
  return (
    <>
      <tr className={`source-row${row.tokens === 0 ? ' empty' : ''}`}>
        <th scope="row">
          <button
            type="button"
            id={toggleId(idPrefix, row.key)}
            className="disclosure"
            aria-expanded={expandable ? isOpen : undefined}
            aria-controls={expandable && isOpen ? detailsId : undefined}
            disabled={!expandable}
            onClick={() => onToggle(row.key)}
          >
            <span className="chevron" aria-hidden="true" />
            <span
              className={`swatch${row.source ? '' : ' swatch-unattributed'}`}
              style={colorVar(row.color)}
              aria-hidden="true"
            />
            <span className="source-label" title={WHAT_IT_HOLDS[row.key]}>
              <WrapPoints text={row.label} />
            </span>
          </button>
        </th>
        <td className="num">
          {model.estimatesOnly && row.tokens > 0 ? '≈' : ''}
          {fmt(row.tokens)}
        </td>
        <td className="num">{row.shareText}</td>
        {change && <td className="num col-change delta">{changeCell(rowChange)}</td>}
        {cost && <td className="num col-cost">{money(cost.byKey.get(row.key))}</td>}
      </tr>
      {isOpen && expandable && (
        <tr className="details-row" id={detailsId}>
          <td colSpan={columns.count}>
            <ExpandedSource {...props} />
          </td>
        </tr>
      )}
    </>
  );
}

/** An expanded row: the source's facts and change, the way to the reader, its folders, its items. */
function ExpandedSource(props: SourceTableProps & { row: Row }) {
  const { model, row } = props;
  return (
    <>
      <SourceDetails
        row={row}
        model={model}
        change={props.change?.bySource.get(row.key) ?? null}
        hasChange={props.change !== null}
      />
      {row.source && row.source.items.length > 0 && (
        <p className="source-facts">
          <button type="button" className="link" aria-haspopup="dialog" onClick={() => props.onOpenReader(row.key)}>
            Read {row.label} in context order
          </button>
        </p>
      )}
      {row.source?.folders?.length ? (
        <div className="folder-sums">
          <p className="muted small">By folder</p>
          <ul>
            {folderLines(row.source).map((line) => (
              <li key={line} className="small">
                <WrapPoints text={line} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {row.source && row.source.items.length > 0 && (
        <ItemsTable
          model={model}
          source={row.source}
          idPrefix={props.idPrefix}
          target={props.target}
          revealed={props.revealed}
          onReveal={props.onReveal}
          onCloseReveal={props.onCloseReveal}
          {...(props.onOpenSession ? { onOpenSession: props.onOpenSession } : {})}
        />
      )}
    </>
  );
}

/** The Total (each column's sum: the agent's total), cost spent outside the rows, and the empty sources. */
function TableFoot({ model, columns }: { model: ReportModel; columns: Columns }) {
  const { change, cost, money } = columns;
  const elsewhere = costOutsideText(model.report);
  return (
    <tfoot>
      <tr className="total-row">
        <th scope="row">Total</th>
        <td className="num">
          {model.estimatesOnly ? '≈' : ''}
          {fmt(model.figures.total.tokens)}
        </td>
        <td className="num">{model.figures.total.tokens > 0 ? '100.0%' : '—'}</td>
        {change && (
          <td className="num col-change delta">
            {change.totalDelta === null ? '—' : change.totalDelta === 0 ? '±0' : signed(change.totalDelta, fmt)}
          </td>
        )}
        {cost && <td className="num col-cost">{money(cost.total)}</td>}
      </tr>
      {elsewhere && (
        <tr className="empty-row">
          <td colSpan={columns.count}>{elsewhere}</td>
        </tr>
      )}
      {model.empty.length > 0 && (
        <tr className="empty-row">
          <td colSpan={columns.count}>
            Nothing in context from{' '}
            {model.empty.map((r, i) => (
              <Fragment key={r.key}>
                {i > 0 ? ', ' : ''}
                <span className="source-label" title={WHAT_IT_HOLDS[r.key]}>
                  {r.label}
                </span>
              </Fragment>
            ))}
            .
          </td>
        </tr>
      )}
    </tfoot>
  );
}

function changeCell(change: SourceChange | null): string {
  if (!change) return '';
  const parts: string[] = [];
  if (change.delta !== null && change.delta !== 0) parts.push(signed(change.delta, fmt));
  if (change.delta === null && (change.added.length || change.removed.length)) {
    if (change.added.length) parts.push(`+${change.added.length} items`);
    if (change.removed.length) parts.push(`−${change.removed.length} items`);
  }
  return parts.join(' ') || '—';
}

function SourceDetails({
  row,
  model,
  change,
  hasChange,
}: {
  row: Row;
  model: ReportModel;
  change: SourceChange | null;
  hasChange: boolean;
}) {
  const source = row.source;
  if (!source) return <p className="source-facts">{row.reason ?? 'In the agent’s total but in no source.'}</p>;
  const facts = [
    source.basis ? BASIS[source.basis] : null,
    model.estimatesOnly ? null : `≈${fmt(source.estimatedTokens)} by the server’s estimate`,
    fmtBytes(source.bytes),
    plural(source.itemCount, 'item'),
  ].filter(Boolean);
  return (
    <>
      {WHAT_IT_HOLDS[source.id] && <p className="source-facts">{WHAT_IT_HOLDS[source.id]}</p>}
      <p className="source-facts">
        {facts.join(' · ')}
        {row.runtimeTokens > 0 && (
          <>
            {' '}
            · of which {fmt(row.runtimeTokens)} tokens are {runtimeTitle(model.report)}’s own prompt and tools
            (measured; its parts below)
          </>
        )}
      </p>
      {hasChange && change && (
        <p className="source-change">
          Since the previous /debug:{' '}
          {change.delta === null ? 'tokens not compared (scaled figures)' : `${signed(change.delta, fmt)} tokens`}
          {change.added.length > 0 && ` · ${plural(change.added.length, 'item')} added`}
          {change.removed.length > 0 && ` · ${plural(change.removed.length, 'item')} removed`}
          {!change.complete && ' (among the listed items)'}
          {change.added.length > 0 && (
            <span className="changed-items">
              {' '}
              — new:{' '}
              {change.added
                .slice(0, 3)
                .map((i) => i.label)
                .join('; ')}
              {change.added.length > 3 ? '; …' : ''}
            </span>
          )}
        </p>
      )}
    </>
  );
}
