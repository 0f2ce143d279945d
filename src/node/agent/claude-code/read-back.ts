/**
 * After a turn, Claude Code's session read back from its own store — the transcript it wrote
 * into the workspace agent's private HOME, `$HOME/.claude/projects/<cwd, every non-alphanumeric
 * "-">/<session>.jsonl`, and its subagents' beside it — by the import's reading
 * (transcript.ts, shared with the import; docs/claude-code.md): one transcript line a row, tagged
 * `claude-code`, nothing invented. The host reads the file itself: no program is run for it.
 *
 * The main session's rows are the turn's; its subagents' sessions (`SESSION/agent-ID`) and every
 * recorded request shape (the system blocks and tool definitions Claude Code sent) are kept
 * after them; the bridge then counts every session's texts, as for OpenCode.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readTranscript, type TranscriptSession } from './transcript';
import type { Store } from '../../storage/store';
import { promptText } from '../../user-message';
import { transcriptPath } from './install';

type Row = TranscriptSession['rows'][number];

/** The session's transcript and its subagents', as Claude Code wrote them; null when there is none. */
export function sessionTranscripts(home: string, cwd: string, sessionId: string): TranscriptSession[] | null {
  const main = transcriptPath(home, cwd, sessionId);
  if (!existsSync(main)) return null;
  const sessions = [readTranscript({ path: main, name: `${sessionId}.jsonl` })];
  const subagents = join(main.replace(/\.jsonl$/, ''), 'subagents');
  if (existsSync(subagents))
    for (const file of readdirSync(subagents).sort())
      if (file.endsWith('.jsonl'))
        sessions.push(readTranscript({ path: join(subagents, file), name: `${sessionId}/subagents/${file}` }));
  return sessions;
}

/**
 * What the user typed, as Claude Code recorded it: the first text of each user entry that is
 * neither Claude Code's own note (`isMeta`), a summary, a tool's result, nor a message of its
 * own making (an `origin` other than `human`: a background task's notification).
 */
export function typedPrompts(rows: readonly Row[]): string[] {
  return rows.flatMap((row) => {
    const info = row.info as { type?: unknown; isMeta?: unknown; isCompactSummary?: unknown; origin?: unknown };
    if (info.type !== 'user' || info.isMeta === true || info.isCompactSummary === true) return [];
    const origin = (info.origin as { kind?: unknown } | undefined)?.kind;
    if (origin !== undefined && origin !== 'human') return [];
    if (row.parts.some((part) => part.type === 'tool_result')) return [];
    const text = promptText(row.parts);
    return text === null ? [] : [text];
  });
}

/** The subagents' rows and every session's runtime records (request shapes, title), stored; the sessions to count. */
export async function keepRest(
  store: Store,
  workspaceId: string,
  sessions: readonly TranscriptSession[],
): Promise<{ sessions: string[] }> {
  await store.transaction(async (tx) => {
    for (const session of sessions) {
      if (session.parentId !== null) for (const row of session.rows) await tx.upsertMessage({ ...row, workspaceId });
      for (const record of session.records) await tx.putSessionRuntime({ ...record, workspaceId });
    }
  });
  return { sessions: sessions.map((s) => s.sessionId) };
}
