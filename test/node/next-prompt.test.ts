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
  pruneSelect,
  selectTail,
  type PruneOutput,
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

describe('OpenCode’s pruning (SessionCompaction.prune)', () => {
  const user = (id: string): StoredMessage => ({ id, info: { role: 'user', summary: false, time: {} }, parts: [] });
  const reply = (id: string, summary = false): StoredMessage => ({
    id,
    info: { role: 'assistant', summary, time: {} },
    parts: [],
  });
  const out = (messageId: string, part: number, tokens: number, extra: Partial<PruneOutput> = {}): PruneOutput => ({
    messageId,
    part,
    tool: 'read',
    tokens,
    pruned: false,
    ...extra,
  });
  // Four turns: u1 a1, u2 a2, u3 a3, u4 a4 (ids rise with time, as OpenCode's do).
  const turns = ['1', '2', '3', '4'].flatMap((n) => [user(`u${n}`), reply(`a${n}`)]);

  it('keeps the latest two turns and the newest 40,000 tokens beyond them; clears the older, when over 20,000', () => {
    const outputs = [
      out('a1', 0, 25_000),
      out('a2', 0, 30_000),
      out('a2', 1, 15_000),
      out('a3', 0, 50_000),
      out('a4', 0, 50_000),
    ];
    // a3 and a4 are the latest two turns; a2's part 1 (15k) and part 0 (30k) fill 45k > 40k: part 0 and a1 go (55k).
    expect(pruneSelect(turns, outputs, 0).map((o) => `${o.messageId}/${o.part}`)).toEqual(['a2/0', 'a1/0']);
  });

  it('clears nothing when what would go is 20,000 tokens or less', () => {
    const outputs = [out('a1', 0, 20_000), out('a2', 0, 40_000)];
    expect(pruneSelect(turns, outputs, 0)).toEqual([]);
    expect(pruneSelect(turns, [out('a1', 0, 20_001), out('a2', 0, 40_000)], 0)).toHaveLength(1);
  });

  it('one turn ahead, the turn now second-latest leaves the protection of the latest two', () => {
    const outputs = [out('a2', 0, 30_000), out('a3', 0, 70_000)];
    expect(pruneSelect(turns, outputs, 0)).toEqual([]);
    // As the next turn ends, a3 is outside its latest two turns: 70k, the newest 40k kept whole only as a whole output.
    expect(pruneSelect(turns, outputs, 1).map((o) => o.messageId)).toEqual(['a3', 'a2']);
  });

  it('never counts or clears a skill’s output, and stops at an output pruned before and at a summary', () => {
    const skill = out('a1', 1, 90_000, { tool: 'skill' });
    expect(pruneSelect(turns, [skill, out('a1', 0, 50_000), out('a2', 0, 15_000)], 0).map((o) => o.part)).toEqual([0]);
    expect(pruneSelect(turns, [out('a1', 0, 50_000), out('a2', 0, 45_000, { pruned: true })], 0)).toEqual([]);
    const summarised = [...turns.slice(0, 3), reply('a2', true), ...turns.slice(4)];
    expect(pruneSelect(summarised, [out('a1', 0, 50_000), out('a2', 1, 10_000)], 0)).toEqual([]);
  });
});
