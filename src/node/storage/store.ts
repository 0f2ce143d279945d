/**
 * The storage interface: every query the program makes, asynchronous, whatever the backend.
 * SQLite (embedded, the default) and PostgreSQL implement it; nothing outside src/node/storage
 * imports a database driver. The report reads through `snapshot`, one consistent read.
 */
import type { TableName } from './schema';

export type { TableName };

export interface WorkspaceRow {
  id: string;
  name: string;
  root_path: string;
  created_at: number;
  /** 'export': the folder came from an imported file's info.directory (no live agent there); else null. */
  root_origin?: string | null;
}

export interface SessionRow {
  session_id: string;
  message_count: number;
  last_active: number;
}

/** `info` and `parts` as stored: JSON text normally; other writers may leave a BLOB or worse. */
export interface MessageRow {
  id: string;
  workspace_id: string;
  session_id: string;
  time_created: number;
  time_updated: number;
  info: unknown;
  parts: unknown;
  /** The runtime that wrote it (messages_v2.runtime; null: none named, OpenCode's): listMessages reads it. */
  runtime?: string | null;
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

export interface MessageStamp {
  id: string;
  time_updated: number;
  /** The row's version where the database keeps one (PostgreSQL's xmin): any change moves it. */
  version?: string;
}

export interface NewMessage {
  id: string;
  workspaceId: string;
  sessionId: string;
  timeCreated: number;
  timeUpdated: number;
  info: unknown;
  parts: unknown[];
  /** The agent runtime that wrote it ('opencode'); absent: none named (OpenCode's). */
  runtime?: string | null;
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

/**
 * What the agent runtime was for a session, as recorded where the agent ran: its definitions
 * (JSON, in the runtime's own shape) for one agent and model, and the session that made this
 * one (a subagent's), if any.
 */
export interface SessionRuntimeRow {
  workspace_id: string;
  session_id: string;
  runtime_key: string;
  parent_session_id: string | null;
  recorded_at: number;
  /** As stored: JSON text normally. */
  definitions: unknown;
}

export interface NewSessionRuntime {
  workspaceId: string;
  sessionId: string;
  runtimeKey: string;
  parentSessionId: string | null;
  recordedAt: number;
  definitions: unknown;
}

/** Where a session came from when it did not run through the bridge (investibook import). */
export interface SessionOriginRow {
  workspace_id: string;
  session_id: string;
  /** 'opencode_export' (a file or standard input) or 'opencode' (import --from-opencode). */
  kind: string;
  parent_session_id: string | null;
  title: string | null;
  directory: string | null;
  agent_version: string | null;
  imported_at: number;
  updated_at: number;
  /** The file the import read it from (schema.ts): null for `--from-opencode`, and before 0009. */
  source_file: string | null;
}

/** A text's token count as the write path made it (schema.ts, token_counts). */
export interface TokenCountRow {
  workspace_id: string;
  session_id: string;
  /** The encoding, e.g. 'o200k_base'. */
  tokenizer: string;
  /** The package and investibook's counting rules, e.g. 'ai-tokenizer@1.0.6/1'. */
  tokenizer_version: string;
  /** Lowercase hex SHA-256 of the text's UTF-8. */
  content_sha256: string;
  tokens: number;
}

/** A message's analysis as the write path made it (schema.ts, message_analyses). */
export interface MessageAnalysisRow {
  workspace_id: string;
  session_id: string;
  message_id: string;
  /** investibook's version and its analysis rules (report/stored-analyses.ts). */
  analyzer_version: string;
  /** What else the analysis depends on, as the core keys it (core/analysis.ts, storedKey). */
  analysis_key: string;
  /** Lowercase hex SHA-256 of the row's columns as stored (report/stored-analyses.ts). */
  content_sha256: string;
  /** JSON text: the sizes of the files the attribution looked at. */
  deps: string;
  /** JSON text: the analysis. */
  analysis: string;
}

/** Reads that must agree with each other: one snapshot of the database. */
export interface ReadSnapshot {
  getWorkspace(id: string): Promise<WorkspaceRow | null>;
  listSessions(workspaceId: string): Promise<SessionRow[]>;
  sessionExists(workspaceId: string, sessionId: string): Promise<boolean>;
  /**
   * The workspace a session belongs to: the one whose rows named it first (the earliest message
   * or usage row; ties go to messages, then to the lower workspace id). Null when no row names it.
   */
  sessionOwner(sessionId: string): Promise<string | null>;
  /** ACP usage rows of a session, newest first: other sources (evidence_postpass…) never. */
  acpUsageNewestFirst(workspaceId: string, sessionId: string, limit?: number): Promise<UsageRow[]>;
  /** The agent runtimes that wrote a session's messages, by name (null: a row that names none: OpenCode's). */
  messageRuntimes(workspaceId: string, sessionId: string): Promise<(string | null)[]>;
  /** Ids and update stamps of a session's messages, in id order, from the index alone. */
  messageStamps(workspaceId: string, sessionId: string): Promise<MessageStamp[]>;
  messages(ids: readonly string[]): Promise<MessageRow[]>;
  /** The runtime recorded with a session (its definitions, its parent session), by runtime key. */
  sessionRuntime(workspaceId: string, sessionId: string): Promise<SessionRuntimeRow[]>;
  /** Every subagent's session of a workspace with the session that made it (no definitions read). */
  sessionParents(workspaceId: string): Promise<{ session_id: string; parent_session_id: string }[]>;
  /** Where the workspace's imported sessions came from (none for the bridge's own); one session's with `sessionId`. */
  sessionOrigins(workspaceId: string, sessionId?: string): Promise<SessionOriginRow[]>;
  /** The token counts stored for these sessions of a workspace in one tokenizer version (none without the table). */
  tokenCounts(
    workspaceId: string,
    sessionIds: readonly string[],
    tokenizerVersion: string,
  ): Promise<Pick<TokenCountRow, 'tokenizer' | 'content_sha256' | 'tokens'>[]>;
  /**
   * The analyses stored for these sessions of a workspace by one analyzer version (none without
   * the table); only these messages' with `messageIds`.
   */
  messageAnalyses(
    workspaceId: string,
    sessionIds: readonly string[],
    analyzerVersion: string,
    messageIds?: readonly string[],
  ): Promise<Omit<MessageAnalysisRow, 'workspace_id' | 'session_id' | 'analyzer_version'>[]>;
}

export interface Store extends ReadSnapshot {
  readonly backend: 'sqlite' | 'postgres';
  /** Where this store is, for people (a file path, a URL without its password). */
  readonly location: string;
  /** `root_path` is absolute, or relative to the folder of the data (contract §1). */
  resolveRoot(rootPath: string): string;

  userIdForTokenHash(tokenSha256: string): Promise<string | null>;
  /** The workspace if it exists and the user is a member; otherwise null (never told apart). */
  workspaceForMember(workspaceId: string, userId: string): Promise<WorkspaceRow | null>;
  workspacesForMember(userId: string): Promise<WorkspaceRow[]>;
  listWorkspaces(): Promise<WorkspaceRow[]>;
  /** Every user, by id (the import names who may see a workspace it creates). */
  listUsers(): Promise<{ id: string; name: string }[]>;
  listMessages(workspaceId: string, sessionId: string): Promise<MessageRow[]>;

  /** One consistent read: every query inside sees the same database state. */
  snapshot<T>(work: (read: ReadSnapshot) => Promise<T>): Promise<T>;

  insertMessage(message: NewMessage): Promise<void>;
  /**
   * Inserts or replaces a message by id (an agent's message grows as its turn goes on). Never
   * moves one: a message of another session or workspace with that id is left as it is.
   */
  upsertMessage(message: NewMessage): Promise<void>;
  /** Deletes a message of that workspace and session (a kept prompt the agent's own copy replaced); no-op otherwise. */
  deleteMessage(workspaceId: string, sessionId: string, id: string): Promise<void>;
  insertUsage(usage: NewUsage): Promise<void>;
  /** Records (or records again) what the runtime was for a session, by its key. */
  putSessionRuntime(row: NewSessionRuntime): Promise<void>;
  /** Records (or records again) where an imported session came from. */
  putSessionOrigin(row: SessionOriginRow): Promise<void>;
  /** Stores token counts; a count already stored under the same key is left as it is (it is the same). */
  putTokenCounts(rows: readonly TokenCountRow[]): Promise<void>;
  /** Stores messages' analyses; one stored before for the same message is replaced (it is older). */
  putMessageAnalyses(rows: readonly MessageAnalysisRow[]): Promise<void>;
  insertUser(id: string, name: string): Promise<void>;
  insertTokenHash(tokenSha256: string, userId: string): Promise<void>;
  insertWorkspace(row: WorkspaceRow): Promise<void>;
  /** Where the workspace's folder came from (WorkspaceRow.root_origin): null once the operator gave it. */
  setRootOrigin(workspaceId: string, origin: string | null): Promise<void>;
  addMember(workspaceId: string, userId: string): Promise<void>;
  /** Writes that succeed or fail together. */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;

  /** Every table's rows, sorted: equal digests mean equal content (read-only tests). */
  contentRows(): Promise<string[]>;
  /** A table's rows as stored (JSON columns as text), in primary-key order, a batch at a time (db copy). */
  tableRows(table: TableName, batchSize?: number): AsyncIterable<Record<string, unknown>[]>;
  /** Inserts rows of a table column for column, ids included (db copy; JSON columns as text). */
  insertRows(table: TableName, rows: readonly Record<string, unknown>[]): Promise<void>;
  /** Cheap liveness check (health endpoint). */
  ping(): Promise<void>;
  /**
   * Whether a write could succeed now, without writing: the database answers, is not read-only,
   * and its disk has room. Throws StoreUnavailable saying which (health endpoint).
   */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}

export type UnavailableCode =
  /** locked by another writer too long */
  | 'database_busy'
  /** down, unreachable, or its file replaced */
  | 'database_unavailable'
  /** it did not answer in time (a hung server) */
  | 'database_timeout'
  /** it can be read but not written (a read-only disk or replica) */
  | 'database_read_only'
  /** its disk is full */
  | 'disk_full';

/** The database cannot be used right now (locked, down, hung, read-only, full): try again shortly. */
export class StoreUnavailable extends Error {
  constructor(
    message: string,
    readonly code: UnavailableCode,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreUnavailable';
  }
}

/** The database is not there, or not a database, or refused us. */
export class StoreOpenError extends Error {
  constructor(
    message: string,
    readonly code: 'database_not_found' | 'database_unreadable' | 'database_url_invalid' | 'database_read_only',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreOpenError';
  }
}

/**
 * A value this database cannot store: PostgreSQL's text cannot hold U+0000, so an id or name
 * with one is refused before it reaches the database (SQLite stores it). The request is at fault.
 */
export class StoreValueError extends Error {
  constructor(
    message: string,
    readonly code: 'unstorable_value',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreValueError';
  }
}
