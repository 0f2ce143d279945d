/**
 * The `import` command's work (contract §8), loaded only when the command runs:
 *
 *   investibook import FILE... [--workspace ID] [--root DIR] [--user ID] [--db PATH | --database-url URL]
 *   investibook import --from-opencode [DIR] [--session ID] [...]
 *   investibook import --from-claude-code [DIR] [--session ID] [...]
 *
 * Runtime-neutral: each file goes to the runtime that recognises it (runtimes.ts), `--from-…` to
 * the runtime it names; that runtime's import (import/<runtime>) checks every file whole before
 * the database is opened and writes every session in one transaction. What is shared is here:
 * the options' rules, standard input kept in a private temporary file for the two passes, the
 * folder rule, the counts stored after and the words said.
 */
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { chooseDatabase } from '../program/database';
import type { Io } from '../program/io';
import type { CliEnv } from '../env';
import { usageError } from '../errors';
import { dataSecrets, folderRefusal } from '../folder-rules';
import { sweepStaleTemp } from '../temp-folders';
import { countSessions } from '../counting/count-sessions';
import { isDatabaseUrl } from '../storage/open';
import type { Store } from '../storage/store';
import type { ImportOptions, ImportRun, ImportSource, RuntimeImport, SessionResult, Writing } from './import-side';
import { checkFile } from './input-file';
import { IMPORT_SIDES, importSideOf } from './runtimes';
import { folderHere, type WorkspaceRequest } from './workspace';

export type { ImportOptions };

export async function runImport(files: string[], options: ImportOptions, io: Io, env: CliEnv): Promise<void> {
  const secrets = secretsOf(chooseDatabase(options, env, io.cwd).location, env, io.cwd);
  const from = askedStore(files, options);
  if (from) {
    await inWork((work) => from.importFrom({ options, io, env, writing: writing(secrets, options), work }));
    return;
  }
  const root = options.root === undefined ? undefined : checkedFolder(resolve(io.cwd, options.root), secrets);
  const request: WorkspaceRequest = { workspaceId: options.workspace, root, user: options.user, secrets };
  await inWork(async (work) => {
    const run: ImportRun = { options, io, env, writing: writing(secrets, options), work };
    const sources: ImportSource[] = [];
    for (const file of files) sources.push(await sourceOf(file, io, work));
    // Each file is told by its content, whatever its name; one runtime's files at a time.
    const sides = new Set(sources.map((source) => importSideOf(source.path)));
    if (sides.size > 1)
      throw usageError(
        `give ${IMPORT_SIDES.filter((side) => sides.has(side))
          .map((side) => side.files)
          .join(' and ')} in separate imports`,
      );
    await [...sides][0]!.importFiles(sources, request, run);
  });
}

/** The runtime whose own store `--from-…` asks, when one is; the options' rules, in one usage error each. */
function askedStore(files: readonly string[], options: ImportOptions): RuntimeImport | null {
  const asked = IMPORT_SIDES.filter((side) => options[side.from.option] !== undefined);
  if (asked.length > 1) throw usageError(`give ${asked.map((side) => side.from.flag).join(' or ')}, not both`);
  const [from] = asked;
  if (from && files.length > 0) throw usageError(`give FILE... or ${from.from.flag} [DIR], not both`);
  if (from) return from;
  if (files.length === 0)
    throw usageError(
      'import needs FILE... (what `opencode export SESSION_ID` printed; - for standard input) or --from-opencode [DIR]',
    );
  if (options.session)
    throw usageError('--session only makes sense with --from-opencode (a file names its own session)');
  return null;
}

/** A private folder for what the import keeps meanwhile (standard input, OpenCode's copy), removed after. */
async function inWork(work: (folder: string) => Promise<void>): Promise<void> {
  sweepStaleTemp();
  const folder = mkdtempSync(join(tmpdir(), 'investibook-import-'));
  try {
    await work(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The token counts of what was written, stored once here so that no report counts them again
 * (counting/count-sessions.ts). The sessions are imported whatever happens: a count that could
 * not be stored is said, and reports count those texts as they read them.
 */
async function countWritten(
  store: Store,
  results: readonly SessionResult[],
  io: Io,
  options: ImportOptions,
): Promise<void> {
  const written = results.filter((r) => r.added + r.replaced > 0);
  if (options.count === false) {
    // Counting makes a report of each session written, which holds that session in memory; the
    // writing itself holds one message at a time. A very large session on a small machine can
    // be imported now and counted later.
    if (written.length > 0)
      io.out('Token counts not stored (--no-count): reports count as they read; `investibook db count` stores them\n');
    return;
  }
  try {
    for (const r of written) await countSessions(store, r.workspaceId, [r.sessionId]);
  } catch (error) {
    io.err(
      `investibook: the sessions are imported, but their token counts were not stored (${(error as Error).message}): reports count them as they read; \`investibook db count\` stores them\n`,
    );
  }
}

const NO_AGENT = 'no live agent starts there until you give it: investibook import FILE --workspace ID --root DIR';

function report(results: readonly SessionResult[], database: string, io: Io): void {
  const made = new Set<string>();
  for (const r of results) {
    if (r.createdWorkspace && !made.has(r.workspaceId)) {
      made.add(r.workspaceId);
      io.out(
        `Created workspace ${r.workspaceId}${r.member ? ` (member: ${r.member})` : ' (no member: only the CLI sees it; give --user ID to let a user see it in the web app)'}\n`,
      );
      io.out(
        `Workspace folder: ${r.folder}${r.folderFromExport ? ` (the export's info.directory; ${NO_AGENT})` : ''}\n`,
      );
    }
    if (r.folderGiven && !made.has(r.workspaceId)) {
      made.add(r.workspaceId);
      io.out(`Workspace folder: ${r.folder} (given with --root: a live agent may start there)\n`);
    }
    const counts = [
      `${r.added} new`,
      ...(r.replaced ? [`${r.replaced} updated`] : []),
      ...(r.unchanged ? [`${r.unchanged} unchanged`] : []),
      ...(r.newerKept ? [`${r.newerKept} kept (the database's are newer)`] : []),
    ];
    io.out(
      `${r.added + r.replaced === 0 ? 'Already imported' : 'Imported'} session ${r.sessionId} into workspace ${r.workspaceId} from ${r.source}: ${counts.join(', ')} message${r.added + r.replaced + r.unchanged + r.newerKept === 1 ? '' : 's'}\n`,
    );
  }
  const last = results.at(-1);
  if (last)
    io.out(
      `Database: ${database}\nReport: investibook debug context ${last.workspaceId} --session ${last.sessionId}\n`,
    );
}

/** A folder given on the command line (--root, --from-opencode DIR), held to the same rule as an export's. */
function checkedFolder(path: string, secrets: readonly string[]): string {
  const here = folderHere(path);
  if (!here) throw usageError(`${path} is not a folder on this machine`);
  const why = folderRefusal(here, secrets);
  if (why) throw usageError(`${path} ${why}: a workspace's folder must be a project's own folder`);
  return here;
}

/** What no workspace folder may hold: the database, its folder, the data folder (folder-rules.ts). */
function secretsOf(location: string, env: CliEnv, cwd: string): string[] {
  const sqlite = !isDatabaseUrl(location);
  const dataDir = resolve(cwd, env.INVESTIBOOK_DATA_DIR ?? (sqlite ? dirname(location) : 'data'));
  return dataSecrets(sqlite ? location : null, dataDir);
}

async function sourceOf(file: string, io: Io, work: string): Promise<ImportSource> {
  if (file === '-') {
    const path = join(work, 'stdin.json');
    await pipeline(io.stdin ?? process.stdin, createWriteStream(path, { mode: 0o600 }));
    return { path, name: 'standard input' };
  }
  const path = resolve(io.cwd, file);
  checkFile(path, file);
  return { path, name: file };
}

/** What every runtime's import shares: the counts stored after, the words said, the folder rule. */
const writing = (secrets: readonly string[], options: ImportOptions): Writing => ({
  countWritten: (store: Store, results: readonly SessionResult[], io: Io) => countWritten(store, results, io, options),
  report: (results: readonly SessionResult[], database: string, io: Io) => report(results, database, io),
  checkedRoot: (path: string) => checkedFolder(path, secrets),
  secrets,
});
