/**
 * `investibook import` of Claude Code transcripts (docs/import.md): `.jsonl` files (or standard
 * input) recognised by their content, or `--from-claude-code [DIR]`, which lists the transcripts
 * Claude Code keeps for DIR in ~/.claude/projects (its subagents' too). Every file is read and
 * checked before the database is opened; then all are written in one transaction.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { chooseDatabase } from '../../program/database';
import type { Io } from '../../program/io';
import type { CliEnv } from '../../env';
import { AppError, usageError } from '../../errors';
import { ensureFolder } from '../../fs-safe';
import { isDatabaseUrl, openStore, redact } from '../../storage/open';
import { intoDatabase } from '../new-database';
import { ExportInputError } from '../../export-input-error';
import type { Writing } from '../import-side';
import { rootFor, type WorkspaceRequest } from '../workspace';
import { looksLikeTranscript, readTranscript, type TranscriptSession } from '../../agent/claude-code/transcript';
import { writeTranscripts, type TranscriptOrigin } from './write-transcripts';

/** The options of `import` this reads. */
export interface ClaudeCodeImportOptions {
  workspace?: string;
  root?: string;
  user?: string;
  db?: string;
  databaseUrl?: string;
  fromClaudeCode?: string | boolean;
  session?: string;
}

/** Whether a file is a Claude Code transcript (by its first line). */
export function isTranscript(path: string): boolean {
  if (!existsSync(path) || !statSync(path).isFile()) return false;
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(1 << 16);
    return looksLikeTranscript(head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

/** Claude Code's folder of a project: its path with every non-alphanumeric character a "-". */
export const projectFolder = (home: string, dir: string): string =>
  join(home, '.claude', 'projects', dir.replace(/[^a-zA-Z0-9]/g, '-'));

/** The transcripts Claude Code keeps for DIR: each session's, then its subagents'. */
export function listTranscripts(home: string, dir: string, session?: string): { path: string; name: string }[] {
  const folder = projectFolder(home, dir);
  if (!existsSync(folder)) throw usageError(`Claude Code keeps no transcripts for ${dir} (${folder} is not there)`);
  const found: { path: string; name: string }[] = [];
  for (const file of readdirSync(folder).sort()) {
    const id = file.replace(/\.jsonl$/, '');
    if (!file.endsWith('.jsonl') || (session && id !== session)) continue;
    found.push({ path: join(folder, file), name: file });
    const subagents = join(folder, id, 'subagents');
    if (!existsSync(subagents)) continue;
    for (const sub of readdirSync(subagents).sort())
      if (sub.endsWith('.jsonl')) found.push({ path: join(subagents, sub), name: `${id}/subagents/${sub}` });
  }
  if (found.length === 0)
    throw usageError(`no Claude Code transcript${session ? ` of session ${session}` : ''} in ${folder}`);
  return found;
}

export function readTranscripts(sources: readonly { path: string; name: string }[]): TranscriptSession[] {
  try {
    return sources.map((s) => readTranscript(s));
  } catch (error) {
    throw error instanceof ExportInputError ? new AppError('invalid', 'bad_export', error.message) : error;
  }
}

/** Files already named (`files`), else the transcripts of --from-claude-code's folder. */
export async function importClaudeCode(
  files: readonly { path: string; name: string }[] | null,
  options: ClaudeCodeImportOptions,
  io: Io,
  env: CliEnv,
  { countWritten, report, checkedRoot, secrets }: Writing,
): Promise<void> {
  const from = options.fromClaudeCode;
  const dir = files ? undefined : checkedRoot(resolve(io.cwd, typeof from === 'string' ? from : '.'));
  const sources = files ?? listTranscripts(io.env.HOME ?? homedir(), dir!, options.session);
  const root = options.root === undefined ? dir : checkedRoot(resolve(io.cwd, options.root));
  const request: WorkspaceRequest = { workspaceId: options.workspace, root, user: options.user, secrets };
  const sessions = readTranscripts(sources);
  const kind: TranscriptOrigin = dir === undefined ? 'claude_code_transcript' : 'claude_code';
  const { location } = chooseDatabase(options, env, io.cwd);
  const sqlite = !isDatabaseUrl(location);
  if (sqlite && !existsSync(location) && !request.workspaceId)
    for (const s of sessions) rootFor({ sessionId: s.sessionId, parentId: null, directory: s.directory }, request);
  if (sqlite) ensureFolder(dirname(location));
  const results = await intoDatabase(location, sqlite, async (at) => {
    const store = await openStore({ location: at });
    try {
      const written = await writeTranscripts(store, sessions, { ...request, kind, now: Date.now() });
      await countWritten(store, written, io);
      return written;
    } finally {
      await store.close();
    }
  });
  report(results, sqlite ? location : redact(location), io);
}
