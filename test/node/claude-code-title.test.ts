/**
 * A Claude Code session's title as Claude Code's own session list names it (its Agent SDK's
 * `listSessions`): the user's title, else the generated one, else the latest prompt noted, else a
 * `summary` line, else the first prompt — every one a line Claude Code wrote.
 */
import { describe, expect, it } from 'vitest';
import { claudeCodeTitle } from '../../src/node/agent/claude-code/transcript';
import { recordedTitle, titleRecord } from '../../src/node/session-title';

const user = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'user',
  uuid: `u-${text.length}`,
  message: { role: 'user', content: [{ type: 'text', text }] },
  ...extra,
});

describe("a Claude Code session's title", () => {
  const prompts = [
    user('Caveat: local command', { isMeta: true }),
    user('<command-name>/compact</command-name>'),
    user('  Why are\n payments slow? '),
    user('Then check the alerts'),
  ];

  it('is the first prompt when Claude Code wrote no title line', () => {
    expect(claudeCodeTitle(prompts)).toBe('Why are payments slow?');
  });

  it('is the latest noted prompt, then a summary line, over the first prompt', () => {
    expect(claudeCodeTitle([...prompts, { type: 'summary', summary: 'Payments slow' }])).toBe('Payments slow');
    const noted = [
      ...prompts,
      { type: 'last-prompt', lastPrompt: 'Why are payments slow?' },
      { type: 'summary', summary: 'Payments slow' },
      { type: 'last-prompt', lastPrompt: 'Then check the alerts' },
    ];
    expect(claudeCodeTitle(noted)).toBe('Then check the alerts');
  });

  it('is the latest generated title, and the user’s own title over it', () => {
    const generated = [
      ...prompts,
      { type: 'ai-title', aiTitle: 'Slow payments' },
      { type: 'last-prompt', lastPrompt: 'x' },
      { type: 'ai-title', aiTitle: 'Slow payments on TiDB' },
    ];
    expect(claudeCodeTitle(generated)).toBe('Slow payments on TiDB');
    expect(claudeCodeTitle([{ type: 'custom-title', customTitle: 'INC-4821' }, ...generated])).toBe('INC-4821');
  });

  it('is none for a transcript with no prompt', () => {
    expect(claudeCodeTitle([user('x', { isMeta: true })])).toBeNull();
  });

  it('is kept as the session’s record and read back from it', () => {
    const { runtimeKey, definitions } = titleRecord('INC-4821');
    expect(recordedTitle([{ runtime_key: runtimeKey, definitions: JSON.stringify(definitions) }])).toBe('INC-4821');
    expect(recordedTitle([{ runtime_key: 'claude-code:abc', definitions: '{"kind":"x"}' }])).toBeNull();
  });
});
