/**
 * Every query the program makes, written once over Kysely for every SQL backend. What must
 * differ between databases comes from the dialect (dialect.ts); what a query means is here.
 */
import { sql, type Kysely } from 'kysely';
import { TABLES, type Table, type TableName } from '../schema';
import type {
  MessageRow,
  MessageStamp,
  NewMessage,
  NewSessionRuntime,
  NewUsage,
  SessionOriginRow,
  SessionRow,
  SessionRuntimeRow,
  TokenCountRow,
  UsageRow,
  WorkspaceRow,
} from '../store';
import type { Database } from './database';
import type { SqlDialect } from './dialect';

export type Db = Kysely<Database>;

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

/** Token counts written per statement. */
const TOKEN_COUNT_BATCH = 500;

export class Queries {
  constructor(readonly dialect: SqlDialect) {}

  // --- reads -------------------------------------------------------------------------------

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

  /** Tables a database made by another writer, or not migrated yet, may lack: known once there. */
  private readonly present = new Set<TableName>();

  async hasTable(db: Db, table: TableName): Promise<boolean> {
    if (this.present.has(table)) return true;
    const { rows } = await this.dialect.tableExists(table).execute(db);
    if (rows.length > 0) this.present.add(table);
    return rows.length > 0;
  }

  /** Columns a later migration added, which such a database may lack likewise: known once there. */
  private readonly columnsPresent = new Set<string>();

  async hasColumn(db: Db, table: TableName, column: string): Promise<boolean> {
    const key = `${table}.${column}`;
    if (this.columnsPresent.has(key)) return true;
    const { rows } = await this.dialect.columnExists(table, column).execute(db);
    if (rows.length > 0) this.columnsPresent.add(key);
    return rows.length > 0;
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

  // --- writes ------------------------------------------------------------------------------

  /**
   * An upsert replaces a message of the same workspace and session only: an id can never move
   * a message from another session or workspace (it is left as it is).
   */
  async writeMessage(db: Db, m: NewMessage, replace: boolean): Promise<void> {
    const { jsonValue } = this.dialect;
    await db
      .insertInto('messages_v2')
      .values({
        id: m.id,
        workspace_id: m.workspaceId,
        session_id: m.sessionId,
        time_created: m.timeCreated,
        time_updated: m.timeUpdated,
        info: jsonValue(JSON.stringify(m.info)),
        parts: jsonValue(JSON.stringify(m.parts)),
        runtime: m.runtime ?? null,
      })
      .$if(replace, (q) =>
        q.onConflict((conflict) =>
          conflict
            .column('id')
            .doUpdateSet((eb) => ({
              time_created: eb.ref('excluded.time_created'),
              time_updated: eb.ref('excluded.time_updated'),
              info: eb.ref('excluded.info'),
              parts: eb.ref('excluded.parts'),
              runtime: eb.ref('excluded.runtime'),
            }))
            .whereRef('messages_v2.workspace_id', '=', 'excluded.workspace_id')
            .whereRef('messages_v2.session_id', '=', 'excluded.session_id'),
        ),
      )
      .execute();
  }

  async deleteMessage(db: Db, workspaceId: string, sessionId: string, id: string): Promise<void> {
    await db
      .deleteFrom('messages_v2')
      .where('id', '=', id)
      .where('workspace_id', '=', workspaceId)
      .where('session_id', '=', sessionId)
      .execute();
  }

  async insertUsage(db: Db, u: NewUsage): Promise<void> {
    await db
      .insertInto('interaction_token_usage')
      .values({
        workspace_id: u.workspaceId,
        session_id: u.sessionId,
        source: u.source,
        context_used: u.contextUsed,
        context_size: u.contextSize,
        cost_amount: u.costAmount,
        cost_currency: u.costCurrency,
        created_at: u.createdAt,
      })
      .execute();
  }

  async putSessionRuntime(db: Db, r: NewSessionRuntime): Promise<void> {
    const definitions = this.dialect.jsonValue(JSON.stringify(r.definitions));
    await db
      .insertInto('session_runtime')
      .values({
        workspace_id: r.workspaceId,
        session_id: r.sessionId,
        runtime_key: r.runtimeKey,
        parent_session_id: r.parentSessionId,
        recorded_at: r.recordedAt,
        definitions,
      })
      .onConflict((conflict) =>
        conflict.columns(['workspace_id', 'session_id', 'runtime_key']).doUpdateSet((eb) => ({
          parent_session_id: eb.ref('excluded.parent_session_id'),
          recorded_at: eb.ref('excluded.recorded_at'),
          definitions: eb.ref('excluded.definitions'),
        })),
      )
      .execute();
  }

  async putTokenCounts(db: Db, rows: readonly TokenCountRow[]): Promise<void> {
    // Six parameters a row: well under every backend's limit per statement.
    for (let i = 0; i < rows.length; i += TOKEN_COUNT_BATCH) {
      await db
        .insertInto('token_counts')
        .values(rows.slice(i, i + TOKEN_COUNT_BATCH))
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    }
  }

  async putSessionOrigin(db: Db, r: SessionOriginRow): Promise<void> {
    await db
      .insertInto('session_origins')
      .values(r)
      .onConflict((conflict) =>
        conflict.columns(['workspace_id', 'session_id']).doUpdateSet((eb) => ({
          kind: eb.ref('excluded.kind'),
          parent_session_id: eb.ref('excluded.parent_session_id'),
          title: eb.ref('excluded.title'),
          directory: eb.ref('excluded.directory'),
          agent_version: eb.ref('excluded.agent_version'),
          updated_at: eb.ref('excluded.updated_at'),
          source_file: eb.ref('excluded.source_file'),
        })),
      )
      .execute();
  }

  async insertUser(db: Db, id: string, name: string): Promise<void> {
    await db.insertInto('users').values({ id, name }).execute();
  }

  async insertTokenHash(db: Db, tokenSha256: string, userId: string): Promise<void> {
    await db.insertInto('api_tokens').values({ token_sha256: tokenSha256, user_id: userId }).execute();
  }

  async insertWorkspace(db: Db, row: WorkspaceRow): Promise<void> {
    await db
      .insertInto('workspaces')
      .values({
        id: row.id,
        name: row.name,
        root_path: row.root_path,
        created_at: row.created_at,
        root_origin: row.root_origin ?? null,
      })
      .execute();
  }

  async setRootOrigin(db: Db, workspaceId: string, origin: string | null): Promise<void> {
    await db.updateTable('workspaces').set({ root_origin: origin }).where('id', '=', workspaceId).execute();
  }

  async addMember(db: Db, workspaceId: string, userId: string): Promise<void> {
    await db.insertInto('workspace_members').values({ workspace_id: workspaceId, user_id: userId }).execute();
  }

  // --- whole tables (digests, db copy) -------------------------------------------------------

  /** Every table's rows as the driver reads them, each table's sorted. */
  async contentRows(db: Db): Promise<string[]> {
    const out: string[] = [];
    for (const name of Object.keys(TABLES) as TableName[]) {
      if (!(await this.hasTable(db, name))) continue;
      const rows = await db.selectFrom(name).selectAll().execute();
      out.push(`# ${name}`, ...rows.map((row) => JSON.stringify(row)).sort());
    }
    return out;
  }

  /** A batch of a table's rows after a primary key (keyset order), JSON columns as text. */
  async tableBatch(db: Db, table: TableName, after: readonly unknown[] | null, limit: number) {
    const { columns: all, primaryKey } = TABLES[table] as Table;
    const { jsonText } = this.dialect;
    // A database of another writer may lack a nullable column a later migration added.
    const columns: Table['columns'] = [];
    for (const c of all) if (!c.nullable || (await this.hasColumn(db, table, c.name))) columns.push(c);
    const select = columns.map((c) => (c.type === 'json' ? jsonText(c.name).as(c.name) : sql.ref(c.name)));
    const key = sql.join(primaryKey.map((k) => sql.ref(k)));
    return sql<Record<string, unknown>>`select ${sql.join(select)} from ${sql.table(table)}
      ${after ? sql`where (${key}) > (${sql.join(after.map((v) => sql.val(v)))})` : sql``}
      order by ${key} limit ${limit}`
      .execute(db)
      .then((result) => result.rows);
  }

  /** Rows of a table, column for column, ids included: a few statements of many rows. */
  async insertRows(db: Db, table: TableName, rows: readonly Record<string, unknown>[]): Promise<void> {
    const { columns } = TABLES[table] as Table;
    const perStatement = Math.max(1, Math.floor(this.dialect.paramsPerStatement / columns.length));
    const value = (row: Record<string, unknown>) =>
      Object.fromEntries(
        columns.map((c) => [c.name, c.type === 'json' ? this.dialect.copiedJson(row[c.name]) : (row[c.name] ?? null)]),
      );
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement).map(value);
      // The table and its columns come from schema.ts; the values are whatever the other database held.
      await db
        .insertInto(table)
        .values(chunk as never)
        .execute();
    }
    const serial = columns.find((c) => c.serial);
    if (serial && rows.length > 0) await this.dialect.afterCopy(db, table, serial.name);
  }
}
