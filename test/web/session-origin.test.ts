/** Where an imported session came from, in the chat's words, for each kind the import notes. */
import { describe, expect, it } from 'vitest';
import { originText } from '../../src/chat/session-origin';

const at = Date.UTC(2026, 11, 6);
const origin = (kind: string) => ({ kind, importedAt: at, updatedAt: at, title: null, parentSessionId: null });

describe('originText', () => {
  it.each([
    ['opencode', 'Imported from OpenCode, 6 Dec 2026'],
    ['opencode_export', 'Imported from an OpenCode export, 6 Dec 2026'],
    ['claude_code', 'Imported from Claude Code, 6 Dec 2026'],
    ['claude_code_transcript', 'Imported from a Claude Code transcript, 6 Dec 2026'],
  ])('%s', (kind, words) => {
    expect(originText(origin(kind))).toBe(words);
  });

  it('names the file the session was imported from', () => {
    expect(originText({ ...origin('opencode_export'), file: 'ses_4f2a.json' })).toBe(
      'Imported from an OpenCode export (ses_4f2a.json), 6 Dec 2026',
    );
  });
});
