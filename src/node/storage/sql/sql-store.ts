/**
 * The Store interface over Kysely, once for every SQL backend: each method is a query of
 * queries.ts run by the backend's runner (its bounds, retries and error words). A backend adds
 * how it opens, migrates, takes a snapshot and a transaction, and checks it can write.
 */
import { columnText } from '../column-text';
import { TABLES, type Table, type TableName } from '../schema';
import {
  StoreValueError,
  type MessageAnalysisRow,
  type MessageRow,
  type MessageStamp,
  type NewMessage,
  type NewSessionRuntime,
  type NewUsage,
  type ReadSnapshot,
  type SessionOriginRow,
  type SessionRow,
  type SessionRuntimeRow,
  type Store,
  type TokenCountRow,
  type UsageRow,
  type WorkspaceRow,
} from '../store';
import type { Db, Queries } from './queries';

/** How a backend runs a statement: the errors it throws are the store's own (StoreUnavailable…). */
export interface Runner {
  read<T>(work: () => Promise<T>): Promise<T>;
  write<T>(work: () => Promise<T>): Promise<T>;
}

const hasNul = (text: string): boolean => text.includes('\u0000');

/** Every read, on the store's connection(s) or on the one connection of a snapshot. */
export class SqlReads implements ReadSnapshot {
  constructor(
    /** Where the queries run: the store's connection or pool, or one transaction's connection. */
    protected target: Db,
    protected readonly queries: Queries,
    protected run: Runner,
  ) {}

  /**
   * Where text cannot hold U+0000 (PostgreSQL), an id with one names nothing stored: the read
   * answers "not found" without asking, as SQLite does after asking.
   */
  protected namesNothing(...texts: string[]): boolean {
    return !this.queries.dialect.textHoldsNul && texts.some(hasNul);
  }

  async getWorkspace(id: string): Promise<WorkspaceRow | null> {
    if (this.namesNothing(id)) return null;
    return this.run.read(() => this.queries.getWorkspace(this.target, id));
  }

  async listSessions(workspaceId: string): Promise<SessionRow[]> {
    if (this.namesNothing(workspaceId)) return [];
    return this.run.read(() => this.queries.listSessions(this.target, workspaceId));
  }

  async sessionExists(workspaceId: string, sessionId: string): Promise<boolean> {
    if (this.namesNothing(workspaceId, sessionId)) return false;
    return this.run.read(() => this.queries.sessionExists(this.target, workspaceId, sessionId));
  }

  async sessionOwner(sessionId: string): Promise<string | null> {
    if (this.namesNothing(sessionId)) return null;
    return this.run.read(() => this.queries.sessionOwner(this.target, sessionId));
  }

  async acpUsageNewestFirst(workspaceId: string, sessionId: string, limit = 20): Promise<UsageRow[]> {
    if (this.namesNothing(workspaceId, sessionId)) return [];
    return this.run.read(() => this.queries.acpUsageNewestFirst(this.target, workspaceId, sessionId, limit));
  }

  async messageRuntimes(workspaceId: string, sessionId: string): Promise<(string | null)[]> {
    if (this.namesNothing(workspaceId, sessionId)) return [];
    return this.run.read(() => this.queries.messageRuntimes(this.target, workspaceId, sessionId));
  }

  async messageStamps(workspaceId: string, sessionId: string): Promise<MessageStamp[]> {
    if (this.namesNothing(workspaceId, sessionId)) return [];
    return this.run.read(() => this.queries.messageStamps(this.target, workspaceId, sessionId));
  }

  async messages(ids: readonly string[]): Promise<MessageRow[]> {
    const asked = this.queries.dialect.textHoldsNul ? ids : ids.filter((id) => !hasNul(id));
    if (asked.length === 0) return [];
    return this.run.read(() => this.queries.messages(this.target, asked));
  }

  async sessionRuntime(workspaceId: string, sessionId: string): Promise<SessionRuntimeRow[]> {
    if (this.namesNothing(workspaceId, sessionId)) return [];
    return this.run.read(() => this.queries.sessionRuntime(this.target, workspaceId, sessionId));
  }

  async sessionParents(workspaceId: string): Promise<{ session_id: string; parent_session_id: string }[]> {
    if (this.namesNothing(workspaceId)) return [];
    return this.run.read(() => this.queries.sessionParents(this.target, workspaceId));
  }

  async sessionOrigins(workspaceId: string, sessionId?: string): Promise<SessionOriginRow[]> {
    if (this.namesNothing(workspaceId, sessionId ?? '')) return [];
    return this.run.read(() => this.queries.sessionOrigins(this.target, workspaceId, sessionId));
  }

  async tokenCounts(workspaceId: string, sessionIds: readonly string[], tokenizerVersion: string) {
    const asked = sessionIds.filter((id) => !this.namesNothing(workspaceId, id));
    if (asked.length === 0) return [];
    return this.run.read(() => this.queries.tokenCounts(this.target, workspaceId, asked, tokenizerVersion));
  }

  async messageAnalyses(
    workspaceId: string,
    sessionIds: readonly string[],
    analyzerVersion: string,
    messageIds?: readonly string[],
  ) {
    const asked = sessionIds.filter((id) => !this.namesNothing(workspaceId, id));
    if (asked.length === 0 || messageIds?.length === 0) return [];
    return this.run.read(() =>
      this.queries.messageAnalyses(this.target, workspaceId, asked, analyzerVersion, messageIds),
    );
  }
}

/** A BLOB in a JSON column (another writer's) as the text it holds, so every backend can take it. */
function textColumns(row: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Uint8Array) row[key] = columnText(value).text;
  }
  return row;
}

export abstract class SqlStore extends SqlReads implements Store {
  abstract readonly backend: Store['backend'];
  abstract readonly location: string;
  abstract resolveRoot(rootPath: string): string;
  abstract snapshot<T>(work: (read: ReadSnapshot) => Promise<T>): Promise<T>;
  abstract transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  abstract checkWritable(): Promise<void>;
  abstract close(): Promise<void>;

  /** This store inside an open transaction: its statements on that connection, nested work in it. */
  protected within(db: Db, run: Runner): Store {
    const inner: SqlStore = Object.assign(Object.create(this) as SqlStore, {
      target: db,
      run,
      snapshot: <T>(work: (read: ReadSnapshot) => Promise<T>) => work(inner),
      transaction: <T>(work: (store: Store) => Promise<T>) => work(inner),
      close: async () => {},
    });
    return inner;
  }

  /** Text the database cannot hold is refused before it is sent (StoreValueError). */
  protected storable(what: string, ...texts: (string | null | undefined)[]): void {
    if (this.queries.dialect.textHoldsNul) return;
    if (texts.some((text) => typeof text === 'string' && hasNul(text))) {
      throw new StoreValueError(
        `${what} holds the character U+0000, which this database (${this.backend}) cannot store`,
        'unstorable_value',
      );
    }
  }

  // --- reads -------------------------------------------------------------------------------

  async userIdForTokenHash(tokenSha256: string): Promise<string | null> {
    if (this.namesNothing(tokenSha256)) return null;
    return this.run.read(() => this.queries.userIdForTokenHash(this.target, tokenSha256));
  }

  async workspaceForMember(workspaceId: string, userId: string): Promise<WorkspaceRow | null> {
    if (this.namesNothing(workspaceId, userId)) return null;
    return this.run.read(() => this.queries.workspaceForMember(this.target, workspaceId, userId));
  }

  async workspacesForMember(userId: string): Promise<WorkspaceRow[]> {
    if (this.namesNothing(userId)) return [];
    return this.run.read(() => this.queries.workspacesForMember(this.target, userId));
  }

  listUsers(): Promise<{ id: string; name: string }[]> {
    return this.run.read(() => this.queries.listUsers(this.target));
  }

  listWorkspaces(): Promise<WorkspaceRow[]> {
    return this.run.read(() => this.queries.listWorkspaces(this.target));
  }

  async listMessages(workspaceId: string, sessionId: string): Promise<MessageRow[]> {
    if (this.namesNothing(workspaceId, sessionId)) return [];
    return this.run.read(() => this.queries.listMessages(this.target, workspaceId, sessionId));
  }

  // --- writes ------------------------------------------------------------------------------

  async insertMessage(message: NewMessage): Promise<void> {
    this.storable('the message', message.id, message.workspaceId, message.sessionId);
    await this.run.write(() => this.queries.writes.writeMessage(this.target, message, false));
  }

  async upsertMessage(message: NewMessage): Promise<void> {
    this.storable('the message', message.id, message.workspaceId, message.sessionId);
    await this.run.write(() => this.queries.writes.writeMessage(this.target, message, true));
  }

  async deleteMessage(workspaceId: string, sessionId: string, id: string): Promise<void> {
    // An id the database cannot hold names no message: nothing to delete.
    if (this.namesNothing(workspaceId, sessionId, id)) return;
    await this.run.write(() => this.queries.writes.deleteMessage(this.target, workspaceId, sessionId, id));
  }

  async insertUsage(usage: NewUsage): Promise<void> {
    this.storable('the usage row', usage.workspaceId, usage.sessionId, usage.source, usage.costCurrency);
    await this.run.write(() => this.queries.writes.insertUsage(this.target, usage));
  }

  async putSessionRuntime(row: NewSessionRuntime): Promise<void> {
    this.storable('the session runtime', row.workspaceId, row.sessionId, row.runtimeKey, row.parentSessionId);
    await this.run.write(() => this.queries.writes.putSessionRuntime(this.target, row));
  }

  async putSessionOrigin(row: SessionOriginRow): Promise<void> {
    this.storable(
      'the session origin',
      row.workspace_id,
      row.session_id,
      row.kind,
      row.parent_session_id,
      row.title,
      row.directory,
      row.agent_version,
      row.source_file,
    );
    await this.run.write(() => this.queries.writes.putSessionOrigin(this.target, row));
  }

  async putTokenCounts(rows: readonly TokenCountRow[]): Promise<void> {
    for (const row of rows) this.storable('the token count', row.workspace_id, row.session_id);
    if (rows.length === 0) return;
    await this.run.write(() => this.queries.writes.putTokenCounts(this.target, rows));
  }

  async putMessageAnalyses(rows: readonly MessageAnalysisRow[]): Promise<void> {
    for (const row of rows) this.storable('the analysis', row.workspace_id, row.session_id, row.message_id);
    if (rows.length === 0) return;
    await this.run.write(() => this.queries.writes.putMessageAnalyses(this.target, rows));
  }

  async insertUser(id: string, name: string): Promise<void> {
    this.storable('the user', id, name);
    await this.run.write(() => this.queries.writes.insertUser(this.target, id, name));
  }

  async insertTokenHash(tokenSha256: string, userId: string): Promise<void> {
    this.storable('the token', tokenSha256, userId);
    await this.run.write(() => this.queries.writes.insertTokenHash(this.target, tokenSha256, userId));
  }

  async insertWorkspace(row: WorkspaceRow): Promise<void> {
    this.storable('the workspace', row.id, row.name, row.root_path);
    await this.run.write(() => this.queries.writes.insertWorkspace(this.target, row));
  }

  async setRootOrigin(workspaceId: string, origin: string | null): Promise<void> {
    await this.run.write(() => this.queries.writes.setRootOrigin(this.target, workspaceId, origin));
  }

  async addMember(workspaceId: string, userId: string): Promise<void> {
    this.storable('the membership', workspaceId, userId);
    await this.run.write(() => this.queries.writes.addMember(this.target, workspaceId, userId));
  }

  // --- whole tables ------------------------------------------------------------------------

  contentRows(): Promise<string[]> {
    return this.run.read(() => this.queries.tables.contentRows(this.target));
  }

  async *tableRows(table: TableName, batchSize = 1000): AsyncIterable<Record<string, unknown>[]> {
    const { primaryKey } = TABLES[table] as Table;
    // A table a newer schema added, in a database opened read-only before it was migrated: no rows.
    if (!(await this.run.read(() => this.queries.hasTable(this.target, table)))) return;
    let after: unknown[] | null = null;
    for (;;) {
      const from = after;
      const rows: Record<string, unknown>[] = await this.run.read(() =>
        this.queries.tables.tableBatch(this.target, table, from, batchSize),
      );
      if (rows.length === 0) return;
      const last = rows[rows.length - 1]!;
      after = primaryKey.map((k) => last[k]);
      yield rows.map(textColumns);
    }
  }

  async insertRows(table: TableName, rows: readonly Record<string, unknown>[]): Promise<void> {
    if (rows.length === 0) return;
    const { columns } = TABLES[table] as Table;
    for (const row of rows) {
      this.storable(`a row of ${table}`, ...columns.filter((c) => c.type === 'text').map((c) => row[c.name] as string));
    }
    await this.transaction(async (tx) => {
      const inner = tx as SqlStore;
      await inner.run.write(() => inner.queries.tables.insertRows(inner.target, table, rows));
    });
  }

  async ping(): Promise<void> {
    await this.run.read(() => this.queries.ping(this.target));
  }
}
