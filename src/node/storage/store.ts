/**
 * All SQL of the program. Two ways in: `openWritable` for the server and the demo builder
 * (creates and migrates), `openReadOnly` for the debug path (never creates, never writes).
 */
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { failed } from '../errors';
import { migrate } from './schema';

export type Db = Database;

// Statements are prepared once per connection: preparing costs more than running a point query.
const statements = new WeakMap<Db, Map<string, BetterSqlite3.Statement>>();
function sql(db: Db, text: string): BetterSqlite3.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) cache.set(text, (statement = db.prepare(text)));
  return statement;
}

export interface WorkspaceRow {
  id: string;
  name: string;
  root_path: string;
  created_at: number;
}

export interface MessageRow {
  id: string;
  workspace_id: string;
  session_id: string;
  time_created: number;
  time_updated: number;
  info: string;
  parts: string;
}

export interface UsageRow {
  id: number;
  workspace_id: string;
  session_id: string;
  source: string;
  context_used: number | null;
  context_size: number | null;
  cost_amount: number | null;
  cost_currency: string | null;
  created_at: number;
}

export interface SessionRow {
  session_id: string;
  message_count: number;
  last_active: number;
}

/** Opens (creating if needed) and migrates a database for writing. */
export function openWritable(path: string): Db {
  const db = new BetterSqlite3(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

/**
 * Opens an existing database read-only. A missing file is an error: the debug path must
 * never create a database as a side effect.
 */
export function openReadOnly(path: string): Db {
  if (!existsSync(path)) throw failed('database_not_found', `database not found: ${path}`);
  try {
    const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    db.pragma('schema_version'); // fails here, with the path, if the file is not a database
    return db;
  } catch (error) {
    throw failed(
      'database_unreadable',
      `cannot read database ${path}: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  }
}

/** `root_path` is absolute, or relative to the directory of the database file (contract §1). */
export function resolveRoot(db: Db, rootPath: string): string {
  return isAbsolute(rootPath) ? rootPath : resolve(dirname(db.name), rootPath);
}

// --- users and access ------------------------------------------------------------------------

export function userIdForTokenHash(db: Db, tokenSha256: string): string | null {
  const row = sql(db, 'SELECT user_id FROM api_tokens WHERE token_sha256 = ?').get(tokenSha256) as
    { user_id: string } | undefined;
  return row?.user_id ?? null;
}

/** The workspace if it exists and the user is a member; otherwise null (the two are not told apart). */
export function workspaceForMember(db: Db, workspaceId: string, userId: string): WorkspaceRow | null {
  const row = sql(
    db,
    `SELECT w.id, w.name, w.root_path, w.created_at FROM workspaces w
       JOIN workspace_members m ON m.workspace_id = w.id AND m.user_id = ?
       WHERE w.id = ?`,
  ).get(userId, workspaceId) as WorkspaceRow | undefined;
  return row ?? null;
}

export function getWorkspace(db: Db, workspaceId: string): WorkspaceRow | null {
  const row = sql(db, 'SELECT id, name, root_path, created_at FROM workspaces WHERE id = ?').get(workspaceId) as
    WorkspaceRow | undefined;
  return row ?? null;
}

export function listWorkspaces(db: Db): WorkspaceRow[] {
  return sql(db, 'SELECT id, name, root_path, created_at FROM workspaces ORDER BY id').all() as WorkspaceRow[];
}

// --- sessions --------------------------------------------------------------------------------

/**
 * Sessions of a workspace, most recently active first. Activity is the latest of the messages'
 * time_updated and the ACP usage rows' created_at (contract §5).
 */
export function listSessions(db: Db, workspaceId: string): SessionRow[] {
  return sql(
    db,
    `SELECT session_id, SUM(n) AS message_count, MAX(t) AS last_active FROM (
         SELECT session_id, COUNT(*) AS n, MAX(time_updated) AS t FROM messages_v2
           WHERE workspace_id = ? GROUP BY session_id
         UNION ALL
         SELECT session_id, 0 AS n, MAX(created_at) AS t FROM interaction_token_usage
           WHERE workspace_id = ? AND source = 'acp' GROUP BY session_id
       ) GROUP BY session_id ORDER BY last_active DESC, session_id DESC`,
  ).all(workspaceId, workspaceId) as SessionRow[];
}

export function sessionExists(db: Db, workspaceId: string, sessionId: string): boolean {
  const row = sql(
    db,
    `SELECT 1 FROM messages_v2 WHERE workspace_id = ? AND session_id = ?
       UNION ALL
       SELECT 1 FROM interaction_token_usage WHERE workspace_id = ? AND session_id = ?
       LIMIT 1`,
  ).get(workspaceId, sessionId, workspaceId, sessionId);
  return row !== undefined;
}

// --- messages --------------------------------------------------------------------------------

export function listMessages(db: Db, workspaceId: string, sessionId: string): MessageRow[] {
  return sql(
    db,
    `SELECT id, workspace_id, session_id, time_created, time_updated, info, parts
       FROM messages_v2 WHERE workspace_id = ? AND session_id = ? ORDER BY id`,
  ).all(workspaceId, sessionId) as MessageRow[];
}

/** Ids and update stamps of a session's messages, in id order, from the index alone. */
export function messageStamps(db: Db, workspaceId: string, sessionId: string): { id: string; time_updated: number }[] {
  return sql(
    db,
    `SELECT id, time_updated FROM messages_v2
       WHERE workspace_id = ? AND session_id = ? ORDER BY id`,
  ).all(workspaceId, sessionId) as { id: string; time_updated: number }[];
}

export interface MessageHeaderRow {
  info: string;
  /** 1 when the parts text mentions "compaction" (then the parts are parsed to be sure). */
  maybe_compaction: number;
  size: number;
}

/** A message without its parts: enough to find the live context. */
export function messageHeader(db: Db, messageId: string): MessageHeaderRow | null {
  const row = sql(
    db,
    `SELECT info, instr(parts, '"compaction"') > 0 AS maybe_compaction,
              length(CAST(info AS BLOB)) + length(CAST(parts AS BLOB)) AS size
       FROM messages_v2 WHERE id = ?`,
  ).get(messageId) as MessageHeaderRow | undefined;
  return row ?? null;
}

export function messageParts(db: Db, messageId: string): string | null {
  const row = sql(db, 'SELECT parts FROM messages_v2 WHERE id = ?').get(messageId) as { parts: string } | undefined;
  return row?.parts ?? null;
}

export function messageById(db: Db, messageId: string): MessageRow | null {
  const row = sql(
    db,
    `SELECT id, workspace_id, session_id, time_created, time_updated, info, parts
       FROM messages_v2 WHERE id = ?`,
  ).get(messageId) as MessageRow | undefined;
  return row ?? null;
}

export interface NewMessage {
  id: string;
  workspaceId: string;
  sessionId: string;
  timeCreated: number;
  timeUpdated: number;
  info: unknown;
  parts: unknown[];
}

export function insertMessage(db: Db, message: NewMessage): void {
  sql(
    db,
    `INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    message.id,
    message.workspaceId,
    message.sessionId,
    message.timeCreated,
    message.timeUpdated,
    JSON.stringify(message.info),
    JSON.stringify(message.parts),
  );
}

// --- usage -----------------------------------------------------------------------------------

/** ACP usage rows of a session, newest first: other sources (e.g. evidence_postpass) never count. */
export function acpUsageNewestFirst(db: Db, workspaceId: string, sessionId: string, limit = 20): UsageRow[] {
  return sql(
    db,
    `SELECT * FROM interaction_token_usage
       WHERE workspace_id = ? AND session_id = ? AND source = 'acp'
       ORDER BY created_at DESC, id DESC LIMIT ?`,
  ).all(workspaceId, sessionId, limit) as UsageRow[];
}

export interface NewUsage {
  workspaceId: string;
  sessionId: string;
  source: string;
  contextUsed: number | null;
  contextSize: number | null;
  costAmount: number | null;
  costCurrency: string | null;
  createdAt: number;
}

export function insertUsage(db: Db, usage: NewUsage): void {
  sql(
    db,
    `INSERT INTO interaction_token_usage
       (workspace_id, session_id, source, context_used, context_size, cost_amount, cost_currency, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    usage.workspaceId,
    usage.sessionId,
    usage.source,
    usage.contextUsed,
    usage.contextSize,
    usage.costAmount,
    usage.costCurrency,
    usage.createdAt,
  );
}

// --- setup (demo builder, tests) -------------------------------------------------------------

export function insertUser(db: Db, id: string, name: string): void {
  sql(db, 'INSERT INTO users (id, name) VALUES (?, ?)').run(id, name);
}

export function insertTokenHash(db: Db, tokenSha256: string, userId: string): void {
  sql(db, 'INSERT INTO api_tokens (token_sha256, user_id) VALUES (?, ?)').run(tokenSha256, userId);
}

export function insertWorkspace(db: Db, row: WorkspaceRow): void {
  sql(db, 'INSERT INTO workspaces (id, name, root_path, created_at) VALUES (?, ?, ?, ?)').run(
    row.id,
    row.name,
    row.root_path,
    row.created_at,
  );
}

export function addMember(db: Db, workspaceId: string, userId: string): void {
  sql(db, 'INSERT INTO workspace_members (workspace_id, user_id) VALUES (?, ?)').run(workspaceId, userId);
}

/** A stable digest of every table's rows, for tests that prove a path wrote nothing. */
export function contentDigestRows(db: Db): string[] {
  const tables = sql(db, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as {
    name: string;
  }[];
  const out: string[] = [];
  for (const { name } of tables) {
    const rows = db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`).all();
    const lines = rows.map((row) => JSON.stringify(row)).sort();
    out.push(`# ${name}`, ...lines);
  }
  return out;
}
