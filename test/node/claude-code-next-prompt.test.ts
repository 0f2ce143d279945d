/**
 * Claude Code's next prompt with a history change made (core/claude-code/next-prompt.ts): a new
 * session carries again the attachments Claude Code writes with every first prompt, one of each
 * kind; a compaction is estimated only by the session's own earlier compact boundaries.
 */
import { describe, expect, it } from 'vitest';
import type { EntryHeader } from '../../src/node/core/claude-code/entry';
import { claudeCodeNextPrompt } from '../../src/node/core/claude-code/next-prompt';

const entry = (id: string, type: string, extra: Partial<EntryHeader> = {}): EntryHeader => ({
  id,
  type,
  sidechain: false,
  time: 0,
  compactBoundary: false,
  userTurn: type === 'user',
  ...extra,
});

const session: EntryHeader[] = [
  entry('1', 'user'),
  entry('2', 'attachment', { attachment: 'instructions' }),
  entry('3', 'attachment', { attachment: 'skill_listing' }),
  entry('4', 'attachment', { attachment: 'prompt_snapshot' }),
  entry('5', 'assistant', { responseId: 'm1' }),
  entry('6', 'attachment', { attachment: 'file' }),
  entry('7', 'user'),
  entry('8', 'attachment', { attachment: 'skill_listing' }),
  entry('9', 'assistant', { responseId: 'm2' }),
];

describe("Claude Code's next prompt", () => {
  it('after /clear with a hand-off: the first of each attachment a session starts with', () => {
    const next = claudeCodeNextPrompt(session);
    expect(next.afterNewSession!().kept).toEqual(['2', '3']);
    expect(next.messages.map((m) => m.role)).toEqual([
      'user',
      'user',
      'user',
      'user',
      'assistant',
      'user',
      'user',
      'user',
      'assistant',
    ]);
  });

  it('after /rewind to before a prompt: the history before it', () => {
    const next = claudeCodeNextPrompt(session);
    expect(next.afterRevert('7')!.kept).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(next.afterRevert('nowhere')).toBeNull();
  });

  it('after /compact: no figure without an earlier compaction; else what followed the earlier ones', () => {
    const fresh = claudeCodeNextPrompt(session);
    expect(fresh.summaries).toEqual([]);
    expect(fresh.summaryFallback).toBeNull();
    const compacted = claudeCodeNextPrompt([
      ...session,
      entry('10', 'system', { compactBoundary: true, postTokens: 3_663 }),
      entry('11', 'user'),
    ]);
    expect(compacted.summaries).toEqual([3_663]);
    // The view restarts at the boundary; all that follows a compaction is in the estimate.
    expect(compacted.messages.map((m) => m.id)).toEqual(['10', '11']);
    expect(compacted.afterCompaction(() => 0, 0).kept).toEqual([]);
    expect(compacted.compactionRequestText).toContain('<command-name>/compact</command-name>');
  });
});
