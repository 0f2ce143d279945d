/**
 * The floor as a whole process on PostgreSQL, beside the CLI process on the same database: Node
 * starts, connects (node-postgres, as the CLI does), reads and JSON.parses every message row of
 * the workspace, reads its files once, and prints one JSON line.
 *   node bench/floor-process-pg.mjs DATABASE_URL WORKSPACE_ID ROOT
 */
import pg from 'pg';
import { folderBytes } from './floor-folder.mjs';

const [url, workspaceId, root] = process.argv.slice(2);
const client = new pg.Client({ connectionString: url });
await client.connect();
let parts = 0;
const { rows } = await client.query(
  'SELECT info::text AS info, parts::text AS parts FROM messages_v2 WHERE workspace_id = $1',
  [workspaceId],
);
for (const row of rows) {
  JSON.parse(row.info);
  parts += JSON.parse(row.parts).length;
}
await client.end();
const bytes = folderBytes(root);
process.stdout.write(`${JSON.stringify({ parts, bytes })}\n`);
