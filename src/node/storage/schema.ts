/**
 * The schema, described once for every backend: the tables of contract §1 (rows that fill only
 * the listed columns must be accepted, so everything added is nullable or an index) and the
 * migrations that build them, in order. sql/migrations.ts turns each migration into a Kysely
 * migration (its schema builder writes each backend's DDL); sql/database.ts types the tables.
 */

export type ColumnType = 'text' | 'integer' | 'real' | 'json';

export interface Column {
  name: string;
  type: ColumnType;
  nullable?: boolean;
  /** INTEGER PRIMARY KEY AUTOINCREMENT / identity. */
  serial?: boolean;
}

export interface Table {
  name: string;
  columns: Column[];
  primaryKey: string[];
  references?: { column: string; table: string; to: string }[];
}

export type MigrationStep =
  | { kind: 'table'; table: Table }
  | { kind: 'index'; name: string; table: string; columns: string[] }
  /** A nullable column added to a table that has rows (contract §1 allows extra nullable columns). */
  | { kind: 'column'; table: string; column: Column };

/** A schema version: its name (Kysely's migration table keeps it; names sort in order) and its steps. */
export interface Migration {
  name: string;
  steps: readonly MigrationStep[];
}

const text = (name: string, nullable = false): Column => ({ name, type: 'text', nullable });
const integer = (name: string, nullable = false): Column => ({ name, type: 'integer', nullable });

/**
 * The file an import read the session from, as it was named on the command line ("standard
 * input" for `-`); null for `--from-opencode` (OpenCode was asked, no file) and for sessions
 * imported before the column was added. Every view of the report names it (contract §8).
 */
const SOURCE_FILE_COLUMN = text('source_file', true);

/** messages_v2 as contract §1 lists it (the first schema version made exactly these). */
const MESSAGE_COLUMNS: readonly Column[] = [
  text('id'),
  text('workspace_id'),
  text('session_id'),
  integer('time_created'),
  integer('time_updated'),
  { name: 'info', type: 'json' },
  { name: 'parts', type: 'json' },
];
/**
 * Which agent runtime wrote a message row ('opencode' from the bridge); null: a row from
 * elsewhere, which is OpenCode's (as every row was before). The report reads a session with
 * the runtime its rows name.
 */
const RUNTIME_COLUMN = text('runtime', true);
/**
 * Where a workspace's folder came from: 'export' when an import took it from a file's
 * `info.directory` (no live agent starts there: docs/security.md); null when the operator gave
 * it (`--root`, the demo, a row from elsewhere).
 */
const ROOT_ORIGIN_COLUMN = text('root_origin', true);

export const TABLES = {
  users: { name: 'users', columns: [text('id'), text('name')], primaryKey: ['id'] },
  api_tokens: {
    name: 'api_tokens',
    columns: [text('token_sha256'), text('user_id')],
    primaryKey: ['token_sha256'],
    references: [{ column: 'user_id', table: 'users', to: 'id' }],
  },
  workspaces: {
    name: 'workspaces',
    columns: [text('id'), text('name'), text('root_path'), integer('created_at'), ROOT_ORIGIN_COLUMN],
    primaryKey: ['id'],
  },
  workspace_members: {
    name: 'workspace_members',
    columns: [text('workspace_id'), text('user_id')],
    primaryKey: ['workspace_id', 'user_id'],
  },
  messages_v2: {
    name: 'messages_v2',
    columns: [...MESSAGE_COLUMNS, RUNTIME_COLUMN],
    primaryKey: ['id'],
  },
  interaction_token_usage: {
    name: 'interaction_token_usage',
    columns: [
      { name: 'id', type: 'integer', serial: true },
      text('workspace_id'),
      text('session_id'),
      text('source'),
      integer('context_used', true),
      integer('context_size', true),
      { name: 'cost_amount', type: 'real', nullable: true },
      text('cost_currency', true),
      integer('created_at'),
    ],
    primaryKey: ['id'],
  },
  /**
   * What the agent runtime was for a session, recorded where the agent ran (the bridge, the
   * recorder): its own definitions — tools, MCP servers' tools, the environment block's facts —
   * as JSON, one row per agent and model the session used; and for a subagent's session, the
   * session whose `task` call made it. Not in contract §1: rows from elsewhere have none.
   */
  session_runtime: {
    name: 'session_runtime',
    columns: [
      text('workspace_id'),
      text('session_id'),
      // What the definitions are for: the agent and the model ("build scripted/scripted").
      text('runtime_key'),
      text('parent_session_id', true),
      integer('recorded_at'),
      { name: 'definitions', type: 'json' },
    ],
    primaryKey: ['workspace_id', 'session_id', 'runtime_key'],
  },
  /**
   * Where a session came from when it did not run through investibook's own agent bridge: an
   * `opencode export` file, or the user's own OpenCode asked (`investibook import`). Its parent
   * (a subagent's session) as the export's `info.parentID` names it; OpenCode's title, folder and
   * version; when it was first imported and when an import last changed it. Not in contract §1:
   * the rows of the session are OpenCode's own, in messages_v2, and this is investibook's note.
   */
  session_origins: {
    name: 'session_origins',
    columns: [
      text('workspace_id'),
      text('session_id'),
      // 'opencode_export' (a file or standard input) or 'opencode' (import --from-opencode).
      text('kind'),
      text('parent_session_id', true),
      text('title', true),
      text('directory', true),
      text('agent_version', true),
      integer('imported_at'),
      integer('updated_at'),
      SOURCE_FILE_COLUMN,
    ],
    primaryKey: ['workspace_id', 'session_id'],
  },
  /**
   * Token counts made on the write path (the bridge after a turn, `investibook import`,
   * `investibook db count`), so that a report counts only what has none: one row per text a
   * session's report counts, keyed by the SHA-256 of the text and the tokenizer (its encoding,
   * and a version naming the package and investibook's counting rules). A count is a fact about
   * a text, never about a row: a row another writer changed has other texts, which find no count
   * and are counted as the report reads them. Filed under the session whose report counted it,
   * so that a report finds its counts in one query of its snapshot before it knows the texts.
   * Not in contract §1: rows from elsewhere have none, and lose nothing by it.
   */
  token_counts: {
    name: 'token_counts',
    columns: [
      text('workspace_id'),
      text('session_id'),
      // The encoding ('o200k_base', 'claude', …): the multiplier a family applies is not in it.
      text('tokenizer'),
      text('tokenizer_version'),
      text('content_sha256'),
      integer('tokens'),
    ],
    primaryKey: ['workspace_id', 'session_id', 'tokenizer_version', 'tokenizer', 'content_sha256'],
  },
  /**
   * Each message's analysis (what the runtime makes of its row, estimated) made on the write path
   * beside the token counts, so that a cold report reads analyses instead of making them. One row
   * a message: the analysis its session's report made last. It is used only when everything it
   * depends on is as it was: the row's content (SHA-256 of its columns as stored), the analyzer
   * (`analyzer_version`: investibook's version and its analysis rules), and the report's context
   * (`analysis_key`: the estimator, live or history, the runtime, the workspace's sources and the
   * session's facts), with the sizes of the files it looked at (`deps`); otherwise the report
   * makes it again. Filed under the message's session, read with the counts in one query of the
   * snapshot. Not in contract §1: rows from elsewhere have none, and lose nothing by it.
   */
  message_analyses: {
    name: 'message_analyses',
    columns: [
      text('workspace_id'),
      text('session_id'),
      text('message_id'),
      text('analyzer_version'),
      text('analysis_key'),
      text('content_sha256'),
      // JSON text: [path, size or null][] of the files the attribution looked at.
      text('deps'),
      // JSON text: the MessageAnalysis (core/types.ts).
      text('analysis'),
    ],
    primaryKey: ['workspace_id', 'session_id', 'message_id'],
  },
} satisfies Record<string, Table>;

export type TableName = keyof typeof TABLES;

/** Tables in an order that satisfies their references (users before the tokens that name them). */
export const TABLE_ORDER: readonly TableName[] = [
  'users',
  'api_tokens',
  'workspaces',
  'workspace_members',
  'messages_v2',
  'interaction_token_usage',
  'session_runtime',
  'session_origins',
  'token_counts',
  'message_analyses',
];

/** The tables of contract §1: the first schema version made exactly these. */
const CONTRACT_TABLES: readonly TableName[] = [
  'users',
  'api_tokens',
  'workspaces',
  'workspace_members',
  'messages_v2',
  'interaction_token_usage',
];

/** The tables whose first version lacked columns added since. */
const FIRST_VERSION = {
  messages_v2: { ...TABLES.messages_v2, columns: [...MESSAGE_COLUMNS] },
  workspaces: { ...TABLES.workspaces, columns: TABLES.workspaces.columns.filter((c) => c !== ROOT_ORIGIN_COLUMN) },
  session_origins: {
    ...TABLES.session_origins,
    columns: TABLES.session_origins.columns.filter((c) => c !== SOURCE_FILE_COLUMN),
  },
} satisfies Partial<Record<TableName, Table>>;

/** Version N of the schema is the first N migrations. Never edit one that has shipped: add one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    name: '0001_tables',
    steps: [
      ...CONTRACT_TABLES.map((name): MigrationStep => ({
        kind: 'table',
        table: FIRST_VERSION[name as keyof typeof FIRST_VERSION] ?? TABLES[name],
      })),
      {
        kind: 'index',
        name: 'messages_v2_session',
        table: 'messages_v2',
        columns: ['workspace_id', 'session_id', 'id'],
      },
      {
        kind: 'index',
        name: 'interaction_token_usage_session',
        table: 'interaction_token_usage',
        columns: ['workspace_id', 'session_id', 'source', 'created_at'],
      },
    ],
  },
  // A warm report checks which messages changed from this index alone, without reading rows.
  {
    name: '0002_message_stamps',
    steps: [
      {
        kind: 'index',
        name: 'messages_v2_stamps',
        table: 'messages_v2',
        columns: ['workspace_id', 'session_id', 'id', 'time_updated'],
      },
    ],
  },
  // Which workspace a session belongs to is asked by session id alone (Store.sessionOwner).
  {
    name: '0003_session_owner',
    steps: [
      { kind: 'index', name: 'messages_v2_by_session', table: 'messages_v2', columns: ['session_id', 'time_created'] },
      {
        kind: 'index',
        name: 'interaction_token_usage_by_session',
        table: 'interaction_token_usage',
        columns: ['session_id', 'created_at'],
      },
    ],
  },
  // The runtime's own definitions, recorded with the session where the agent ran.
  { name: '0004_session_runtime', steps: [{ kind: 'table', table: TABLES.session_runtime }] },
  // Where an imported session came from (investibook import).
  { name: '0005_session_origins', steps: [{ kind: 'table', table: FIRST_VERSION.session_origins }] },
  // Which runtime wrote each message; which runtimes wrote a session is read from the index alone.
  {
    name: '0006_message_runtime',
    steps: [
      { kind: 'column', table: 'messages_v2', column: RUNTIME_COLUMN },
      {
        kind: 'index',
        name: 'messages_v2_runtime',
        table: 'messages_v2',
        columns: ['workspace_id', 'session_id', 'runtime'],
      },
    ],
  },
  // Token counts made where content arrives (the write path), read by the report.
  { name: '0007_token_counts', steps: [{ kind: 'table', table: TABLES.token_counts }] },
  // Whether a workspace's folder came from an imported file (then no live agent starts there).
  { name: '0008_workspace_root_origin', steps: [{ kind: 'column', table: 'workspaces', column: ROOT_ORIGIN_COLUMN }] },
  // The file an imported session was read from, so every view of its report names it.
  {
    name: '0009_session_origin_file',
    steps: [{ kind: 'column', table: 'session_origins', column: SOURCE_FILE_COLUMN }],
  },
  // Each message's analysis made on the write path, read by a cold report (issue 42).
  { name: '0010_message_analyses', steps: [{ kind: 'table', table: TABLES.message_analyses }] },
];

export const SCHEMA_VERSION = MIGRATIONS.length;
