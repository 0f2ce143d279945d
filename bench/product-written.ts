/**
 * The bench workspace as the product writes it: the generated session (written straight into
 * contract §1's columns, as another writer would) exported as `opencode export` prints it and
 * imported with `investibook import` into a database of its own, which stores the token counts
 * (the write path). Both databases then hold the same session over the same folder.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqlite } from '../src/node/storage/sqlite/sqlite-store';
import { BENCH_SESSION, BENCH_WS } from './generate';

const PROJECT = join(import.meta.dirname, '..');

/** Writes `dir/export.json` from the generated database: the session as OpenCode exports it. */
async function exportSession(dbPath: string, root: string, dir: string): Promise<string> {
  const store = await openSqlite(dbPath, { readOnly: true });
  try {
    const rows = await store.listMessages(BENCH_WS, BENCH_SESSION);
    const messages = rows.map((row) => ({
      info: { ...(JSON.parse(String(row.info)) as object), id: row.id, sessionID: BENCH_SESSION },
      parts: (JSON.parse(String(row.parts)) as object[]).map((p) => ({
        ...p,
        sessionID: BENCH_SESSION,
        messageID: row.id,
      })),
    }));
    const path = join(dir, 'export.json');
    writeFileSync(path, JSON.stringify({ info: { id: BENCH_SESSION, directory: root, title: 'bench' }, messages }));
    return path;
  } finally {
    await store.close();
  }
}

/** `investibook import` of the generated session into `dir/product.db` (SQLite) or a PostgreSQL URL. */
export async function importBench(
  generated: { dbPath: string; root: string },
  dir: string,
  target = join(dir, 'product.db'),
): Promise<{ location: string; importMs: number }> {
  const file = await exportSession(generated.dbPath, generated.root, dir);
  const where = target.startsWith('postgres') ? ['--database-url', target] : ['--db', target];
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [join(PROJECT, 'bin/investibook.js'), 'import', file, ...where, '--workspace', BENCH_WS, '--root', generated.root],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`import failed: ${result.stderr}`);
  return { location: target, importMs: performance.now() - started };
}
