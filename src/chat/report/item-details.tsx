/**
 * What some items carry besides their figures, shown under their row: the runtime's measured
 * item in parts (its system prompt, environment, each tool's schema, each MCP server's tools —
 * the parts sum to the item), or why it stays one block; and a task call's subagent: what its
 * own session consumed, with the way to its own report.
 */
import { fmt, fmtPct } from '../../shared/format';
import { fmtCost } from '../../shared/report-figures';
import type { ContextReport, ReportItem, RuntimePart } from '../../shared/wire';

/** The runtime item's parts, in the order the request reads; or, without recorded parts, why. */
export function RuntimeParts({ item, report }: { item: ReportItem; report: ContextReport }) {
  const parts = item.parts;
  if (!parts) {
    const why = report.calibration?.runtime?.parts;
    return (
      <p className="item-note muted">
        One measured block{why && !why.recorded ? `: ${why.reason ?? 'no parts were recorded'}` : '.'}
      </p>
    );
  }
  const recorded = report.calibration?.runtime?.parts;
  return (
    <table className="parts-table">
      <caption>
        {item.label} in {parts.length} parts
        {recorded?.agent ? ` (the ${recorded.agent} agent${recorded.model ? ` on ${recorded.model}` : ''})` : ''}: each
        part’s share of the measured {fmt(item.scaledTokens ?? item.estimatedTokens)} tokens, by its own estimate
      </caption>
      <thead>
        <tr>
          <th scope="col">Part</th>
          <th scope="col" className="num">
            Tokens
          </th>
          <th scope="col" className="num">
            Share
          </th>
        </tr>
      </thead>
      <tbody>
        {parts.map((part, i) => (
          <tr key={`${part.kind}-${part.name ?? i}`}>
            <th scope="row">
              <span className="item-label">{part.label}</span>
              <PartNote part={part} />
            </th>
            <td className="num">{fmt(part.tokens)}</td>
            <td className="num">{fmtPct(part.percentOfUsed)}</td>
          </tr>
        ))}
      </tbody>
    </table>
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
