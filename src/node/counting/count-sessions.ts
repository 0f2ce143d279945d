/**
 * The write path's counting: a session's texts counted once, where they arrive — after the
 * bridge saved a turn, after `investibook import` wrote a session, and for a database written
 * before (`investibook db count`). The texts are exactly those a report counts, because it is
 * the report that counts them: the report service made with a recorder (report/stored-counts.ts)
 * counts what has no stored count, and the counts it made are stored here. The report itself
 * (the read path) never writes; it reads these counts and counts only what has none.
 */
import { AppError } from '../errors';
import { ReportService } from '../report/service';
import { StoredCounts } from '../report/stored-counts';
import type { Store } from '../storage/store';

export interface Counted {
  sessions: number;
  /** Texts counted now and stored (those stored before are not counted again). */
  texts: number;
  /** Sessions no report could be made of (a session that belongs to another workspace…), and why. */
  skipped: { sessionId: string; reason: string }[];
}

/** Counts and stores the texts of these sessions of a workspace that have no stored count yet. */
export async function countSessions(
  store: Store,
  workspaceId: string,
  sessionIds: readonly string[],
): Promise<Counted> {
  const out: Counted = { sessions: 0, texts: 0, skipped: [] };
  for (const sessionId of new Set(sessionIds)) {
    const counts = new StoredCounts(true);
    try {
      await new ReportService(store, { counts }).report({ workspaceId, sessionId });
    } catch (error) {
      // What a report refuses (a session of another workspace, bad rows) has nothing to count.
      if (!(error instanceof AppError)) throw error;
      out.skipped.push({ sessionId, reason: error.message });
      continue;
    }
    const rows = counts.newRows(workspaceId, sessionId);
    await store.transaction((tx) => tx.putTokenCounts(rows));
    out.sessions++;
    out.texts += rows.length;
  }
  return out;
}

/** Every session of a database (or of one workspace) counted: `investibook db count`. */
export async function countDatabase(
  store: Store,
  workspaceId?: string,
  progress?: (workspaceId: string, sessionId: string) => void,
): Promise<Counted & { workspaces: number }> {
  const workspaces = workspaceId ? [workspaceId] : (await store.listWorkspaces()).map((w) => w.id);
  const total = { workspaces: workspaces.length, sessions: 0, texts: 0, skipped: [] as Counted['skipped'] };
  for (const id of workspaces) {
    for (const session of await store.listSessions(id)) {
      progress?.(id, session.session_id);
      const counted = await countSessions(store, id, [session.session_id]);
      total.sessions += counted.sessions;
      total.texts += counted.texts;
      total.skipped.push(...counted.skipped);
    }
  }
  return total;
}
