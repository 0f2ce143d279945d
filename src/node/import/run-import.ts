/**
 * The `import` command's work (contract §8), loaded only when the command runs:
 *
 *   investibook import FILE... [--workspace ID] [--root DIR] [--user ID] [--db PATH | --database-url URL]
 *   investibook import --from-opencode [DIR] [--session ID] [...]
 *
 * Files are checked whole before the database is opened (a bad file leaves it as it was, and a
 * database that did not exist is not created); then every session is written in one
 * transaction. `-` is standard input, kept in a private temporary file for the two passes.
 */
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { chooseDatabase } from '../program/database';
import type { Io } from '../program/io';
import type { CliEnv } from '../env';
import { AppError, usageError } from '../errors';
import { dataSecrets, folderRefusal } from '../folder-rules';
import { ensureFolder } from '../fs-safe';
import { sweepStaleTemp } from '../temp-folders';
import { countSessions } from '../counting/count-sessions';
import { isDatabaseUrl, openStore, redact } from '../storage/open';
import type { Store } from '../storage/store';
import { fromOpencode } from './from-opencode';
import {
  scanSources,
  writeSessions,
  type ImportSource,
  type OriginKind,
  type Progress,
  type ScannedExport,
  type SessionResult,
} from './import-sessions';
import { intoDatabase } from './new-database';
import { checkFile, ExportInputError } from './read-export';
import { importClaudeCode, isTranscript, type Writing } from './claude-code/run';
import { folderHere, rootFor, type WorkspaceRequest } from './workspace';

export interface ImportOptions {
  workspace?: string;
  root?: string;
  user?: string;
  db?: string;
  databaseUrl?: string;
  fromOpencode?: string | boolean;
  fromClaudeCode?: string | boolean;
  session?: string;
  opencode?: string;
}

export async function runImport(files: string[], options: ImportOptions, io: Io, env: CliEnv): Promise<void> {
  const secrets = secretsOf(chooseDatabase(options, env, io.cwd).location, env, io.cwd);
  if (options.fromClaudeCode !== undefined) {
    if (options.fromOpencode !== undefined) throw usageError('give --from-opencode or --from-claude-code, not both');
    if (files.length > 0) throw usageError('give FILE... or --from-claude-code [DIR], not both');
    await importClaudeCode(null, options, io, env, writing(secrets));
    return;
  }
  if (options.fromOpencode === undefined && files.length === 0)
    throw usageError(
      'import needs FILE... (what `opencode export SESSION_ID` printed; - for standard input) or --from-opencode [DIR]',
    );
  if (options.fromOpencode !== undefined && files.length > 0)
    throw usageError('give FILE... or --from-opencode [DIR], not both');
  if (options.session && options.fromOpencode === undefined)
    throw usageError('--session only makes sense with --from-opencode (a file names its own session)');
  const checkedRoot = (path: string) => checkedFolder(path, secrets);
  const root = options.root === undefined ? undefined : checkedRoot(resolve(io.cwd, options.root));
  const request: WorkspaceRequest = { workspaceId: options.workspace, root, user: options.user, secrets };
  sweepStaleTemp();
  const work = mkdtempSync(join(tmpdir(), 'investibook-import-'));
  try {
    if (options.fromOpencode !== undefined) {
      const dir = resolve(io.cwd, typeof options.fromOpencode === 'string' ? options.fromOpencode : '.');
      const found = await fromOpencode({
        dir: checkedRoot(dir),
        session: options.session,
        binary: options.opencode ?? env.INVESTIBOOK_OPENCODE ?? 'opencode',
        env: io.env,
        work,
        log: (line) => io.err(`${line}\n`),
      });
      await importSources(found, { ...request, root: request.root ?? checkedRoot(dir) }, 'opencode', options, io, env);
      return;
    }
    const sources: ImportSource[] = [];
    for (const file of files) sources.push(await sourceOf(file, io, work));
    // Claude Code transcripts are told by their content (JSON lines), whatever their names.
    const transcripts = sources.filter((s) => isTranscript(s.path));
    if (transcripts.length > 0) {
      if (transcripts.length < sources.length)
        throw usageError('give OpenCode exports and Claude Code transcripts in separate imports');
      await importClaudeCode(sources, options, io, env, writing(secrets));
      return;
    }
    await importSources(sources, request, 'opencode_export', options, io, env);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function importSources(
  sources: ImportSource[],
  request: WorkspaceRequest,
  kind: OriginKind,
  options: ImportOptions,
  io: Io,
  env: CliEnv,
): Promise<void> {
  const progress = io.errIsTTY ? progressLine(io) : undefined;
  let scanned: ScannedExport[];
  try {
    scanned = await scanSources(sources, progress?.update);
  } catch (error) {
    throw asInputError(error);
  } finally {
    progress?.clear();
  }
  const { location } = chooseDatabase(options, env, io.cwd);
  const sqlite = !isDatabaseUrl(location);
  const lone = sqlite ? undefined : scanned.find((s) => s.loneSurrogate);
  if (lone)
    throw new AppError(
      'invalid',
      'bad_export',
      `${lone.source.name}: ${lone.loneSurrogate} has a text with a lone UTF-16 surrogate (a \\ud800-style escape without its pair), which PostgreSQL cannot store as JSON: nothing was imported`,
    );
  // A database that is not there yet has no workspace: every session needs a folder first (an
  // allowed one), so that a refusal leaves no database behind.
  if (sqlite && !existsSync(location)) {
    for (const s of scanned) rootFor({ sessionId: s.info.id, parentId: null, directory: directoryOf(s) }, request);
  }
  if (sqlite) ensureFolder(dirname(location));
  const results = await intoDatabase(location, sqlite, async (at) => {
    const store = await openStore({ location: at });
    try {
      let written: SessionResult[];
      try {
        written = await writeSessions(store, scanned, {
          ...request,
          kind,
          now: Date.now(),
          ...(progress ? { progress: progress.update } : {}),
        });
      } catch (error) {
        throw asInputError(error);
      } finally {
        progress?.clear();
      }
      await countWritten(store, written, io);
      return written;
    } finally {
      await store.close();
    }
  });
  report(results, sqlite ? location : redact(location), io);
}

/**
 * The token counts of what was written, stored once here so that no report counts them again
 * (counting/count-sessions.ts). The sessions are imported whatever happens: a count that could
 * not be stored is said, and reports count those texts as they read them.
 */
async function countWritten(store: Store, results: readonly SessionResult[], io: Io): Promise<void> {
  const written = results.filter((r) => r.added + r.replaced > 0);
  try {
    for (const r of written) await countSessions(store, r.workspaceId, [r.sessionId]);
  } catch (error) {
    io.err(
      `investibook: the sessions are imported, but their token counts were not stored (${(error as Error).message}): reports count them as they read; \`investibook db count\` stores them\n`,
    );
  }
}

const NO_AGENT = 'no live agent starts there until you give it: investibook import FILE --workspace ID --root DIR';

const directoryOf = (s: ScannedExport): string | null =>
  typeof s.info.directory === 'string' && s.info.directory ? s.info.directory : null;

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

/** What the Claude Code import shares with this one: the counts stored after, the words said, the folder rule. */
const writing = (secrets: readonly string[]): Writing => ({
  countWritten: (store: Store, results: readonly SessionResult[], io: Io) => countWritten(store, results, io),
  report: (results: readonly SessionResult[], database: string, io: Io) => report(results, database, io),
  checkedRoot: (path: string) => checkedFolder(path, secrets),
  secrets,
});

function asInputError(error: unknown): unknown {
  return error instanceof ExportInputError ? new AppError('invalid', 'bad_export', error.message) : error;
}

/**
 * One line on a terminal's stderr, rewritten in place at most a few times a second — and at once when the
 * phase or the file changes, so a quick file still says it was written.
 */
function progressLine(io: Io): { update: Progress; clear: () => void } {
  let last = 0;
  let lastStep = '';
  let shown = false;
  const sizes = new Map<string, number>();
  const mb = (n: number) => `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;
  return {
    update: (phase, source, bytes) => {
      const now = Date.now();
      const step = `${phase}\0${source.path}`;
      if (step === lastStep && now - last < 250) return;
      last = now;
      lastStep = step;
      let size = sizes.get(source.path);
      if (size === undefined) sizes.set(source.path, (size = statSync(source.path).size));
      io.status?.(`${phase === 'checking' ? 'Checking' : 'Writing'} ${source.name}: ${mb(bytes)} of ${mb(size)}`);
      shown = true;
    },
    clear: () => {
      if (shown) io.status?.(null);
      shown = false;
    },
  };
}
