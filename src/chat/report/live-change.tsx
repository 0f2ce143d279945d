/**
 * A suggestion's change made on the live agent (contract §7 `change.request`): a button the user
 * presses, with what the change frees and costs said on it — never pressed for them —, then the
 * turn's outcome: the context now against before, from a fresh report of the session the change
 * left (the same one after a compaction, the new one after a hand-off). A report as of an earlier
 * call, or of an imported session, carries no request and shows no button.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { agentQueries, streamTurn } from '../../api/agent';
import { getContextReport } from '../../api/context-report';
import { messageQueries } from '../../api/messages';
import { usageQueries } from '../../api/usage';
import { workspaceQueries } from '../../api/workspace';
import { suggestionFrees } from '../../shared/advice-text';
import { fmt } from '../../shared/format';
import type { ContextReport, Suggestion } from '../../shared/wire';

/** What the button says, by change kind. */
const ACTIONS: Record<string, string> = {
  compact: 'Compact the session now',
  new_session: 'Start the new session with this hand-off',
  revert: 'Revert to before this message',
};

type State =
  | { step: 'idle' }
  | { step: 'running' }
  | {
      step: 'done';
      before: number | null;
      now: number | null;
      sessionId: string | null;
      newSession: boolean;
      /** A revert makes no model call: `now` is what the next one will carry, not a count yet. */
      expected?: boolean;
    }
  | { step: 'failed'; message: string };

/**
 * What the next call's prompt holds as a report counts it: its total, less what has left the
 * context since the last measured call (after a compaction, the history it summarised).
 */
export function contextNow(report: ContextReport): number | null {
  if (!report.actual) return null;
  const left = (report.remainder ?? []).filter((r) => r.kind === 'left_since_call').reduce((n, r) => n + r.tokens, 0);
  return report.actual.contextUsed - left;
}

export function LiveChange({
  report,
  suggestion,
  inline = false,
}: {
  report: ContextReport;
  suggestion: Suggestion;
  /** In a line that already says the price (the verdict's): the button and its result only, on that line. */
  inline?: boolean;
}) {
  const request = suggestion.change?.request;
  const [state, setState] = useState<State>({ step: 'idle' });
  const queryClient = useQueryClient();
  if (!request || !suggestion.change) return null;
  const kind = suggestion.change.kind;

  const run = async () => {
    setState({ step: 'running' });
    const turn: { sessionId: string | null; newSession: boolean } = { sessionId: report.sessionId, newSession: false };
    let failure: string | null = null;
    try {
      await streamTurn(request.path, request.body ?? {}, {
        onEvent: (event) => {
          if (event.type === 'turn') {
            turn.sessionId = event.sessionId;
            turn.newSession = event.newSession;
          }
          if (event.type === 'error') failure = event.message;
        },
      });
      if (failure) throw new Error(failure);
      const before = contextNow(report);
      if (kind === 'revert') {
        // No call has counted the reverted session yet: the report's figure is what the next one carries.
        const now = before === null ? null : before - suggestion.frees.tokens;
        setState({ step: 'done', before, now, ...turn, expected: true });
      } else {
        const fresh = await getContextReport(report.workspaceId, turn.sessionId);
        setState({ step: 'done', before, now: contextNow(fresh), ...turn });
      }
      // The chat, the meter and the session list follow the session as it is now (this report
      // stays as it was: the result reads against it).
      for (const queryKey of [messageQueries.all(), usageQueries.all(), workspaceQueries.all(), agentQueries.all()])
        void queryClient.invalidateQueries({ queryKey });
    } catch (error) {
      setState({
        step: 'failed',
        message: error instanceof Error ? error.message : 'The change could not be made.',
      });
    }
  };

  const button = (
    <button
      type="button"
      className="live-change-button"
      disabled={state.step === 'running' || state.step === 'done'}
      onClick={() => void run()}
    >
      {ACTIONS[kind] ?? 'Make the change'}
    </button>
  );
  if (inline)
    return (
      <span className="live-change live-change-inline" role="group" aria-label="Make the change on the agent">
        {button} {/* Polite like a status, but not one: the change's own Copy status shares this line's group. */}
        <span className="live-change-result" aria-live="polite">
          {resultText(state)}
        </span>
      </span>
    );
  return (
    <div className="live-change" role="group" aria-label="Make the change on the agent">
      {button} <span className="live-change-price muted">{suggestionFrees(report, suggestion.frees, suggestion)}.</span>
      <p className="live-change-result" role="status">
        {resultText(state)}
      </p>
    </div>
  );
}

function resultText(state: State): string {
  switch (state.step) {
    case 'idle':
      return '';
    case 'running':
      return 'The agent is making the change…';
    case 'failed':
      return `Not done: ${state.message}`;
    case 'done': {
      if (state.expected)
        return `Done: reverted. Its next call carries about ${state.now === null ? 'less' : `${fmt(state.now)} tokens`}${state.before === null ? '' : ` (before the change: ${fmt(state.before)} tokens)`}; the meter shows it once that call is made.`;
      const where = state.newSession ? `The new session ${state.sessionId ?? ''} holds` : 'The context now holds';
      const now = state.now === null ? 'no total yet' : `${fmt(state.now)} tokens`;
      const before = state.before === null ? '' : ` (before the change: ${fmt(state.before)} tokens)`;
      return `Done. ${where} ${now}${before}.`;
    }
  }
}
