/**
 * The prompt OpenCode would send next with a change made, through its own request view
 * (core/opencode/next-prompt.ts), on the sessions the real runtime wrote: compact now (the tail
 * `SessionCompaction.select` keeps), revert to before a message, a new session — and the
 * summaries a compaction's size is estimated from.
 */
import { describe, expect, it } from 'vitest';
import type { Part } from '../../src/shared/opencode/format';
import { liveWindow, messageView, type StoredMessage } from '../../src/node/core/opencode/request-view';
import {
  afterCompaction,
  afterNewSession,
  afterRevert,
  earlierSummaries,
  preserveRecentTokens,
  selectTail,
} from '../../src/node/core/opencode/next-prompt';
import { messagesOf } from '../support/recordings';

/** OpenCode's measure of a message for the tail: chars/4 of what the model is sent of it. */
const charsOf = (messages: readonly StoredMessage[]) => (i: number) => {
  const sent = messageView(messages[i]!).sent.map((p) =>
    p.kind === 'tool' ? JSON.stringify(p.tool.input) + p.result.text : 'text' in p ? p.text : '',
  );
  return Math.ceil(sent.join('').length / 4);
};
/** The recorded session before its manual compaction: three turns, two of them with a large read. */
function beforeCompaction(): StoredMessage[] {
  const messages = messagesOf('compaction-tail');
  return messages.slice(
    0,
    messages.findIndex((m) => compactionOf(m) !== undefined),
  );
}
const isUser = (m: StoredMessage) => m.info.role === 'user' && !m.parts.some((p) => p?.type === 'compaction');
const compactionOf = (m: StoredMessage) =>
  m.parts.find((p) => p?.type === 'compaction') as Extract<Part, { type: 'compaction' }> | undefined;

describe('compact now', () => {
  it('keeps the recent turns that fit in the budget, whole, and nothing older', () => {
    const messages = beforeCompaction();
    const size = charsOf(messages);
    const users = messages.flatMap((m, i) => (isUser(m) ? [i] : []));
    expect(users.length).toBeGreaterThan(1);
    const last = users.at(-1)!;
    const lastTurn = messages.slice(last).reduce((n, _, k) => n + size(last + k), 0);
    const view = afterCompaction(messages, size, lastTurn);
    // The compaction request and summary come first; then the tail, from the last turn's user message.
    expect(view.added).toEqual(['compaction-request', 'summary']);
    expect(view.tailStartId).toBe(messages[last]!.id);
    expect(view.order).toEqual(messages.slice(last).map((_, k) => last + k));
    // A budget for everything keeps no tail (it would start at the first message); none keeps nothing.
    const everything = messages.reduce((n, _, i) => n + size(i), 0);
    expect(afterCompaction(messages, size, everything).order).toEqual([]);
    expect(afterCompaction(messages, size, 0).order).toEqual([]);
  });

  it('keeps the latest suffix of a turn that does not fit whole', () => {
    const messages = beforeCompaction();
    const size = charsOf(messages);
    const last = messages.length - 1;
    expect(messages[last]!.info.role).toBe('assistant');
    // Room for the last turn's last message only.
    expect(selectTail(messages, size, size(last))).toBe(messages[last]!.id);
  });

  it('chooses the tail OpenCode chose in a recorded manual compaction', () => {
    const messages = messagesOf('compaction-tail');
    const request = messages.findIndex((m) => compactionOf(m) !== undefined);
    const chosen = compactionOf(messages[request]!)!.tailStartId!;
    const before = messages.slice(0, request);
    // The recording's window: 200,000 tokens, so the budget is OpenCode's maximum, 15,000.
    expect(selectTail(before, charsOf(before), preserveRecentTokens(168_000))).toBe(chosen);
  });

  it('is read again through the request view: the next call holds only the kept tail after the summary', () => {
    const messages = messagesOf('compaction-tail');
    const size = charsOf(messages);
    const view = afterCompaction(messages, size, preserveRecentTokens(0));
    const now = liveWindow(messages).order;
    // Everything kept was in view before; what the earlier compaction kept is not carried again unless recent.
    expect(view.order.every((i) => now.includes(i))).toBe(true);
    expect(view.order.length).toBeLessThan(now.length);
  });

  it('takes its budget from the usable window as OpenCode does: a quarter, between 2,000 and 15,000', () => {
    expect(preserveRecentTokens(168_000)).toBe(15_000);
    expect(preserveRecentTokens(20_000)).toBe(5_000);
    expect(preserveRecentTokens(4_000)).toBe(2_000);
    expect(preserveRecentTokens(168_000, 3_000)).toBe(3_000);
  });

  it('estimates the summary from the session’s earlier ones', () => {
    const messages = messagesOf('compaction-tail');
    const summary = messages.find((m) => m.info.summary)!;
    expect(earlierSummaries(messages)).toEqual([summary.info.tokens!.output]);
    expect(earlierSummaries(messagesOf('fresh'))).toEqual([]);
  });
});

describe('revert and a new session', () => {
  it('a revert drops the message and everything after it', () => {
    const messages = messagesOf('fresh');
    const users = messages.flatMap((m, i) => (isUser(m) ? [i] : []));
    const at = users.at(-1)!;
    expect(afterRevert(messages, messages[at]!.id)!.order).toEqual(messages.slice(0, at).map((_, k) => k));
    expect(afterRevert(messages, 'msg_not_there')).toBeNull();
  });

  it('a revert to before a compaction brings its history back into view', () => {
    const messages = messagesOf('compaction-tail');
    const request = messages.findIndex((m) => compactionOf(m) !== undefined);
    const before = liveWindow(messages);
    expect(before.history.length).toBeGreaterThan(0);
    const reverted = afterRevert(messages, messages[request]!.id)!;
    expect(reverted.order).toEqual(messages.slice(0, request).map((_, k) => k));
  });

  it('a new session holds none of this session’s messages, only its hand-off', () => {
    expect(afterNewSession()).toEqual({ order: [], added: ['hand-off'] });
  });
});
