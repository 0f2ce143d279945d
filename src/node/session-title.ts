/**
 * A session's title as its runtime names it, kept beside its definitions (session_runtime, key
 * `session-title`): a runtime whose own store names its sessions (Claude Code: its transcript's
 * title lines, agent/claude-code/transcript.ts) records it when a turn is read back or a session
 * imported; the workspace's session list shows it before the first prompt's text.
 */
import type { RuntimeName } from '../shared/runtimes';
import { columnText } from './storage/column-text';
import type { SessionRuntimeRow } from './storage/store';

/** The runtimes that record a title (the others' records are their definitions: never read for one). */
export const TITLED_RUNTIMES: readonly RuntimeName[] = ['claude-code'];

export const SESSION_TITLE_KEY = 'session-title';
const KIND = 'session-title';

/** The record of a title (its key and definitions). */
export const titleRecord = (title: string): { runtimeKey: string; definitions: { kind: string; title: string } } => ({
  runtimeKey: SESSION_TITLE_KEY,
  definitions: { kind: KIND, title },
});

/** The title a runtime recorded for the session, or null. */
export function recordedTitle(rows: readonly Pick<SessionRuntimeRow, 'runtime_key' | 'definitions'>[]): string | null {
  const row = rows.find((r) => r.runtime_key === SESSION_TITLE_KEY);
  if (!row || row.definitions === null) return null;
  try {
    const parsed = JSON.parse(columnText(row.definitions).text ?? 'null') as { kind?: unknown; title?: unknown } | null;
    return parsed?.kind === KIND && typeof parsed.title === 'string' && parsed.title.trim() !== ''
      ? parsed.title
      : null;
  } catch {
    return null;
  }
}
