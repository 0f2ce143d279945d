/**
 * One tool call, live or saved, the same way: the runtime's tool name, what it did (paths relative
 * to the workspace), its outcome — a refusal says who refused it — and, expanded, its input,
 * output and error.
 */
import type { ToolCallView } from '../shared/tool-calls';

export function ToolCallRow({ call, as: Tag = 'div' }: { call: ToolCallView; as?: 'div' | 'li' }) {
  const expandable = call.input !== null || call.output !== null || call.error !== null;
  const status = `${call.outcomeText}${call.pruned ? ' · output cleared' : ''}`;
  const head = (
    <>
      <span className="tool-name">{call.name}</span>
      <span className="tool-title" title={call.summary}>
        {call.summary}
      </span>
      <span className="tool-status">{status}</span>
    </>
  );
  return (
    <Tag className={`tool-call tool-${call.outcome}`}>
      {expandable ? (
        <details className="tool-details">
          <summary className="tool-row">{head}</summary>
          <div className="tool-body">
            {call.input !== null && (
              <>
                <p className="tool-label">Input</p>
                <pre tabIndex={0}>{call.input}</pre>
              </>
            )}
            {call.output !== null && (
              <>
                <p className="tool-label">
                  Output{call.pruned ? ' (the agent’s runtime has since cleared it from the context)' : ''}
                </p>
                <pre tabIndex={0}>{call.output}</pre>
              </>
            )}
            {call.error !== null && (
              <>
                <p className="tool-label">Error</p>
                <pre tabIndex={0}>{call.error}</pre>
              </>
            )}
          </div>
        </details>
      ) : (
        <div className="tool-row">{head}</div>
      )}
      {call.reason && <p className="tool-reason">{call.reason}</p>}
    </Tag>
  );
}
