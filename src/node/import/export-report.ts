/**
 * `investibook debug context --export FILE`: the report straight from a runtime's file (an
 * OpenCode export, a Claude Code transcript: the runtime that recognises it reads it,
 * runtimes.ts), with no database of the user's. The file goes through the import itself into a
 * private SQLite database in memory (so the figures are the import's, by construction, and
 * nothing of the session is written to disk or left behind by a killed run); the report reads it
 * like any other.
 *
 * The file's folder is read for the workspace's own files (AGENTS.md, skills) only when the
 * folder rule allows it (folder-rules.ts): a file never points the report at `/` or `/etc`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Io } from '../program/io';
import { openStoreSource, type ReportSource } from '../program/report-source';
import { usageError } from '../errors';
import { folderRefusal } from '../folder-rules';
import { sweepStaleTemp } from '../temp-folders';
import { IN_MEMORY, openSqlite } from '../storage/sqlite/sqlite-store';
import type { LoadedFile } from './import-side';
import { checkFile } from './input-file';
import { importSideOf } from './runtimes';
import { folderHere, idFromFolder } from './workspace';

export async function withExportSource<T>(
  files: readonly string[],
  options: { root?: string | undefined; sources?: string | undefined },
  io: Io,
  work: (source: ReportSource, workspaceId: string) => Promise<T>,
): Promise<T> {
  const file = files[0]!;
  const sourcesFile =
    options.sources === undefined ? undefined : readSources(resolve(io.cwd, options.sources), options.sources);
  const all: LoadedFile[] = [];
  for (const each of files) {
    const path = resolve(io.cwd, each);
    checkFile(path, each);
    // Read by the runtime that recognises it (runtimes.ts), whatever its name.
    all.push(await importSideOf(path).load(path, each));
  }
  sweepStaleTemp();
  const loaded = all[0]!;
  const given = options.root === undefined ? null : folderHere(resolve(io.cwd, options.root));
  if (options.root !== undefined && !given) throw usageError(`${options.root} is not a folder on this machine`);
  // An empty folder of its own when the file's is not to be read: removed after, and a stale
  // one (a killed run) by the next run's sweep (temp-folders.ts).
  let empty: string | null = null;
  let root = given ?? fileFolder(loaded, io);
  if (!root) root = empty = join(mkdtempSync(join(tmpdir(), 'investibook-export-')), 'workspace');
  try {
    if (empty) mkdirSync(empty);
    const workspaceId = idFromFolder(loaded.directory ?? root);
    const store = await openSqlite(IN_MEMORY);
    try {
      for (const each of all) await each.write(store, workspaceId, root);
      const local = openStoreSource(
        store,
        `from the ${loaded.noun} ${file}`,
        io.cwd,
        sourcesFile ? { sources: sourcesFile } : {},
      );
      // The report names the files it came from (contract §8), in every view.
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
      await store.close();
    }
  } finally {
    if (empty) rmSync(join(empty, '..'), { recursive: true, force: true });
  }
}

/** The file's own folder, when it is here and allowed; else null, and the report says why in one line. */
function fileFolder({ directory, noun }: LoadedFile, io: Io): string | null {
  const here = directory && isAbsolute(directory) ? folderHere(directory) : null;
  const why = here ? folderRefusal(here, []) : null;
  if (here && !why) return here;
  io.err(
    `investibook: ${
      !directory
        ? `the ${noun} names no folder`
        : why
          ? `the ${noun}'s folder ${directory} ${why}: it is not read`
          : `the ${noun}'s folder ${directory} is not on this machine`
    }: the workspace's own files (AGENTS.md, skills) are not counted; give --root DIR to count them\n`,
  );
  return null;
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
