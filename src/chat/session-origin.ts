/**
 * Where an imported session came from, in the chat's words: "Imported from an OpenCode export
 * (ses_4f.json), 28 Nov 2026" — the file as it was named to the import, where one was. The session switcher lists it; the chat says there is no live agent for it.
 */
import type { SessionSummary } from '../shared/wire';

type Origin = NonNullable<SessionSummary['origin']>;

const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** Each origin's words (an unknown kind: an OpenCode export, the first there was). */
const FROM: Record<string, string> = {
  opencode: 'Imported from OpenCode',
  opencode_export: 'Imported from an OpenCode export',
  claude_code: 'Imported from Claude Code',
  claude_code_transcript: 'Imported from a Claude Code transcript',
};

export function originText(origin: Origin): string {
  const from = FROM[origin.kind] ?? FROM.opencode_export!;
  return `${from}${origin.file ? ` (${origin.file})` : ''}, ${DATE.format(new Date(origin.importedAt))}`;
}

/** What the chat says above an imported session's messages. */
export function noLiveAgentText(origin: Origin, agentAttached: boolean): string {
  return `${originText(origin)}${origin.parentSessionId ? ` (a subagent's session of ${origin.parentSessionId})` : ''}. There is no live agent for this session: it ran elsewhere, so the agent cannot continue it${agentAttached ? ' — a message you send starts a new conversation' : ''}. /debug reports on it as it was.`;
}
