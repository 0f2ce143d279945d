/**
 * `investibook debug context --export FILE`: the report straight from an export, with no
 * database of the user's. The file goes through the import itself into a private SQLite
 * database in memory (so the figures are the import's, by construction, and nothing of the
 * session is written to disk or left behind by a killed run); the report reads it like any other.
 *
 * The export's folder is read for the workspace's own files (AGENTS.md, skills) only when the
 * folder rule allows it (folder-rules.ts): a file never points the report at `/` or `/etc`.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Io } from '../cli/io';
import { openStoreSource, type ReportSource } from '../cli/report-source';
import { AppError, usageError } from '../errors';
import { folderRefusal } from '../folder-rules';
import { sweepStaleTemp } from '../temp-folders';
import { IN_MEMORY, openSqlite } from '../storage/sqlite/sqlite-store';
import { scanSources, writeSessions } from './import-sessions';
import { ExportInputError } from './read-export';
import { folderHere, idFromFolder } from './workspace';

export async function withExportSource<T>(
  file: string,
  options: { root?: string | undefined },
  io: Io,
  work: (source: ReportSource, workspaceId: string) => Promise<T>,
): Promise<T> {
  const path = resolve(io.cwd, file);
  checkFile(path, file);
  sweepStaleTemp();
  let scanned;
  try {
    scanned = await scanSources([{ path, name: file }]);
  } catch (error) {
    throw error instanceof ExportInputError ? new AppError('invalid', 'bad_export', error.message) : error;
  }
  const given = options.root === undefined ? null : folderHere(resolve(io.cwd, options.root));
  if (options.root !== undefined && !given) throw usageError(`${options.root} is not a folder on this machine`);
  const directory = scanned.map((s) => s.info.directory).find((d): d is string => typeof d === 'string' && d !== '');
  // An empty folder of its own when the export's is not to be read: removed after, and a stale
  // one (a killed run) by the next run's sweep (temp-folders.ts).
  let empty: string | null = null;
  let root = given ?? exportFolder(directory, io);
  if (!root) root = empty = join(mkdtempSync(join(tmpdir(), 'investibook-export-')), 'workspace');
  try {
    if (empty) mkdirSync(empty);
    const workspaceId = idFromFolder(directory ?? root);
    const store = await openSqlite(IN_MEMORY);
    try {
      await writeSessions(store, scanned, { workspaceId, root, kind: 'opencode_export', now: Date.now() });
      return await work(openStoreSource(store, `from the export ${file}`, io.cwd), workspaceId);
    } finally {
      await store.close();
    }
  } finally {
    if (empty) rmSync(join(empty, '..'), { recursive: true, force: true });
  }
}

/** A missing file, a folder, a FIFO: said in one line before anything is read. */
function checkFile(path: string, file: string): void {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    throw usageError(`${file}: no such file`);
  }
  if (!stats.isFile()) throw usageError(`${file} is not a file`);
}

/** The export's own folder, when it is here and allowed; else null, and the report says why in one line. */
function exportFolder(directory: string | undefined, io: Io): string | null {
  const here = directory && isAbsolute(directory) ? folderHere(directory) : null;
  const why = here ? folderRefusal(here, []) : null;
  if (here && !why) return here;
  io.err(
    `investibook: ${
      !directory
        ? 'the export names no folder'
        : why
          ? `the export's folder ${directory} ${why}: it is not read`
          : `the export's folder ${directory} is not on this machine`
    }: the workspace's own files (AGENTS.md, skills) are not counted; give --root DIR to count them\n`,
  );
  return null;
}
