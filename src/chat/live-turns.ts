/**
 * Live agent turns as the chat shows them while they stream: pure state, no React, no fetch.
 * A turn starts when the user sends text to the agent and folds in the server's events in order;
 * once its messages are persisted (`saved`) and the history was fetched after that, the history
 * shows it and the live view steps aside. A turn that failed keeps its error in place.
 */
import type { AgentEvent, TOOL_STATUSES } from '../shared/agent';
import type { ChatMessage } from '../shared/wire';

export type ToolStatus = (typeof TOOL_STATUSES)[number];

export interface LiveTool {
  toolCallId: string;
  title: string;
  kind?: string;
  status: ToolStatus;
  paths?: string[];
  /** The runtime's tool name, input, output and error, as far as the agent said. */
  tool?: string;
  input?: Record<string, unknown>;
  output?: string;
  error?: string;
}

/**
 * sending: asked, no answer yet; streaming: the turn runs; stopping: Stop was pressed;
 * done / stopped: the turn ended; failed: the server said it failed, or the connection was lost.
 */
export type TurnPhase = 'sending' | 'streaming' | 'stopping' | 'done' | 'stopped' | 'failed';

export interface LiveTurn {
  key: string;
  /** What the user sent. */
  text: string;
  startedAt: number;
  /** Ids of the messages the history held when the turn started: anything else is newer. */
  baseline: readonly string[];
  /** The session the turn runs in: the one asked for until the `turn` event says. */
  sessionId: string | null;
  turnId: string | null;
  reply: string;
  reasoning: string;
  tools: LiveTool[];
  permissions: { title: string; allowed: boolean }[];
  phase: TurnPhase;
  stopReason: string | null;
  /** Why it failed, in words. */
  error: string | null;
  /** The connection was lost: the turn may still be running, and finish, on the server. */
  lost: boolean;
  /** When the turn's messages were persisted (client clock): the history fetched after it has them. */
  savedAt: number | null;
  endedAt: number | null;
}

export type TurnAction =
  | { type: 'started'; key: string; text: string; sessionId: string | null; baseline: readonly string[]; at: number }
  | { type: 'event'; key: string; event: AgentEvent; at: number }
  | { type: 'stopping'; key: string }
  /** Stop did not reach the server: the turn goes on. */
  | { type: 'stop-failed'; key: string }
  | { type: 'failed'; key: string; message: string; lost: boolean; at: number }
  /** The server refused the prompt before the turn started: nothing was sent. */
  | { type: 'refused'; key: string }
  /** The server no longer runs the session's turn: lost turns are in the history now. */
  | { type: 'settled'; sessionId: string | null; at: number }
  | { type: 'dismissed'; key: string };

export const isActive = (turn: LiveTurn): boolean =>
  turn.phase === 'sending' || turn.phase === 'streaming' || turn.phase === 'stopping';

export function reduceTurns(turns: LiveTurn[], action: TurnAction): LiveTurn[] {
  switch (action.type) {
    case 'started': {
      // Turns the history already shows are not needed any more.
      const kept = turns.filter((t) => isActive(t) || t.savedAt === null || t.phase === 'failed');
      return [
        ...kept,
        {
          key: action.key,
          text: action.text,
          startedAt: action.at,
          baseline: action.baseline,
          sessionId: action.sessionId,
          turnId: null,
          reply: '',
          reasoning: '',
          tools: [],
          permissions: [],
          phase: 'sending',
          stopReason: null,
          error: null,
          lost: false,
          savedAt: null,
          endedAt: null,
        },
      ];
    }
    case 'event':
      return update(turns, action.key, (t) => applyEvent(t, action.event, action.at));
    case 'stopping':
      return update(turns, action.key, (t) => (isActive(t) ? { ...t, phase: 'stopping' } : t));
    case 'stop-failed':
      return update(turns, action.key, (t) => (t.phase === 'stopping' ? { ...t, phase: 'streaming' } : t));
    case 'failed':
      return update(turns, action.key, (t) =>
        isActive(t) ? { ...t, phase: 'failed', error: action.message, lost: action.lost, endedAt: action.at } : t,
      );
    case 'refused':
    case 'dismissed':
      return turns.filter((t) => t.key !== action.key);
    case 'settled': {
      const settles = (t: LiveTurn) => t.lost && t.savedAt === null && t.sessionId === action.sessionId;
      return turns.some(settles) ? turns.map((t) => (settles(t) ? { ...t, savedAt: action.at } : t)) : turns;
    }
  }
}

function update(turns: LiveTurn[], key: string, change: (turn: LiveTurn) => LiveTurn): LiveTurn[] {
  return turns.map((t) => (t.key === key ? change(t) : t));
}

export function applyEvent(turn: LiveTurn, event: AgentEvent, at: number): LiveTurn {
  switch (event.type) {
    case 'turn':
      return {
        ...turn,
        sessionId: event.sessionId,
        turnId: event.turnId,
        phase: turn.phase === 'sending' ? 'streaming' : turn.phase,
      };
    case 'text':
      return { ...turn, reply: turn.reply + event.text };
    case 'reasoning':
      return { ...turn, reasoning: turn.reasoning + event.text };
    case 'tool': {
      const index = turn.tools.findIndex((tool) => tool.toolCallId === event.toolCallId);
      const previous = index === -1 ? undefined : turn.tools[index];
      // An update says what changed: what it leaves out stays as the earlier ones said.
      const kept = <K extends 'kind' | 'paths' | 'tool' | 'input' | 'output' | 'error'>(key: K) =>
        (event[key] ?? previous?.[key]) !== undefined ? { [key]: event[key] ?? previous?.[key] } : {};
      const next: LiveTool = {
        toolCallId: event.toolCallId,
        title: event.title || previous?.title || '',
        status: event.status,
        ...kept('kind'),
        ...kept('paths'),
        ...kept('tool'),
        ...kept('input'),
        ...kept('output'),
        ...kept('error'),
      };
      const tools = index === -1 ? [...turn.tools, next] : turn.tools.map((t, i) => (i === index ? next : t));
      return { ...turn, tools };
    }
    case 'permission':
      return { ...turn, permissions: [...turn.permissions, { title: event.title, allowed: event.allowed }] };
    case 'usage':
      return turn;
    case 'saved':
      return { ...turn, savedAt: at };
    case 'done':
      return {
        ...turn,
        phase: event.stopReason === 'cancelled' ? 'stopped' : 'done',
        stopReason: event.stopReason,
        endedAt: at,
      };
    case 'error':
      return { ...turn, phase: 'failed', error: event.message, lost: false, endedAt: at };
  }
}

/** What the history already shows of a turn, judged from the history's data and when it was fetched. */
export interface TurnCoverage {
  /** The turn's messages are in the history: show no live copy of them. */
  persisted: boolean;
  /** The user's message is in the history (the server keeps it even when the turn fails). */
  userMessage: ChatMessage | null;
}

export function coverage(
  turn: LiveTurn,
  history: readonly ChatMessage[] | undefined,
  historyUpdatedAt: number,
): TurnCoverage {
  const persisted = turn.savedAt !== null && historyUpdatedAt >= turn.savedAt;
  if (!history) return { persisted, userMessage: null };
  const baseline = new Set(turn.baseline);
  const wanted = turn.text.trim();
  const userMessage =
    history.find(
      (m) => !baseline.has(m.id) && m.sessionId === (turn.sessionId ?? m.sessionId) && isUserText(m, wanted),
    ) ?? null;
  return { persisted, userMessage };
}

/** Whether a saved message is the user's, saying `text` (its runtime-neutral transcript: the user's own words only). */
function isUserText(message: ChatMessage, text: string): boolean {
  const transcript = message.transcript;
  if (message.problem || transcript?.role !== 'user' || transcript.kind !== 'message') return false;
  return transcript.parts.some((part) => part.type === 'text' && part.text.trim() === text);
}

/** The words for where a turn is, for the status line and the live message. */
export function phaseText(turn: LiveTurn): string {
  switch (turn.phase) {
    case 'sending':
    case 'streaming':
      return 'Agent is replying…';
    case 'stopping':
      return 'Stopping…';
    case 'stopped':
      return 'Stopped by you';
    case 'done':
      return turn.stopReason && turn.stopReason !== 'end_turn'
        ? `Reply ended: ${stopReasonText(turn.stopReason)}`
        : 'Reply complete';
    case 'failed':
      // The server finished the turn without this page: what it saved is in the history.
      if (turn.lost && turn.savedAt !== null)
        return 'Connection lost during the reply — the history shows what the agent saved';
      return `Failed: ${turn.error ?? 'the turn did not finish.'}`;
  }
}

const STOP_REASONS: Record<string, string> = {
  max_tokens: 'the model reached its output limit',
  max_turn_requests: 'the agent reached its step limit',
  refusal: 'the model refused',
  cancelled: 'stopped',
};

const stopReasonText = (reason: string): string => STOP_REASONS[reason] ?? reason;
