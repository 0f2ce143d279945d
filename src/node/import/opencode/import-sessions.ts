/**
 * `investibook import`: OpenCode's exports into the database, as §1 stores them and nothing
 * else of theirs — messages_v2 rows exactly as the bridge writes them (`messageRows`: info
 * without id/sessionID, parts without sessionID/messageID), no ACP usage row — plus where each
 * session came from (session_origins, investibook's own table).
 *
 * Two passes over each file: the first reads it all and refuses anything that is not a whole
 * export before the database is touched; the second writes, every file of the command in one
 * transaction. A message is upserted by id: one the database lacks is added; one it has with
 * the same content is left alone (a second import of the same file writes nothing at all); one
 * that changed is replaced by the export's version — unless the stored one is newer (its latest
 * time is later: an older, shorter export imported after a longer one never takes anything
 * back). Messages the export lacks are kept.
 */
import type { ExportedMessage, SessionExport } from '../../agent/opencode/session-export';
import { messageRows } from '../../agent/opencode/session-export';
import { childSessions } from '../../agent/opencode/session-runtime';
import { AppError } from '../../errors';
import type { Store } from '../../storage/store';
import type { ImportSource, Progress, SessionResult } from '../import-side';
import { same } from '../same-row';
import { chooseWorkspace, ensureMember, type WorkspaceRequest } from '../workspace';
import { readExports, type ExportEvent } from './read-export';

export type OriginKind = 'opencode_export' | 'opencode';

export interface ScannedExport {
  source: ImportSource;
  index: number;
  info: SessionExport['info'];
  messages: number;
  /** The subagents' sessions its task calls made. */
  children: string[];
  /** Where it has a text with a lone UTF-16 surrogate, which PostgreSQL cannot store (read-export.ts). */
  loneSurrogate: string | null;
}

/** The first pass: every export of every file, checked whole; nothing is written. */
export async function scanSources(sources: readonly ImportSource[], progress?: Progress): Promise<ScannedExport[]> {
  const found: ScannedExport[] = [];
  for (const source of sources) {
    let current: ScannedExport | null = null;
    const children = new Set<string>();
    for await (const event of events(source, 'checking', progress)) {
      if (event.kind === 'info') {
        current = { source, index: event.index, info: event.info, messages: 0, children: [], loneSurrogate: null };
      } else if (event.kind === 'message') {
        for (const child of childSessions({ info: { id: '' }, messages: [event.message] })) children.add(child);
      } else {
        const info = current?.index === event.index ? current.info : null;
        if (!info) throw new AppError('invalid', 'bad_export', `${source.name}: export ${event.index + 1} has no info`);
        found.push({
          source,
          index: event.index,
          info,
          messages: event.messages,
          children: [...children],
          loneSurrogate: event.loneSurrogate,
        });
        children.clear();
        current = null;
      }
    }
  }
  return found;
}

const events = (
  source: ImportSource,
  phase: 'checking' | 'writing',
  progress?: Progress,
): AsyncGenerator<ExportEvent> =>
  readExports(source.path, { name: source.name, progress: (bytes) => progress?.(phase, source, bytes) });

export interface WriteOptions extends WorkspaceRequest {
  kind: OriginKind;
  now: number;
  progress?: Progress;
}

/** The second pass: every scanned export written in one transaction; a refusal writes nothing. */
export async function writeSessions(
  store: Store,
  scanned: readonly ScannedExport[],
  options: WriteOptions,
): Promise<SessionResult[]> {
  // Parents before their children, so a child finds its parent's workspace.
  const order = [...scanned].sort((a, b) => depthOf(a, scanned) - depthOf(b, scanned));
  return store.transaction(async (tx) => {
    const results: SessionResult[] = [];
    const bySource = new Map<ImportSource, ScannedExport[]>();
    for (const s of order) bySource.set(s.source, [...(bySource.get(s.source) ?? []), s]);
    const places = new Map<ScannedExport, Awaited<ReturnType<typeof chooseWorkspace>>>();
    for (const s of order) {
      places.set(
        s,
        await chooseWorkspace(
          tx,
          { sessionId: s.info.id, parentId: parentOf(s.info), directory: directoryOf(s.info) },
          options,
          options.now,
        ),
      );
    }
    for (const [source, exports] of bySource) {
      const writers = new Map(
        exports.map((s) => [s.index, new SessionWriter(tx, s, places.get(s)!.workspace.id)] as const),
      );
      for (const w of writers.values()) await w.begin();
      for await (const event of events(source, 'writing', options.progress)) {
        if (event.kind === 'message') await writers.get(event.index)?.write(event.message);
      }
      for (const s of exports) {
        const writer = writers.get(s.index)!;
        await writer.finish(options);
        const place = places.get(s)!;
        const member = place.created ? place.created.member : null;
        if (!place.created) await ensureMember(tx, place.workspace.id, options.user);
        results.push({
          ...writer.counts(),
          createdWorkspace: place.created !== null,
          member,
          folder: tx.resolveRoot(place.workspace.root_path),
          folderFromExport: place.workspace.root_origin === 'export',
          folderGiven: place.given === true,
        });
      }
    }
    return results;
  });
}

const parentOf = (info: SessionExport['info']): string | null =>
  typeof info.parentID === 'string' && info.parentID !== '' ? info.parentID : null;
const directoryOf = (info: SessionExport['info']): string | null =>
  typeof info.directory === 'string' && info.directory !== '' ? info.directory : null;
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

function depthOf(s: ScannedExport, all: readonly ScannedExport[]): number {
  let depth = 0;
  for (let parent = parentOf(s.info); parent && depth < all.length; depth++) {
    const up = all.find((x) => x.info.id === parent);
    parent = up ? parentOf(up.info) : null;
  }
  return depth;
}

/**
 * A string of its own: the parser's strings are slices of the chunk they were read from, and a
 * kept slice keeps the whole chunk (a megabyte) alive — every id kept would keep the file.
 */
const ownCopy = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

/** Messages looked up and written at a time. */
const BATCH = 100;

/** One session's messages into the database, counted. */
class SessionWriter {
  private stored = new Map<string, number>();
  private had = false;
  private added = 0;
  private replaced = 0;
  private unchanged = 0;
  private newerKept = 0;

  constructor(
    private readonly tx: Store,
    private readonly scanned: ScannedExport,
    private readonly workspaceId: string,
  ) {}

  private get sessionId() {
    return this.scanned.info.id;
  }

  async begin(): Promise<void> {
    for (const s of await this.tx.messageStamps(this.workspaceId, this.sessionId))
      this.stored.set(s.id, Number(s.time_updated));
    this.had = this.stored.size > 0;
  }

  /** Messages waiting to be written: looked up in one query a batch at a time. */
  private pending: ReturnType<typeof this.rowOf>[] = [];

  private rowOf(message: ExportedMessage) {
    const row = messageRows({ info: this.scanned.info, messages: [message] })[0]!;
    return { ...row, workspaceId: this.workspaceId, sessionId: this.sessionId };
  }

  async write(message: ExportedMessage): Promise<void> {
    const row = this.rowOf(message);
    this.pending.push(row);
    if (this.pending.length >= BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    // Rows with these ids anywhere: ours to compare, another session's a contradiction.
    const found = new Map((await this.tx.messages(batch.map((r) => r.id))).map((r) => [r.id, r]));
    for (const row of batch) {
      const current = found.get(row.id);
      if (current && (current.workspace_id !== this.workspaceId || current.session_id !== this.sessionId))
        throw new AppError(
          'invalid',
          'import_refused',
          `message ${row.id} of session ${this.sessionId} is already stored for session ${current.session_id} of workspace ${current.workspace_id}: the export contradicts the database`,
        );
      const stamp = this.stored.get(row.id);
      if (!current) {
        await this.tx.insertMessage(row);
        this.added++;
      } else if (same(current, row)) this.unchanged++;
      else if (stamp !== undefined && stamp > row.timeUpdated) this.newerKept++;
      else {
        await this.tx.upsertMessage(row);
        this.replaced++;
      }
      this.stored.set(ownCopy(row.id), Math.max(stamp ?? 0, row.timeUpdated));
      // The same id twice in one import: the second compares with the first.
      found.set(row.id, {
        id: row.id,
        workspace_id: row.workspaceId,
        session_id: row.sessionId,
        time_created: row.timeCreated,
        time_updated: row.timeUpdated,
        info: JSON.stringify(row.info),
        parts: JSON.stringify(row.parts),
      });
    }
  }

  /** Where the session came from: recorded when it is new here or was imported before. */
  async finish(options: WriteOptions): Promise<void> {
    await this.flush();
    const [origin] = await this.tx.sessionOrigins(this.workspaceId, this.sessionId);
    // A session the bridge ran here keeps no origin: it did not come from elsewhere.
    if (!origin && this.had) return;
    const info = this.scanned.info;
    const changed = this.added + this.replaced > 0;
    const next = {
      workspace_id: this.workspaceId,
      session_id: this.sessionId,
      kind: options.kind,
      parent_session_id: parentOf(info),
      title: text(info.title),
      directory: directoryOf(info),
      agent_version: text(info.version),
      imported_at: origin ? Number(origin.imported_at) : options.now,
      updated_at: origin && !changed ? Number(origin.updated_at) : options.now,
      // The file its rows last came from: an import that changed none of them names no new one.
      // OpenCode asked (--from-opencode) reads a file of its own making: no file of the user's to name.
      source_file:
        origin && !changed ? origin.source_file : options.kind === 'opencode' ? null : this.scanned.source.name,
    };
    if (
      origin &&
      !changed &&
      origin.parent_session_id === next.parent_session_id &&
      origin.title === next.title &&
      origin.directory === next.directory &&
      origin.agent_version === next.agent_version &&
      origin.source_file === next.source_file
    )
      return;
    await this.tx.putSessionOrigin(next);
  }

  counts() {
    return {
      sessionId: this.sessionId,
      workspaceId: this.workspaceId,
      source: this.scanned.source.name,
      added: this.added,
      replaced: this.replaced,
      unchanged: this.unchanged,
      newerKept: this.newerKept,
    };
  }
}
