/**
 * `investibook import --from-opencode [DIR]`: the user's own OpenCode is asked for the sessions
 * of DIR — `opencode session list --format json` there, then `opencode export ID` for each and
 * for the subagents' sessions their task calls made (the list has root sessions only) — and its
 * answers are imported like files.
 *
 * Nothing of OpenCode's is written: every OpenCode command records when it last opened a
 * project in its database (project.time_updated), so the commands run on a private copy of that
 * database (OPENCODE_DB), with private config, state and cache folders, which is deleted after.
 * The copy is taken while neither file changes (OpenCode writing meanwhile: taken again).
 */
import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { OPENCODE_QUIET } from '../../agent/opencode/install';
import { AppError, notFound, usageError } from '../../errors';
import type { ImportSource } from '../import-side';
import { folderHere } from '../workspace';
import { scanSources } from './import-sessions';

export interface FromOpencodeOptions {
  /** The folder whose sessions are imported (a real path). */
  dir: string;
  session?: string | undefined;
  /** The OpenCode program. */
  binary: string;
  /** The user's environment (where OpenCode keeps its data). */
  env: NodeJS.ProcessEnv;
  /** A private folder for the copy and the exports, removed by the caller. */
  work: string;
  log: (line: string) => void;
}

const TIMEOUT_MS = 120_000;
/** OpenCode's switches for a run that only reads: no updates, downloads, plugins or project config. */
const QUIET = {
  ...OPENCODE_QUIET,
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_PROJECT_CONFIG: '1',
  OPENCODE_EXPERIMENTAL_DISABLE_FILEWATCHER: '1',
  OPENCODE_PURE: '1',
};

export async function fromOpencode(options: FromOpencodeOptions): Promise<ImportSource[]> {
  const { binary, work, dir } = options;
  const home = join(work, 'opencode');
  const folders = {
    data: join(home, 'data'),
    state: join(home, 'state'),
    cache: join(home, 'cache'),
    config: join(home, 'config'),
  };
  for (const folder of Object.values(folders)) mkdirSync(join(folder, 'opencode'), { recursive: true, mode: 0o700 });
  const privateEnv: NodeJS.ProcessEnv = {
    PATH: options.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    LANG: options.env.LANG ?? 'C.UTF-8',
    HOME: home,
    XDG_DATA_HOME: folders.data,
    XDG_STATE_HOME: folders.state,
    XDG_CACHE_HOME: folders.cache,
    XDG_CONFIG_HOME: folders.config,
    ...QUIET,
  };
  const database = await userDatabase(options, privateEnv);
  if (!existsSync(database))
    throw notFound('opencode_no_database', `OpenCode keeps no sessions here: there is no ${database}`);
  const copy = join(folders.data, 'opencode', basename(database));
  copyDatabase(database, copy);
  const env = { ...privateEnv, OPENCODE_DB: copy };

  const listed = await run(binary, ['session', 'list', '--format', 'json'], { cwd: dir, env });
  const roots = sessionsOf(listed, dir);
  if (options.session) {
    if (!roots.includes(options.session))
      throw notFound('session_not_found', `OpenCode has no session ${options.session} in ${dir}`);
    roots.splice(0, roots.length, options.session);
  }
  if (roots.length === 0) throw notFound('session_not_found', `OpenCode has no sessions in ${dir}`);

  const sources: ImportSource[] = [];
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const path = join(work, `${id.replace(/[^\w-]/g, '_')}.json`);
    const exported = await run(binary, ['export', id], { cwd: home, env, stdoutFile: path });
    if (exported.code !== 0) {
      options.log(
        `investibook: OpenCode could not export ${id} (${exported.stderr.trim().split('\n').at(-1) ?? `exit ${exported.code}`}); left out`,
      );
      continue;
    }
    const source = { path, name: `opencode export ${id}` };
    sources.push(source);
    for (const s of await scanSources([source])) queue.push(...s.children);
  }
  return sources;
}

/** Where the user's OpenCode keeps its database: OPENCODE_DB, else its data folder and the name it gives the file. */
async function userDatabase(options: FromOpencodeOptions, privateEnv: NodeJS.ProcessEnv): Promise<string> {
  const data = join(options.env.XDG_DATA_HOME || join(options.env.HOME || homedir(), '.local', 'share'), 'opencode');
  const named = options.env.OPENCODE_DB;
  if (named) return isAbsolute(named) ? named : join(data, named);
  // The file's name depends on OpenCode's release channel: asked of the program, on the private folders.
  const answer = await run(options.binary, ['db', 'path'], { cwd: options.work, env: privateEnv });
  const printed = answer.stdout.trim().split('\n').at(-1) ?? '';
  if (answer.code !== 0 || !printed.endsWith('.db'))
    throw new AppError(
      'usage',
      'opencode_too_old',
      `${options.binary} did not say where it keeps its sessions (\`opencode db path\`: ${answer.stderr.trim().split('\n').at(-1) || `exit ${answer.code}`}): export them with \`opencode export ID > FILE\` and import the files`,
    );
  return join(data, basename(printed));
}

/** The database and its write-ahead log, copied while neither changes. */
function copyDatabase(from: string, to: string): void {
  const stamp = () =>
    [from, `${from}-wal`].map((f) => (existsSync(f) ? `${statSync(f).size}:${statSync(f).mtimeMs}` : '-')).join(' ');
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = stamp();
    copyFileSync(from, to);
    if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
    if (stamp() === before) return;
  }
  throw new AppError(
    'unavailable',
    'opencode_busy',
    `OpenCode kept writing ${from} while it was copied: try again when it is idle`,
  );
}

/** The listed sessions whose folder is DIR or inside it (OpenCode lists a whole project's, or all global ones). */
function sessionsOf(listed: { code: number | null; stdout: string; stderr: string }, dir: string): string[] {
  if (listed.code !== 0)
    throw new AppError(
      'failed',
      'opencode_failed',
      `opencode session list failed: ${listed.stderr.trim().split('\n').at(-1) ?? `exit ${listed.code}`}`,
    );
  if (listed.stdout.trim() === '') return [];
  let sessions: unknown;
  try {
    sessions = JSON.parse(listed.stdout);
  } catch {
    throw new AppError('failed', 'opencode_failed', 'opencode session list did not print JSON');
  }
  if (!Array.isArray(sessions)) return [];
  return sessions.flatMap((s: { id?: unknown; directory?: unknown }) => {
    if (typeof s.id !== 'string' || typeof s.directory !== 'string') return [];
    const folder = folderHere(s.directory);
    return folder && (folder === dir || folder.startsWith(`${dir}/`)) ? [s.id] : [];
  });
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs OpenCode and waits for it. Standard output goes to a file when it is an export: written
 * to a pipe, OpenCode's output is cut short when the process exits before the pipe drains.
 */
function run(
  command: string,
  args: string[],
  o: { cwd: string; env: NodeJS.ProcessEnv; stdoutFile?: string },
): Promise<Ran> {
  const fd = o.stdoutFile ? openSync(o.stdoutFile, 'w', 0o600) : null;
  return new Promise<Ran>((resolve, reject) => {
    const child = spawn(command, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', fd ?? 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === 'ENOENT'
          ? usageError(
              `OpenCode was not found: ${command} (put opencode on PATH, or set INVESTIBOOK_OPENCODE or --opencode PATH)`,
            )
          : error,
      );
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  }).finally(() => {
    if (fd !== null) closeSync(fd);
  });
}
