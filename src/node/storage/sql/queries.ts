/**
 * Every query the program makes, written once over Kysely for every SQL backend: the reads here,
 * the writes and whole-table copies in their collaborators. What must differ between databases
 * comes from the dialect (dialect.ts); what a query means is here.
 */
import { sql } from 'kysely';
import type { TableName } from '../schema';
import type {
  MessageRow,
  MessageStamp,
  SessionOriginRow,
  SessionRow,
  SessionRuntimeRow,
  UsageRow,
  WorkspaceRow,
} from '../store';
import type { Db } from './database';
import { SchemaProbe } from './schema-probe';
import { TableQueries } from './table-queries';
import { WriteQueries } from './write-queries';
import type { SqlDialect } from './dialect';

export type { Db };

const USAGE_COLUMNS = [
  'id',
  'workspace_id',
  'session_id',
  'source',
  'context_used',
  'context_size',
  'cost_amount',
  'cost_currency',
  'created_at',
] as const;

/**
 * The reads, with the writes (write-queries.ts) and whole-table copies (table-queries.ts) beside
 * them as collaborators that share the dialect and what is known of the schema.
 */
export class Queries {
  private readonly schema: SchemaProbe;
  readonly writes: WriteQueries;
  readonly tables: TableQueries;

  constructor(readonly dialect: SqlDialect) {
    this.schema = new SchemaProbe(dialect);
    this.writes = new WriteQueries(dialect);
    this.tables = new TableQueries(dialect, this.schema);
  }

  /** The cheapest round trip (health checks). */
  async ping(db: Db): Promise<void> {
    await sql`select 1`.execute(db);
  }

  async userIdForTokenHash(db: Db, tokenSha256: string): Promise<string | null> {
    const row = await db
      .selectFrom('api_tokens')
      .select('user_id')
      .where('token_sha256', '=', tokenSha256)
      .executeTakeFirst();
    return row?.user_id ?? null;
  }

  async workspaceForMember(db: Db, workspaceId: string, userId: string): Promise<WorkspaceRow | null> {
    const row = await db
      .selectFrom('workspaces as w')
      .innerJoin('workspace_members as m', (join) =>
        join.onRef('m.workspace_id', '=', 'w.id').on('m.user_id', '=', userId),
      )
      .select(['w.id', 'w.name', 'w.root_path', 'w.created_at', 'w.root_origin'])
      .where('w.id', '=', workspaceId)
      .executeTakeFirst();
    return row ?? null;
  }

  workspacesForMember(db: Db, userId: string): Promise<WorkspaceRow[]> {
    return db
      .selectFrom('workspaces as w')
      .innerJoin('workspace_members as m', (join) =>
        join.onRef('m.workspace_id', '=', 'w.id').on('m.user_id', '=', userId),
      )
      .select(['w.id', 'w.name', 'w.root_path', 'w.created_at', 'w.root_origin'])
      .orderBy('w.id')
      .execute();
  }

  async getWorkspace(db: Db, id: string): Promise<WorkspaceRow | null> {
    const row = await db
      .selectFrom('workspaces')
      .select(['id', 'name', 'root_path', 'created_at', 'root_origin'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row ?? null;
  }

  listUsers(db: Db): Promise<{ id: string; name: string }[]> {
    return db.selectFrom('users').select(['id', 'name']).orderBy('id').execute();
  }

  listWorkspaces(db: Db): Promise<WorkspaceRow[]> {
    return db
      .selectFrom('workspaces')
      .select(['id', 'name', 'root_path', 'created_at', 'root_origin'])
      .orderBy('id')
      .execute();
  }

  listSessions(db: Db, workspaceId: string): Promise<SessionRow[]> {
    // Activity: the latest of the messages' time_updated and the ACP rows' created_at (contract §5).
    // Only numbers count: SQLite sorts text above every number, so one row with a text time
    // would otherwise make its session the default forever.
    const { numeric } = this.dialect;
    const messages = db
      .selectFrom('messages_v2')
      .select((eb) => ['session_id', eb.fn.countAll<number>().as('n'), eb.fn.max(numeric('time_updated')).as('t')])
      .where('workspace_id', '=', workspaceId)
      .groupBy('session_id');
    const usage = db
      .selectFrom('interaction_token_usage')
      .select((eb) => ['session_id', sql<number>`0`.as('n'), eb.fn.max(numeric('created_at')).as('t')])
      .where('workspace_id', '=', workspaceId)
      .where('source', '=', 'acp')
      .groupBy('session_id');
    return db
      .selectFrom(messages.unionAll(usage).as('activity'))
      .select((eb) => [
        'session_id',
        eb.cast<number>(eb.fn.sum('n'), 'bigint').as('message_count'),
        eb.cast<number>(eb.fn.coalesce(eb.fn.max('t'), sql.lit(0)), 'bigint').as('last_active'),
      ])
      .groupBy('session_id')
      .orderBy('last_active', 'desc')
      .orderBy('session_id', 'desc')
      .execute();
  }

  async sessionExists(db: Db, workspaceId: string, sessionId: string): Promise<boolean> {
    const row = await db
      .selectFrom('messages_v2')
      .select(sql<number>`1`.as('found'))
      .where('workspace_id', '=', workspaceId)
      .where('session_id', '=', sessionId)
      .unionAll(
        db
          .selectFrom('interaction_token_usage')
          .select(sql<number>`1`.as('found'))
          .where('workspace_id', '=', workspaceId)
          .where('session_id', '=', sessionId),
      )
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async sessionOwner(db: Db, sessionId: string): Promise<string | null> {
    const { numeric } = this.dialect;
    const named = db
      .selectFrom('messages_v2')
      .select(['workspace_id', numeric('time_created').as('t'), sql<number>`0`.as('k')])
      .where('session_id', '=', sessionId)
      .unionAll(
        db
          .selectFrom('interaction_token_usage')
          .select(['workspace_id', numeric('created_at').as('t'), sql<number>`1`.as('k')])
          .where('session_id', '=', sessionId),
      );
    const row = await db
      .selectFrom(named.as('named'))
      .select('workspace_id')
      .orderBy(sql`t is null`)
      .orderBy('t')
      .orderBy('k')
      .orderBy('workspace_id')
      .limit(1)
      .executeTakeFirst();
    return row?.workspace_id ?? null;
  }

  async listMessages(db: Db, workspaceId: string, sessionId: string): Promise<MessageRow[]> {
    // The chat maps each row by the runtime that wrote it (a database from before the column has none).
    const runtime = await this.hasColumn(db, 'messages_v2', 'runtime');
    return this.selectMessages(db)
      .$if(runtime, (q) => q.select('runtime'))
      .where('workspace_id', '=', workspaceId)
      .where('session_id', '=', sessionId)
      .orderBy('id')
      .execute();
  }

  acpUsageNewestFirst(db: Db, workspaceId: string, sessionId: string, limit: number): Promise<UsageRow[]> {
    return db
      .selectFrom('interaction_token_usage')
      .select(USAGE_COLUMNS)
      .where('workspace_id', '=', workspaceId)
      .where('session_id', '=', sessionId)
      .where('source', '=', 'acp')
      .orderBy(this.dialect.numeric('created_at'), (o) => o.desc().nullsLast())
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** The runtimes that wrote a session's messages (null: a row that names none), from the index alone. */
  async messageRuntimes(db: Db, workspaceId: string, sessionId: string): Promise<(string | null)[]> {
    if (!(await this.hasColumn(db, 'messages_v2', 'runtime'))) return [];
    const rows = await db
      .selectFrom('messages_v2')
      .select('runtime')
      .distinct()
      .where('workspace_id', '=', workspaceId)
      .where('session_id', '=', sessionId)
      .execute();
    return rows.map((r) => r.runtime);
  }

  messageStamps(db: Db, workspaceId: string, sessionId: string): Promise<MessageStamp[]> {
    // A row version (PostgreSQL's xmin) changes with every update of the row: another
    // instance's change is never missed, even at the same time_updated.
    const { rowVersion } = this.dialect;
    return db
      .selectFrom('messages_v2')
      .select(['id', 'time_updated'])
      .$if(rowVersion !== null, (q) => q.select(rowVersion!.as('version')))
      .where('workspace_id', '=', workspaceId)
      .where('session_id', '=', sessionId)
      .orderBy('id')
      .execute();
  }

  /** Rows for some ids, in the order of the ids, missing ones left out. */
  async messages(db: Db, ids: readonly string[]): Promise<MessageRow[]> {
    const out: MessageRow[] = [];
    for (let start = 0; start < ids.length; start += this.dialect.idsPerQuery) {
      const asked = ids.slice(start, start + this.dialect.idsPerQuery);
      const rows = await this.selectMessages(db).where(this.dialect.anyOf('id', asked)).execute();
      // The report asks for ids in id order, all of them there, and an index lookup usually
      // answers in that order: then the rows are the answer as they come; else they are put in order.
      if (rows.length === asked.length && rows.every((row, k) => row.id === asked[k])) {
        for (const row of rows) out.push(row);
        continue;
      }
      const found = new Map(rows.map((row) => [row.id, row]));
      for (const id of asked) {
        const row = found.get(id);
        if (row) out.push(row);
      }
    }
    return out;
  }

  /** Whether the database has a table (asked once while it has not). */
  hasTable(db: Db, table: TableName): Promise<boolean> {
    return this.schema.hasTable(db, table);
  }

  /** Whether the database has a column a later migration added (asked once while it has not). */
  hasColumn(db: Db, table: TableName, column: string): Promise<boolean> {
    return this.schema.hasColumn(db, table, column);
  }

  async sessionRuntime(db: Db, workspaceId: string, sessionId: string): Promise<SessionRuntimeRow[]> {
    // Not in contract §1: a database without the table has no runtime recorded.
    if (!(await this.hasTable(db, 'session_runtime'))) return [];
    return db
      .selectFrom('session_runtime')
      .select([
        'workspace_id',
        'session_id',
        'runtime_key',
        'parent_session_id',
        'recorded_at',
        this.dialect.jsonText('definitions').as('definitions'),
      ])
      .where('workspace_id', '=', workspaceId)
      .where('session_id', '=', sessionId)
      .orderBy('runtime_key')
      .execute();
  }

  async sessionParents(db: Db, workspaceId: string): Promise<{ session_id: string; parent_session_id: string }[]> {
    if (!(await this.hasTable(db, 'session_runtime'))) return [];
    const rows = await db
      .selectFrom('session_runtime')
      .select(['session_id', 'parent_session_id'])
      .distinct()
      .where('workspace_id', '=', workspaceId)
      .where('parent_session_id', 'is not', null)
      .orderBy('session_id')
      .execute();
    return rows.flatMap((r) =>
      r.parent_session_id ? [{ session_id: r.session_id, parent_session_id: r.parent_session_id }] : [],
    );
  }

  async sessionOrigins(db: Db, workspaceId: string, sessionId?: string): Promise<SessionOriginRow[]> {
    // Not in contract §1: a database without the table has imported nothing.
    if (!(await this.hasTable(db, 'session_origins'))) return [];
    return db
      .selectFrom('session_origins')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .$if(sessionId !== undefined, (q) => q.where('session_id', '=', sessionId!))
      .orderBy('session_id')
      .execute();
  }

  async tokenCounts(db: Db, workspaceId: string, sessionIds: readonly string[], tokenizerVersion: string) {
    // Not in contract §1: a database without the table has counted nothing.
    if (sessionIds.length === 0 || !(await this.hasTable(db, 'token_counts'))) return [];
    return db
      .selectFrom('token_counts')
      .select(['tokenizer', 'content_sha256', 'tokens'])
      .where('workspace_id', '=', workspaceId)
      .where('session_id', 'in', sessionIds)
      .where('tokenizer_version', '=', tokenizerVersion)
      .execute();
  }

  async messageAnalyses(
    db: Db,
    workspaceId: string,
    sessionIds: readonly string[],
    analyzerVersion: string,
    messageIds?: readonly string[],
  ) {
    // Not in contract §1: a database without the table has stored no analysis.
    if (sessionIds.length === 0 || !(await this.hasTable(db, 'message_analyses'))) return [];
    return db
      .selectFrom('message_analyses')
      .select(['message_id', 'analysis_key', 'content_sha256', 'deps', 'analysis'])
      .where('workspace_id', '=', workspaceId)
      .where('session_id', 'in', sessionIds)
      .where('analyzer_version', '=', analyzerVersion)
      .$if(messageIds !== undefined, (q) => q.where('message_id', 'in', messageIds!))
      .execute();
  }

  private selectMessages(db: Db) {
    const { jsonText } = this.dialect;
    return db
      .selectFrom('messages_v2')
      .select([
        'id',
        'workspace_id',
        'session_id',
        'time_created',
        'time_updated',
        jsonText('info').as('info'),
        jsonText('parts').as('parts'),
      ]);
  }
}
