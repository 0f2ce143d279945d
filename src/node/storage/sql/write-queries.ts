/**
 * Every write the program makes, over Kysely for every SQL backend (queries.ts has the reads):
 * messages, usage, runtimes, origins, token counts, users, tokens and workspaces.
 */
import type {
  MessageAnalysisRow,
  NewMessage,
  NewSessionRuntime,
  NewUsage,
  SessionOriginRow,
  TokenCountRow,
  WorkspaceRow,
} from '../store';
import type { Db } from './database';
import type { SqlDialect } from './dialect';

/** Token counts written per statement. */
const TOKEN_COUNT_BATCH = 500;
/** Analyses a statement: each holds a message's analysis as JSON text, so fewer than counts. */
const ANALYSIS_BATCH = 200;

export class WriteQueries {
  constructor(private readonly dialect: SqlDialect) {}

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

  async putMessageAnalyses(db: Db, rows: readonly MessageAnalysisRow[]): Promise<void> {
    // Eight parameters a row; the newer analysis of a message replaces the older.
    for (let i = 0; i < rows.length; i += ANALYSIS_BATCH) {
      await db
        .insertInto('message_analyses')
        .values(rows.slice(i, i + ANALYSIS_BATCH))
        .onConflict((conflict) =>
          conflict.columns(['workspace_id', 'session_id', 'message_id']).doUpdateSet((eb) => ({
            analyzer_version: eb.ref('excluded.analyzer_version'),
            analysis_key: eb.ref('excluded.analysis_key'),
            content_sha256: eb.ref('excluded.content_sha256'),
            deps: eb.ref('excluded.deps'),
            analysis: eb.ref('excluded.analysis'),
          })),
        )
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
}
