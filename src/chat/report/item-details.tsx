/**
 * What some items carry besides their figures, shown under their row: the runtime's measured
 * item in parts (its system prompt, environment, each tool's schema, each MCP server's tools —
 * the parts sum to the item), or why it stays one block; and a task call's subagent: what its
 * own session consumed, with the way to its own report.
 */
import { fmt, fmtPct } from '../../shared/format';
import { fmtCost, runtimeChangeText, runtimeFigures } from '../../shared/report-figures';
import type { ContextReport, ReportItem, RuntimePart } from '../../shared/wire';
import { WrapPoints } from '../wrap-points';

/**
 * The runtime item's parts, in the order the request reads; or, without recorded parts, why —
 * and each time the rows show it changed, with the reason (runtimeFigures: the same in every view).
 */
export function RuntimeParts({ report }: { report: ContextReport }) {
  const runtime = runtimeFigures(report);
  if (!runtime) return null;
  const changes = runtime.changes.length > 0 && (
    <ul className="item-note runtime-changes">
      {runtime.changes.map((change) => (
        <li key={change.call}>{runtimeChangeText(change)}.</li>
      ))}
    </ul>
  );
  const parts = runtime.parts;
  if (!parts) {
    return (
      <>
        <p className="item-note muted">
          One measured block{runtime.oneBlockBecause ? `: ${runtime.oneBlockBecause}` : '.'}
        </p>
        {changes}
      </>
    );
  }
  return (
    <>
      <table className="parts-table">
        <caption>
          {runtime.item.label}, part of {runtime.sourceLabel}, in {parts.length} parts
          {runtime.recordedFor ? ` (${runtime.recordedFor})` : ''}: its measured {fmt(runtime.tokens)} tokens by part,
          each part’s tokens and its Used %
        </caption>
        <thead>
          <tr>
            <th scope="col">Part</th>
            <th scope="col" className="num">
              Tokens
            </th>
            <th scope="col" className="num">
              Used %
            </th>
          </tr>
        </thead>
        <tbody>
          {parts.map((part, i) => (
            <tr key={`${part.kind}-${part.name ?? i}`}>
              <th scope="row">
                <span className="item-label">
                  <WrapPoints text={part.label} />
                </span>
                <PartNote part={part} />
              </th>
              <td className="num">{fmt(part.tokens)}</td>
              <td className="num">{fmtPct(part.percentOfUsed)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {changes}
    </>
  );
}

function PartNote({ part }: { part: RuntimePart }) {
  if (part.kind === 'tool' && part.called === false) return <span className="badge">never called</span>;
  if (part.kind === 'mcp_server' && part.tools) {
    const unused = part.tools.filter((t) => !t.called).length;
    return (
      <span className="part-tools muted">
        {' '}
        {part.tools.map((t) => `${t.name}${t.called ? '' : ' (never called)'}`).join(', ')}
        {unused === part.tools.length ? ' — none called' : ''}
      </span>
    );
  }
  return null;
}

/** A task call's subagent: its session's total and largest sources, and a way to its own report. */
export function SubagentSummary({ item, onOpen }: { item: ReportItem; onOpen?: (sessionId: string) => void }) {
  const sub = item.subagent;
  if (!sub) return null;
  const who = sub.agent ? `the ${sub.agent} subagent` : 'a subagent';
  if (!sub.stored)
    return (
      <p className="item-note muted">
        Handed to {who}, whose session ({sub.sessionId}) is not stored in this workspace.
      </p>
    );
  return (
    <p className="item-note subagent-note">
      Handed to {who}: its own session
      {typeof sub.total === 'number'
        ? ` reached ${fmt(sub.total)} tokens${sub.calls ? ` in ${fmt(sub.calls)} call${sub.calls === 1 ? '' : 's'}` : ''}`
        : ' has no measured call'}
      {sub.largest && sub.largest.length > 0
        ? ` — largest: ${sub.largest.map((s) => `${s.label} ${fmt(s.tokens)}`).join(', ')}`
        : ''}
      {sub.cost ? `; it cost ${fmtCost(sub.cost.amount, sub.cost.currency)}` : ''}.{' '}
      {onOpen && (
        <button type="button" className="link" onClick={() => onOpen(sub.sessionId)}>
          Open its report<span className="visually-hidden">: {sub.description}</span>
        </button>
      )}
    </p>
  );
}
