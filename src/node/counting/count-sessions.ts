/**
 * The write path's counting: a session's texts counted once, where they arrive — after the
 * bridge saved a turn, after `investibook import` wrote a session, and for a database written
 * before (`investibook db count`). The texts are exactly those a report counts, because it is
 * the report that counts them: the report service made with a recorder (report/stored-counts.ts)
 * counts what has no stored count, and the counts it made are stored here. Each message's
 * analysis that report made is stored alongside (report/stored-analyses.ts), in the same
 * transaction. The report itself (the read path) never writes; it reads these counts and
 * analyses, and makes only what has none that holds.
 */
import { AppError } from '../errors';
import { ReportService } from '../report/service';
import { MessageAnalyses } from '../report/stored-analyses';
import { StoredCounts } from '../report/stored-counts';
import type { Store } from '../storage/store';

export interface Counted {
  sessions: number;
  /** Texts counted now and stored (those stored before are not counted again). */
  texts: number;
  /** Messages analysed now and stored (those whose stored analysis still holds are not analysed again). */
  analyses: number;
  /** Sessions no report could be made of (a session that belongs to another workspace…), and why. */
  skipped: { sessionId: string; reason: string }[];
}

/** Counts and stores the texts of these sessions of a workspace that have no stored count yet. */
export async function countSessions(
  store: Store,
  workspaceId: string,
  sessionIds: readonly string[],
): Promise<Counted> {
  const out: Counted = { sessions: 0, texts: 0, analyses: 0, skipped: [] };
  for (const sessionId of new Set(sessionIds)) {
    const counts = new StoredCounts(true);
    const analyses = new MessageAnalyses(true);
    try {
      await new ReportService(store, { counts, analyses }).report({ workspaceId, sessionId });
    } catch (error) {
      // What a report refuses (a session of another workspace, bad rows) has nothing to count.
      if (!(error instanceof AppError)) throw error;
      out.skipped.push({ sessionId, reason: error.message });
      continue;
    }
    const rows = counts.newRows(workspaceId, sessionId);
    const made = analyses.newRows(workspaceId);
    await store.transaction(async (tx) => {
      await tx.putTokenCounts(rows);
      await tx.putMessageAnalyses(made);
    });
    out.sessions++;
    out.texts += rows.length;
    out.analyses += made.length;
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
  const total = {
    workspaces: workspaces.length,
    sessions: 0,
    texts: 0,
    analyses: 0,
    skipped: [] as Counted['skipped'],
  };
  for (const id of workspaces) {
    for (const session of await store.listSessions(id)) {
      progress?.(id, session.session_id);
      const counted = await countSessions(store, id, [session.session_id]);
      total.sessions += counted.sessions;
      total.texts += counted.texts;
      total.analyses += counted.analyses;
      total.skipped.push(...counted.skipped);
    }
  }
  return total;
}
