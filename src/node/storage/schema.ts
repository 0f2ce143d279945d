/**
 * Migrations, applied in order and recorded in PRAGMA user_version. The tables of contract
 * section 1 accept rows that fill only the listed columns: everything added here is an index.
 */
import type { Database } from 'better-sqlite3';

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL);
  CREATE TABLE api_tokens (
    token_sha256 TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id)
  );
  CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    root_path TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE workspace_members (
    workspace_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    PRIMARY KEY (workspace_id, user_id)
  );
  CREATE TABLE messages_v2 (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    time_created INTEGER NOT NULL,
    time_updated INTEGER NOT NULL,
    info TEXT NOT NULL,
    parts TEXT NOT NULL
  );
  CREATE INDEX messages_v2_session ON messages_v2 (workspace_id, session_id, id);
  CREATE TABLE interaction_token_usage (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    source TEXT NOT NULL,
    context_used INTEGER,
    context_size INTEGER,
    cost_amount REAL,
    cost_currency TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX interaction_token_usage_session
    ON interaction_token_usage (workspace_id, session_id, source, created_at);
  `,
  // A warm report checks which messages changed from this index alone, without reading rows.
  `
  CREATE INDEX messages_v2_stamps ON messages_v2 (workspace_id, session_id, id, time_updated);
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the database to the current schema. Idempotent; refuses a database from the future. */
export function migrate(db: Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(`database schema version ${current} is newer than this program's (${MIGRATIONS.length})`);
  }
  const apply = db.transaction(() => {
    for (let version = current; version < MIGRATIONS.length; version++) {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }
  });
  apply.immediate();
}
