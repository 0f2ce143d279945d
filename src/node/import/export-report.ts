/**
 * `investibook debug context --export FILE`: the report straight from an export (or a Claude Code
 * transcript), with no database of the user's. The file goes through the import itself into a
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
import { AppError, usageError } from '../errors';
import { folderRefusal } from '../folder-rules';
import type { Store } from '../storage/store';
import { sweepStaleTemp } from '../temp-folders';
import { IN_MEMORY, openSqlite } from '../storage/sqlite/sqlite-store';
import { isTranscript, readTranscripts } from './claude-code/run';
import { writeTranscripts } from './claude-code/write-transcripts';
import { scanSources, writeSessions } from './import-sessions';
import { checkFile, ExportInputError } from './read-export';
import { folderHere, idFromFolder } from './workspace';

/** What the file holds, read and ready to write: its folder and how to store it. */
interface Loaded {
  directory: string | undefined;
  /** "export" or "transcript", in the words said about its folder. */
  noun: string;
  write(store: Store, workspaceId: string, root: string): Promise<void>;
}

export async function withExportSource<T>(
  files: readonly string[],
  options: { root?: string | undefined; sources?: string | undefined },
  io: Io,
  work: (source: ReportSource, workspaceId: string) => Promise<T>,
): Promise<T> {
  const file = files[0]!;
  const sourcesFile =
    options.sources === undefined ? undefined : readSources(resolve(io.cwd, options.sources), options.sources);
  const all: Loaded[] = [];
  for (const each of files) {
    const path = resolve(io.cwd, each);
    checkFile(path, each);
    all.push(isTranscript(path) ? loadTranscript(path, each) : await loadExport(path, each));
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

async function loadExport(path: string, file: string): Promise<Loaded> {
  let scanned;
  try {
    scanned = await scanSources([{ path, name: file }]);
  } catch (error) {
    throw error instanceof ExportInputError ? new AppError('invalid', 'bad_export', error.message) : error;
  }
  return {
    directory: scanned.map((s) => s.info.directory).find((d): d is string => typeof d === 'string' && d !== ''),
    noun: 'export',
    write: async (store, workspaceId, root) => {
      await writeSessions(store, scanned, { workspaceId, root, kind: 'opencode_export', now: Date.now() });
    },
  };
}

function loadTranscript(path: string, file: string): Loaded {
  const sessions = readTranscripts([{ path, name: file }]);
  return {
    directory: sessions[0]!.directory ?? undefined,
    noun: 'transcript',
    write: async (store, workspaceId, root) => {
      await writeTranscripts(store, sessions, { workspaceId, root, kind: 'claude_code_transcript', now: Date.now() });
    },
  };
}

/** The file's own folder, when it is here and allowed; else null, and the report says why in one line. */
function fileFolder({ directory, noun }: Loaded, io: Io): string | null {
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
