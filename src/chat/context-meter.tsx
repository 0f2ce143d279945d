/**
 * The header's context meter: the agent's last reported total (ACP usage_update), used / size and percent — or,
 * for a session no agent reported on (imported from an OpenCode export), its last model call's prompt as the
 * provider counted it, which it says. It is also the way in to the breakdown: pressing it runs /debug.
 */
import { useQuery } from '@tanstack/react-query';
import { isApiError } from '../api/http';
import { usageQueries } from '../api/usage';
import { fmt } from '../shared/format';
import { absoluteTime } from './relative-time';
import { shareText } from './share-text';

export function ContextMeter({
  workspaceId,
  sessionId,
  onOpen,
}: {
  workspaceId: string;
  sessionId: string | null;
  onOpen: () => void;
}) {
  const usage = useQuery(usageQueries.latest(workspaceId, sessionId));
  if (usage.isPending) return <span className="context-meter muted">Context: loading…</span>;
  // A session the agent has only just started has no rows yet: nothing reported, not unavailable.
  const noSessionYet = usage.isError && isApiError(usage.error, 'session_not_found');
  if (usage.isError && !noSessionYet) return <span className="context-meter muted">Context: unavailable</span>;
  const latest = usage.data?.latest ?? null;
  if (!latest)
    return (
      <button type="button" className="context-meter" onClick={onOpen} title="Show what fills the context (/debug)">
        Context: no usage reported yet
      </button>
    );
  const provider = latest.source === 'provider';
  const percent = latest.contextSize ? (latest.contextUsed / latest.contextSize) * 100 : latest.percent;
  const pctText = latest.contextSize
    ? shareText(latest.contextUsed, latest.contextSize)
    : percent === null
      ? ''
      : `${percent.toFixed(1)}%`;
  return (
    <button
      type="button"
      className="context-meter"
      onClick={onOpen}
      title={`${
        provider
          ? "The last model call's prompt as the provider counted it (no agent total was recorded for this session)"
          : 'As the agent last reported it'
      }, ${absoluteTime(Date.parse(latest.recordedAt))} — press to see what fills it (/debug)`}
    >
      <span className="meter-text">
        Context {fmt(latest.contextUsed)}
        {latest.contextSize ? ` / ${fmt(latest.contextSize)}` : ''}
        {pctText ? <span className="meter-percent"> · {pctText}</span> : null}
        {provider ? <span className="meter-source"> · provider&rsquo;s count of the last call</span> : null}
        <span className="visually-hidden"> — show what fills it</span>
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
    </button>
  );
}
