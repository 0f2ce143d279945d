/**
 * The tables of schema.ts as Kysely sees them: what a query may select, insert and compare.
 * JSON columns (`info`, `parts`) are written as JSON text and read as whatever the database
 * holds (text normally; another writer's BLOB or number on SQLite), hence `unknown`.
 */
import type { ColumnType, Generated, Kysely } from 'kysely';
import type { TableName } from '../schema';
import type { MessageAnalysisRow, SessionOriginRow, TokenCountRow } from '../store';

type Json = ColumnType<unknown, string, string>;

export interface Database {
  users: { id: string; name: string };
  api_tokens: { token_sha256: string; user_id: string };
  workspaces: { id: string; name: string; root_path: string; created_at: number; root_origin: string | null };
  workspace_members: { workspace_id: string; user_id: string };
  messages_v2: {
    id: string;
    workspace_id: string;
    session_id: string;
    time_created: number;
    time_updated: number;
    info: Json;
    parts: Json;
    runtime: string | null;
  };
  interaction_token_usage: {
    id: Generated<number>;
    workspace_id: string;
    session_id: string;
    source: string;
    context_used: number | null;
    context_size: number | null;
    cost_amount: number | null;
    cost_currency: string | null;
    created_at: number;
  };
  session_runtime: {
    workspace_id: string;
    session_id: string;
    runtime_key: string;
    parent_session_id: string | null;
    recorded_at: number;
    definitions: Json;
  };
  session_origins: SessionOriginRow;
  token_counts: TokenCountRow;
  message_analyses: MessageAnalysisRow;
}

// The typed tables are the tables of schema.ts, no more and no fewer.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const TABLES_MATCH: Same<keyof Database, TableName> = true;

export type Db = Kysely<Database>;
