/**
 * /debug's output: pending, the error with Retry, or the report. What it compares with and
 * whether it is still current are derived here, not carried by the command: the previous report
 * is the last ready /debug output of the same workspace and session in the transcript; a report
 * is outdated once the chat's messages or the agent's usage move on after it was made; and an
 * older report folds to one line once a newer one of the same session is shown.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { messageQueries } from '../../api/messages';
import { usageQueries } from '../../api/usage';
import { workspaceQueries } from '../../api/workspace';
import type { DebugOutput, OutputEntry } from '../../commands';
import { fmt } from '../../shared/format';
import type { ContextReport, MessagesResponse } from '../../shared/wire';
import type { CommandViewProps } from '../command-view-types';
import { useCommandOutputs } from '../local-messages-store';
import { RelativeTime } from '../relative-time';
import { ContextReportView } from '../report/context-report-view';
import { sessionTitleOf } from '../session-title';

type Ready = Extract<DebugOutput['state'], { status: 'ready' }>;
const isReadyFor = (payload: DebugOutput) => (other: OutputEntry<DebugOutput>) =>
  other.payload.state.status === 'ready' &&
  other.payload.workspaceId === payload.workspaceId &&
  other.payload.sessionId === payload.sessionId;

/** Outputs whose report has taken focus once: a report shown again later does not take it again. */
const focused = new Set<string>();

export default function DebugView({ entry, actions }: CommandViewProps<DebugOutput>) {
  const { state } = entry.payload;
  if (state.status === 'pending') {
    return (
      <p role="status" className="pending">
        <span className="spinner" aria-hidden="true" /> Collecting context breakdown…
      </p>
    );
  }
  if (state.status === 'error') {
    return (
      <div role="alert" className="report-error">
        <strong>Context report failed</strong>
        <p>{state.message}</p>
        <button type="button" onClick={actions.retry}>
          Retry
        </button>
      </div>
    );
  }
  return <ReadyReport entry={entry} actions={actions} report={state.report} />;
}

function ReadyReport({ entry, actions, report }: CommandViewProps<DebugOutput> & { report: ContextReport }) {
  const outputs = useCommandOutputs<DebugOutput>(entry.workspaceId, 'debug');
  const index = outputs.findIndex((e) => e.id === entry.id);
  const same = isReadyFor(entry.payload);
  const previous = outputs.slice(0, Math.max(0, index)).findLast(same);
  const newer = outputs.slice(index + 1).some(same);
  const outdated = useOutdated(report, entry.payload);
  const [expanded, setExpanded] = useState(false);
  // The chat's own workspace query (never fetched from here): the session's title.
  const workspace = useQuery({ ...workspaceQueries.detail(entry.payload.workspaceId), enabled: false });
  const sessionTitle = sessionTitleOf(workspace.data, report.sessionId);

  if (newer && !expanded) {
    return (
      <div className="superseded">
        <p>
          <strong>Context report</strong> from <RelativeTime at={report.generatedAt} /> ·{' '}
          {report.actual ? `${fmt(report.actual.contextUsed)} tokens` : 'estimates only'} — a newer report of this
          session is below.
        </p>
        <button type="button" onClick={() => setExpanded(true)}>
          Show this report
        </button>
      </div>
    );
  }
  return (
    <ContextReportView
      report={report}
      previous={(previous?.payload.state as Ready | undefined)?.report ?? null}
      outdated={outdated}
      claimFocus={() => {
        if (focused.has(entry.id)) return false;
        focused.add(entry.id);
        return true;
      }}
      onRefresh={actions.rerun}
      onDraft={actions.draft}
      sessionTitle={sessionTitle}
      parentTitle={sessionTitleOf(workspace.data, report.parentSessionId ?? null)}
      onOpenSession={(sessionId) => actions.run(`/debug ${sessionId}`)}
      historyKey={entry.id}
      // An earlier report of the session, opened again beside the newer one: named apart from it.
      regionName={
        newer
          ? `${sessionTitle ?? report.sessionId ?? 'no session'}, the earlier report made ${report.generatedAt.slice(11, 19)} UTC`
          : undefined
      }
    />
  );
}

const signature = (data: MessagesResponse | undefined) => {
  const last = data?.messages.at(-1);
  return { count: data?.messages.length ?? null, key: last ? `${last.id}:${last.timeUpdated}` : null };
};

/** Watches the chat's own queries (never fetching for itself) for anything newer than the report. */
function useOutdated(report: ContextReport, payload: DebugOutput): string | null {
  // The session the report describes (the server resolves "none given" to the default one).
  const session = report.sessionId ?? payload.sessionId;
  const messages = useQuery({ ...messageQueries.list(payload.workspaceId, session), enabled: false });
  const usage = useQuery({ ...usageQueries.latest(payload.workspaceId, session), enabled: false });
  const [baseline] = useState(() => signature(messages.data));
  const now = signature(messages.data);
  if (baseline.count !== null && now.count !== null && (now.count !== baseline.count || now.key !== baseline.key)) {
    const added = now.count - baseline.count;
    return added > 0
      ? `${added} new ${added === 1 ? 'message' : 'messages'} since it was made`
      : 'the messages changed';
  }
  const latest = usage.data?.latest;
  if (latest && (!report.actual || Date.parse(latest.recordedAt) > Date.parse(report.actual.recordedAt)))
    return 'the agent made another model call since it was made';
  return null;
}
