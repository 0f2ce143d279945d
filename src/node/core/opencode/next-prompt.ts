/**
 * The prompt OpenCode 1.18.33 would send next if a change were made now, built through its own
 * request view (request-view.ts `liveWindow`, OpenCode's filterCompacted): the session's
 * messages with the change applied — a compaction request and its summary appended, the
 * history cut at a revert, nothing but a hand-off in a new session — and the window read again.
 * What the view keeps is what the next call carries; the rest is what the change frees.
 *
 * The compaction's kept tail mirrors `SessionCompaction.select` (session/compaction.ts, read
 * from the pinned binary): the recent user turns, newest first, whole while they fit in
 * `compaction.preserve_recent_tokens` (default min(15,000, max(2,000, ¼ of the usable window))),
 * then the latest suffix of the turn that does not fit; no tail when it would start at the
 * first message. Earlier compactions' request and summary are left out of the choice, as there.
 * OpenCode estimates a turn as chars/4 of its model messages; here it is the messages' own
 * estimates (the same chars-based order of size). Pure.
 */
import type { MessageInfo, Part } from '../../../shared/opencode/format';
import { liveWindow, type StoredMessage } from './request-view';

/** `PRESERVE_RECENT_MIN` and `PRESERVE_RECENT_MAX` of session/compaction.ts. */
const PRESERVE_MIN = 2_000;
const PRESERVE_MAX = 15_000;

/** What the next request holds: the stored messages' indices, in request order, and any message the change adds. */
export interface NextView {
  order: number[];
  /** The change's own messages: the compaction request and its summary, a hand-off. */
  added: ('compaction-request' | 'summary' | 'hand-off')[];
  /** Compaction: where its kept tail starts (absent: no tail). */
  tailStartId?: string;
}

/** `compaction.preserve_recent_tokens` as OpenCode defaults it for a usable window. */
export const preserveRecentTokens = (usable: number | null, configured?: number): number =>
  configured ?? Math.min(PRESERVE_MAX, Math.max(PRESERVE_MIN, Math.floor((usable ?? 0) * 0.25)));

const info = (role: MessageInfo['role'], extra: Partial<MessageInfo> = {}): MessageInfo => ({
  role,
  summary: false,
  time: {},
  ...extra,
});

/**
 * Compact now: a compaction request (with the tail `select` would keep) and its finished
 * summary appended, the window read again.
 */
export function afterCompaction(
  messages: readonly StoredMessage[],
  tokensOf: (index: number) => number,
  preserve: number,
): NextView {
  const tailStartId = selectTail(messages, tokensOf, preserve);
  const request: StoredMessage = {
    id: '\u{10FFFF}compaction-request',
    info: info('user'),
    parts: [
      { type: 'compaction', auto: false, overflow: false, ...(tailStartId ? { tailStartId } : {}) } satisfies Part,
    ],
  };
  const summary: StoredMessage = {
    id: '\u{10FFFF}summary',
    info: info('assistant', { summary: true, finish: 'stop', parentID: request.id }),
    parts: [],
  };
  const { order } = liveWindow([...messages, request, summary]);
  return {
    order: order.filter((i) => i < messages.length),
    added: ['compaction-request', 'summary'],
    ...(tailStartId ? { tailStartId } : {}),
  };
}

/** Revert to before message `messageId`: it and everything after it leave the session. */
export function afterRevert(messages: readonly StoredMessage[], messageId: string): NextView | null {
  const at = messages.findIndex((m) => m.id === messageId);
  if (at < 0) return null;
  return { order: liveWindow(messages.slice(0, at)).order, added: [] };
}

/** A new session started with a hand-off: none of this session's messages. */
export const afterNewSession = (): NextView => ({ order: [], added: ['hand-off'] });

/**
 * `SessionCompaction.select`: the id of the first message of the kept tail, or undefined. Runs
 * over the messages in view, without earlier compactions' request and summary.
 */
export function selectTail(
  messages: readonly StoredMessage[],
  tokensOf: (index: number) => number,
  preserve: number,
): string | undefined {
  const { order } = liveWindow(messages);
  const paired = compactionPairs(messages);
  const candidates = order.filter((i) => !paired.has(i));
  const turns = userTurns(messages, candidates);
  if (turns.length === 0) return undefined;
  const size = (from: number, to: number) => candidates.slice(from, to).reduce((n, i) => n + tokensOf(i), 0);
  let kept = 0;
  let start: number | undefined;
  for (let t = turns.length - 1; t >= 0; t--) {
    const turn = turns[t]!;
    const whole = size(turn.start, turn.end);
    if (kept + whole <= preserve) {
      kept += whole;
      start = turn.start;
      continue;
    }
    // The turn does not fit: its latest suffix that does (never the turn's own user message alone).
    const budget = preserve - kept;
    for (let s = turn.start + 1; budget > 0 && s < turn.end; s++) {
      if (size(s, turn.end) > budget) continue;
      start = s;
      break;
    }
    break;
  }
  return start === undefined || start === 0 ? undefined : messages[candidates[start]!]!.id;
}

/** Indices of completed compactions' request and summary (`ey` in session/compaction.ts). */
function compactionPairs(messages: readonly StoredMessage[]): Set<number> {
  const requests = new Map<string, number>();
  const out = new Set<number>();
  messages.forEach((m, i) => {
    if (m.info.role === 'user' && m.parts.some((p) => p?.type === 'compaction')) requests.set(m.id, i);
    const done = m.info.role === 'assistant' && m.info.summary && m.info.finish && !m.info.error;
    const request = done && m.info.parentID ? requests.get(m.info.parentID) : undefined;
    if (request !== undefined) out.add(request).add(i);
  });
  return out;
}

/** Each user turn (a user message that is no compaction request, to the next): positions in `candidates`. */
function userTurns(messages: readonly StoredMessage[], candidates: readonly number[]) {
  const starts = candidates.flatMap((i, k) => {
    const m = messages[i]!;
    return m.info.role === 'user' && !m.parts.some((p) => p?.type === 'compaction') ? [k] : [];
  });
  return starts.map((start, n) => ({ start, end: starts[n + 1] ?? candidates.length }));
}

/** The output tokens of the session's earlier finished summaries (what a summary of it has been). */
export function earlierSummaries(messages: readonly StoredMessage[]): number[] {
  return messages.flatMap((m) =>
    m.info.role === 'assistant' && m.info.summary && m.info.finish && !m.info.error && m.info.tokens
      ? [m.info.tokens.output]
      : [],
  );
}

/**
 * `SessionCompaction.prune` of OpenCode 1.18.33 (session/compaction.ts, read from the pinned
 * binary): with `compaction.prune` on — it is off unless the configuration turns it on — OpenCode
 * prunes as each turn ends (when its prompt loop exits, in the background). Walking the session's
 * messages from the newest, it skips the latest two user turns, stops at a summary and at the
 * first output pruned before, and, of the completed tool outputs it passes (never a `skill`'s),
 * keeps the newest 40,000 tokens (chars/4) whole; what lies beyond is cleared to a placeholder,
 * and only when that is more than 20,000 tokens.
 */
export const PRUNE_PROTECT = 40_000;
export const PRUNE_MINIMUM = 20_000;
export const PRUNE_PROTECTED_TOOLS: readonly string[] = ['skill'];

/** A completed tool output of the session, as the prune weighs it. */
export interface PruneOutput {
  messageId: string;
  /** Its part's place in the message (the prune walks parts from the last). */
  part: number;
  tool: string;
  /** OpenCode's measure of it (chars/4 of the output). */
  tokens: number;
  /** Pruned already (`time.compacted`). */
  pruned: boolean;
}

/**
 * The outputs OpenCode's prune clears when it runs with `turnsAhead` more user turns in the
 * session than now (0: the prune as the latest turn ended; 1: as the next one ends, its own
 * outputs among the protected turns). Empty when it would clear nothing.
 */
export function pruneSelect(
  messages: readonly StoredMessage[],
  outputs: readonly PruneOutput[],
  turnsAhead: number,
): PruneOutput[] {
  const byMessage = new Map<string, PruneOutput[]>();
  for (const o of outputs) byMessage.set(o.messageId, [...(byMessage.get(o.messageId) ?? []), o]);
  let users = turnsAhead;
  let total = 0;
  let cleared = 0;
  const out: PruneOutput[] = [];
  walk: for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.info.role === 'user') users++;
    if (users < 2) continue;
    if (message.info.role === 'assistant' && message.info.summary) break;
    const parts = [...(byMessage.get(message.id) ?? [])].sort((a, b) => b.part - a.part);
    for (const o of parts) {
      if (PRUNE_PROTECTED_TOOLS.includes(o.tool)) continue;
      if (o.pruned) break walk;
      total += o.tokens;
      if (total <= PRUNE_PROTECT) continue;
      cleared += o.tokens;
      out.push(o);
    }
  }
  return cleared > PRUNE_MINIMUM ? out : [];
}
