/**
 * The chat's one timeline: the persisted history, the local-only transcript and the agent's live
 * turns of the shown session, merged by time.
 */
import { useMemo } from 'react';
import type { TranscriptEntry } from '../commands';
import type { ChatMessage } from '../shared/wire';
import { coverage, type LiveTurn } from './live-turns';

export type TimelineEntry =
  | { at: number; persisted: ChatMessage; local: null; live: null }
  | { at: number; persisted: null; local: TranscriptEntry; live: null }
  | {
      at: number;
      persisted: null;
      local: null;
      /** `persisted`: the history holds the turn's messages; `userInHistory`: it holds the user's. */
      live: { turn: LiveTurn; persisted: boolean; userInHistory: boolean };
    };

export function useTimeline(
  history: { messages: readonly ChatMessage[] | undefined; updatedAt: number },
  local: readonly TranscriptEntry[],
  turns: readonly LiveTurn[],
  sessionId: string | null,
): TimelineEntry[] {
  const { messages, updatedAt } = history;
  return useMemo(() => {
    const persisted = (messages ?? []).map((m): TimelineEntry => ({
      at: m.timeCreated,
      persisted: m,
      local: null,
      live: null,
    }));
    const locals = local.map((m): TimelineEntry => ({ at: m.createdAt, persisted: null, local: m, live: null }));
    const live = turns
      .filter((turn) => turn.sessionId === sessionId)
      .map((turn): TimelineEntry => {
        const { persisted, userMessage } = coverage(turn, messages, updatedAt);
        // Never above the user's message the history already shows, whatever the clocks say; a
        // failure the history cannot show comes after the turn's messages.
        const at = Math.max(turn.startedAt, (userMessage?.timeCreated ?? 0) + 0.5, persisted ? (turn.endedAt ?? 0) : 0);
        return { at, persisted: null, local: null, live: { turn, persisted, userInHistory: userMessage !== null } };
      });
    return [...persisted, ...locals, ...live].sort((a, b) => a.at - b.at);
  }, [messages, updatedAt, local, turns, sessionId]);
}
