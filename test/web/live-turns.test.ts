/** The live turn's pure state: events folded in order, and when the history takes over. */
import { describe, expect, it } from 'vitest';
import { coverage, phaseText, reduceTurns, type LiveTurn } from '../../src/chat/live-turns';
import type { AgentEvent } from '../../src/shared/agent';
import type { ChatMessage } from '../../src/shared/wire';

const start = (): LiveTurn[] =>
  reduceTurns([], { type: 'started', key: 'k', text: 'Why?', sessionId: 's1', baseline: ['old'], at: 1000 });

const fold = (events: AgentEvent[], at = 2000): LiveTurn =>
  events.reduce((turns, event) => reduceTurns(turns, { type: 'event', key: 'k', event, at }), start())[0]!;

const userMessage = (id: string, text: string, sessionId = 's1'): ChatMessage => ({
  id,
  sessionId,
  timeCreated: 5,
  timeUpdated: 5,
  info: { role: 'user' },
  parts: [{ type: 'text', text }],
  transcript: { role: 'user', kind: 'message', parts: [{ type: 'text', text }] },
});

describe('live turns', () => {
  it('appends text and reasoning, keeps the latest state per tool call, and its paths when an update has none', () => {
    const turn = fold([
      { type: 'turn', turnId: 't', sessionId: 's2', newSession: true },
      { type: 'text', text: 'a' },
      { type: 'reasoning', text: 'r1' },
      { type: 'tool', toolCallId: 'c', title: 'Read x', kind: 'read', status: 'pending', paths: ['x'] },
      { type: 'text', text: 'b' },
      { type: 'reasoning', text: 'r2' },
      { type: 'tool', toolCallId: 'c', title: '', status: 'completed' },
      { type: 'permission', title: 'Edit y', allowed: true },
    ]);
    expect(turn).toMatchObject({ sessionId: 's2', turnId: 't', reply: 'ab', reasoning: 'r1r2', phase: 'streaming' });
    expect(turn.tools).toEqual([{ toolCallId: 'c', title: 'Read x', kind: 'read', status: 'completed', paths: ['x'] }]);
    expect(turn.permissions).toEqual([{ title: 'Edit y', allowed: true }]);
  });

  it('ends as done, stopped or failed, with words for each', () => {
    expect(phaseText(fold([{ type: 'done', stopReason: 'end_turn' }]))).toBe('Reply complete');
    expect(phaseText(fold([{ type: 'done', stopReason: 'cancelled' }]))).toBe('Stopped by you');
    expect(phaseText(fold([{ type: 'done', stopReason: 'max_tokens' }]))).toBe(
      'Reply ended: the model reached its output limit',
    );
    expect(phaseText(fold([{ type: 'error', code: 'x', message: 'Boom.' }]))).toBe('Failed: Boom.');
  });

  it('is covered by the history only once it was fetched after `saved`', () => {
    const turn = fold([{ type: 'saved', messages: 2 }], 2000);
    expect(coverage(turn, [], 1999).persisted).toBe(false);
    expect(coverage(turn, [], 2000).persisted).toBe(true);
    expect(coverage(fold([]), [], 9999).persisted).toBe(false);
  });

  it('finds the user’s message among the messages newer than the turn, by its text', () => {
    const turn = fold([]);
    expect(coverage(turn, [userMessage('old', 'Why?')], 0).userMessage).toBeNull();
    expect(coverage(turn, [userMessage('new', 'Other')], 0).userMessage).toBeNull();
    expect(coverage(turn, [userMessage('new', ' Why? ')], 0).userMessage?.id).toBe('new');
    expect(coverage(turn, [userMessage('new', 'Why?', 'elsewhere')], 0).userMessage).toBeNull();
  });

  it('settles a lost turn once the server no longer runs it, and drops shown turns when the next starts', () => {
    let turns = reduceTurns(start(), { type: 'failed', key: 'k', message: 'lost', lost: true, at: 3000 });
    expect(reduceTurns(turns, { type: 'settled', sessionId: 'other', at: 4000 })).toBe(turns);
    turns = reduceTurns(turns, { type: 'settled', sessionId: 's1', at: 4000 });
    expect(turns[0]!.savedAt).toBe(4000);
    expect(phaseText(turns[0]!)).toMatch(/^Connection lost during the reply/);

    const done = fold([
      { type: 'saved', messages: 1 },
      { type: 'done', stopReason: 'end_turn' },
    ]);
    const next = reduceTurns([done], {
      type: 'started',
      key: 'k2',
      text: 'Next',
      sessionId: 's1',
      baseline: [],
      at: 5,
    });
    expect(next.map((t) => t.key)).toEqual(['k2']);
  });
});
