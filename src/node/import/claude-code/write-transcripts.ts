/**
 * Claude Code transcripts into the database, by the import's rules (opencode/import-sessions.ts): every
 * session in one transaction, parents before their subagents; a row not stored is added, the
 * same row is unchanged, a changed one replaced unless the stored one is newer; rows the
 * transcript lacks are kept; its request shapes and title recorded as the session's runtime; its origin
 * noted ('claude_code_transcript', or 'claude_code' for --from-claude-code).
 */
import { AppError } from '../../errors';
import type { Store } from '../../storage/store';
import type { SessionResult } from '../import-side';
import { same } from '../same-row';
import { chooseWorkspace, ensureMember, type WorkspaceRequest } from '../workspace';
import type { TranscriptSession } from '../../agent/claude-code/transcript';

export type TranscriptOrigin = 'claude_code_transcript' | 'claude_code';

export async function writeTranscripts(
  store: Store,
  sessions: readonly TranscriptSession[],
  options: WorkspaceRequest & { kind: TranscriptOrigin; now: number },
): Promise<SessionResult[]> {
  const order = [...sessions].sort((a, b) => Number(a.parentId !== null) - Number(b.parentId !== null));
  return store.transaction(async (tx) => {
    const results: SessionResult[] = [];
    for (const session of order) {
      const place = await chooseWorkspace(
        tx,
        { sessionId: session.sessionId, parentId: session.parentId, directory: session.directory },
        options,
        options.now,
      );
      const workspaceId = place.workspace.id;
      if (!place.created) await ensureMember(tx, workspaceId, options.user);
      const counts = await writeRows(tx, session, workspaceId);
      for (const record of session.records) await tx.putSessionRuntime({ ...record, workspaceId });
      if (counts.added + counts.replaced > 0 || !(await tx.sessionOrigins(workspaceId, session.sessionId)).length)
        await tx.putSessionOrigin({
          workspace_id: workspaceId,
          session_id: session.sessionId,
          kind: options.kind,
          parent_session_id: session.parentId,
          title: session.title,
          directory: session.directory,
          agent_version: session.version,
          imported_at: options.now,
          updated_at: options.now,
          source_file: session.source.name,
        });
      results.push({
        sessionId: session.sessionId,
        workspaceId,
        source: session.source.name,
        createdWorkspace: place.created !== null,
        member: place.created ? place.created.member : null,
        folder: tx.resolveRoot(place.workspace.root_path),
        folderFromExport: place.workspace.root_origin === 'export',
        folderGiven: place.given === true,
        ...counts,
      });
    }
    return results;
  });
}

async function writeRows(tx: Store, session: TranscriptSession, workspaceId: string) {
  const counts = { added: 0, replaced: 0, unchanged: 0, newerKept: 0 };
  const found = new Map((await tx.messages(session.rows.map((r) => r.id))).map((r) => [r.id, r]));
  for (const next of session.rows) {
    const row = { ...next, workspaceId };
    const current = found.get(row.id);
    if (current && (current.workspace_id !== workspaceId || current.session_id !== row.sessionId))
      throw new AppError(
        'invalid',
        'import_refused',
        `entry ${row.id} of session ${row.sessionId} is already stored for session ${current.session_id} of workspace ${current.workspace_id}: the transcript contradicts the database`,
      );
    if (!current) {
      await tx.insertMessage(row);
      counts.added++;
    } else if (same(current, row)) counts.unchanged++;
    else if (Number(current.time_updated) > row.timeUpdated) counts.newerKept++;
    else {
      await tx.upsertMessage(row);
      counts.replaced++;
    }
  }
  return counts;
}
