/**
 * `investibook debug context --export FILE`: the report straight from an export, with no
 * database of the user's. The file goes through the import itself into a private temporary
 * SQLite database (so the figures are the import's, by construction), the report reads it
 * read-only like any other, and the database is deleted after.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Io } from '../cli/io';
import { localSource, type ReportSource } from '../cli/report-source';
import { AppError, usageError } from '../errors';
import { openStore } from '../storage/open';
import { scanSources, writeSessions } from './import-sessions';
import { ExportInputError } from './read-export';
import { folderHere, idFromFolder } from './workspace';

export async function withExportSource<T>(
  files: readonly string[],
  options: { root?: string | undefined; sources?: string | undefined },
  io: Io,
  work: (source: ReportSource, workspaceId: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-export-'));
  try {
    const sourcesFile =
      options.sources === undefined ? undefined : readSources(resolve(io.cwd, options.sources), options.sources);
    let scanned;
    try {
      scanned = await scanSources(files.map((file) => ({ path: resolve(io.cwd, file), name: file })));
    } catch (error) {
      throw error instanceof ExportInputError ? new AppError('invalid', 'bad_export', error.message) : error;
    }
    const given = options.root === undefined ? null : folderHere(resolve(io.cwd, options.root));
    if (options.root !== undefined && !given) throw usageError(`${options.root} is not a folder on this machine`);
    const directory = scanned.map((s) => s.info.directory).find((d): d is string => typeof d === 'string' && d !== '');
    let root = given ?? folderHere(directory);
    if (!root) {
      root = join(dir, 'workspace');
      mkdirSync(root);
      io.err(
        `investibook: ${directory ? `the export's folder ${directory} is not on this machine` : 'the export names no folder'}: the workspace's own files (AGENTS.md, skills) are not counted; give --root DIR to count them\n`,
      );
    }
    const workspaceId = idFromFolder(directory ?? root);
    const database = join(dir, 'export.db');
    const store = await openStore({ location: database });
    try {
      await writeSessions(store, scanned, { workspaceId, root, kind: 'opencode_export', now: Date.now() });
    } finally {
      await store.close();
    }
    // The report names the file it came from (contract §8), in every view.
    const local = localSource(database, io.cwd, undefined, sourcesFile ? { sources: sourcesFile } : {});
    const named: ReportSource = {
      ...local,
      report: async (request) => {
        const report = await local.report(request);
        return {
          ...report,
          origin: { ...report.origin, kind: report.origin?.kind ?? 'opencode_export', files: [...files] },
        };
      },
    };
    return await work(named, workspaceId);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The file `--sources` names: its text, or a usage error in one line. */
function readSources(path: string, given: string): { file: string; text: string } {
  try {
    return { file: given, text: readFileSync(path, 'utf8') };
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw usageError(`--sources ${given}: ${missing ? 'no such file' : 'cannot be read'}`);
  }
}
