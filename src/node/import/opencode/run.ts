/**
 * `investibook import` of OpenCode's exports (docs/import.md): files `opencode export` printed,
 * or `--from-opencode [DIR]`, which asks the user's own OpenCode for them (from-opencode.ts).
 * Every file is checked whole before the database is opened (a bad file leaves it as it was, and
 * a database that did not exist is not created); then every session is written in one
 * transaction.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { AppError } from '../../errors';
import { ensureFolder } from '../../fs-safe';
import { chooseDatabase } from '../../program/database';
import { isDatabaseUrl, openStore, redact } from '../../storage/open';
import type { ImportRun, ImportSource, LoadedFile, SessionResult } from '../import-side';
import { asInputError } from '../input-file';
import { intoDatabase } from '../new-database';
import { progressLine } from '../progress-line';
import { rootFor, type WorkspaceRequest } from '../workspace';
import { fromOpencode } from './from-opencode';
import { scanSources, writeSessions, type OriginKind, type ScannedExport } from './import-sessions';

/** `--from-opencode [DIR]`: the sessions the user's own OpenCode keeps for DIR. */
export async function importFromOpencode(run: ImportRun): Promise<void> {
  const { options, io, env, writing } = run;
  const root = options.root === undefined ? undefined : writing.checkedRoot(resolve(io.cwd, options.root));
  const request: WorkspaceRequest = {
    workspaceId: options.workspace,
    root,
    user: options.user,
    secrets: writing.secrets,
  };
  const dir = resolve(io.cwd, typeof options.fromOpencode === 'string' ? options.fromOpencode : '.');
  const found = await fromOpencode({
    dir: writing.checkedRoot(dir),
    session: options.session,
    binary: options.opencode ?? env.INVESTIBOOK_OPENCODE ?? 'opencode',
    env: io.env,
    work: run.work,
    log: (line) => io.err(`${line}\n`),
  });
  await importExports(found, { ...request, root: request.root ?? writing.checkedRoot(dir) }, 'opencode', run);
}

/** Export files (`opencode export`'s output), checked whole, then written in one transaction. */
export async function importExports(
  sources: readonly ImportSource[],
  request: WorkspaceRequest,
  kind: OriginKind,
  { options, io, env, writing }: ImportRun,
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
      await writing.countWritten(store, written, io);
      return written;
    } finally {
      await store.close();
    }
  });
  writing.report(results, sqlite ? location : redact(location), io);
}

const directoryOf = (s: ScannedExport): string | null =>
  typeof s.info.directory === 'string' && s.info.directory ? s.info.directory : null;

/** An export for the report from a file (`debug context --export`): checked whole, written when asked. */
export async function loadExport(path: string, file: string): Promise<LoadedFile> {
  let scanned: ScannedExport[];
  try {
    scanned = await scanSources([{ path, name: file }]);
  } catch (error) {
    throw asInputError(error);
  }
  return {
    directory: scanned.map((s) => s.info.directory).find((d): d is string => typeof d === 'string' && d !== ''),
    noun: 'export',
    write: async (store, workspaceId, root) => {
      await writeSessions(store, scanned, { workspaceId, root, kind: 'opencode_export', now: Date.now() });
    },
  };
}
