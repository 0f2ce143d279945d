/**
 * A session read back from the pinned OpenCode's own storage without starting OpenCode: its
 * binary is a Bun executable, which runs a script instead of OpenCode when BUN_BE_BUN is set —
 * ~0.1 CPU-second where `opencode export` takes ~4 (it loads all of OpenCode first). The script
 * reads OpenCode's SQLite database (`$XDG_DATA_HOME/opencode/opencode.db`) the way OpenCode's
 * export does — a message is its stored `data` with its ids added after it, its parts by id,
 * the messages by creation time and id — so its JSON is the export's byte for byte
 * (test/agent/live-agent.test.ts compares them). It runs as the export does: in the agent's
 * sandbox, no network, seeing only the workspace agent's own state. Only for the OpenCode version
 * it was checked against (OPENCODE_VERSION, read from the binary's own package): any other is
 * exported (index.ts).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Program } from '../settings';
import { OPENCODE_VERSION } from './install';

/**
 * Bun's own script (`bun:sqlite`): argv's last word is the session id. Exits 4 when the
 * database or the session is not there (an export then tells what OpenCode knows).
 */
const READ_SESSION = `
const { Database } = require('bun:sqlite');
const { existsSync } = require('node:fs');
const id = process.argv.at(-1);
const file = require('node:path').join(process.env.XDG_DATA_HOME ?? '', 'opencode', 'opencode.db');
if (!existsSync(file)) { console.error('no OpenCode database at ' + file); process.exit(4); }
const db = new Database(file, { readonly: true });
const session = db.query('SELECT id, parent_id, directory, title, version, permission FROM session WHERE id = ?').get(id);
if (!session) { console.error('no session ' + id); process.exit(4); }
const parts = new Map();
for (const row of db.query('SELECT id, message_id, session_id, data FROM part WHERE session_id = ? ORDER BY message_id, id').all(id)) {
  const list = parts.get(row.message_id) ?? [];
  list.push({ ...JSON.parse(row.data), id: row.id, sessionID: row.session_id, messageID: row.message_id });
  parts.set(row.message_id, list);
}
const messages = db
  .query('SELECT id, session_id, data FROM message WHERE session_id = ? ORDER BY time_created, id')
  .all(id)
  .map((row) => ({ info: { ...JSON.parse(row.data), id: row.id, sessionID: row.session_id }, parts: parts.get(row.id) ?? [] }));
const info = { id: session.id, directory: session.directory, title: session.title, version: session.version };
if (session.parent_id) info.parentID = session.parent_id;
if (session.permission) info.permission = JSON.parse(session.permission);
process.stdout.write(JSON.stringify({ info, messages }));
`;

/** The variable that makes a Bun executable run the script it is given. */
export const READER_ENV = { BUN_BE_BUN: '1' } as const;

const checked = new Map<string, boolean>();

/** Whether the binary is the OpenCode version the script was checked against (its package says so). */
function isPinned(bin: string): boolean {
  let pinned = checked.get(bin);
  if (pinned === undefined) {
    try {
      const pkg = JSON.parse(readFileSync(join(dirname(dirname(realpathSync(bin))), 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      pinned = typeof pkg.name === 'string' && pkg.name.startsWith('opencode-') && pkg.version === OPENCODE_VERSION;
    } catch {
      pinned = false;
    }
    checked.set(bin, pinned);
  }
  return pinned;
}

/** The program that reads a session from OpenCode's storage, when `bin` is the pinned OpenCode; else null. */
export function sessionReader(bin: string | undefined, sessionId: string): Program | null {
  if (!bin || !isPinned(bin)) return null;
  // Run in the workspace folder, Bun would load its `.env` files and its bunfig.toml (whose
  // `preload` runs code first): neither is the reader's.
  return { command: bin, args: ['--no-env-file', '--config=/dev/null', '-e', READ_SESSION, sessionId] };
}
