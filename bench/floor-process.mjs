/**
 * The floor as a whole process, beside the CLI process: Node starts, opens the database
 * read-only (better-sqlite3, as the CLI does), reads and JSON.parses every message row of the
 * workspace, reads its files once, and prints one JSON line. Plain JavaScript, no transpiling:
 * the least a program answering from these rows could do.
 *   node bench/floor-process.mjs DB WORKSPACE_ID ROOT
 */
import Database from 'better-sqlite3';
import { folderBytes } from './floor-folder.mjs';

const [dbPath, workspaceId, root] = process.argv.slice(2);
const db = new Database(dbPath, { readonly: true, fileMustExist: true });
let parts = 0;
for (const row of db.prepare('SELECT info, parts FROM messages_v2 WHERE workspace_id = ?').iterate(workspaceId)) {
  JSON.parse(row.info);
  parts += JSON.parse(row.parts).length;
}
db.close();
const bytes = folderBytes(root);
process.stdout.write(`${JSON.stringify({ parts, bytes })}\n`);
