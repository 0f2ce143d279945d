/** The header's context meter: the agent's last ACP usage_update, used / size and percent. */
import { useQuery } from '@tanstack/react-query';
import { usageQueries } from '../api/usage';
import { fmt } from '../shared/format';

export function ContextMeter({ workspaceId, sessionId }: { workspaceId: string; sessionId: string | null }) {
  const usage = useQuery(usageQueries.latest(workspaceId, sessionId));
  if (usage.isPending) return <span className="context-meter muted">Context: loading…</span>;
  if (usage.isError) return <span className="context-meter muted">Context: unavailable</span>;
  const latest = usage.data.latest;
  if (!latest) return <span className="context-meter muted">Context: no usage reported yet</span>;
  const percent = latest.percent;
  return (
    <span className="context-meter" title={`Last ACP usage_update: ${new Date(latest.recordedAt).toLocaleString()}`}>
      <span>
        Context {fmt(latest.contextUsed)}
        {latest.contextSize ? ` / ${fmt(latest.contextSize)}` : ''}
        {percent === null ? '' : ` · ${percent.toFixed(1)}%`}
      </span>
      {percent !== null && (
        <meter
          min={0}
          max={100}
          low={60}
          high={80}
          optimum={0}
          value={Math.min(100, percent)}
          aria-label="Context window used"
        />
      )}
    </span>
  );
}
