/**
 * The import side of an agent runtime (issue 40): what `investibook import` and
 * `debug context --export` need of one runtime, so that the pipeline around it (run-import.ts,
 * export-report.ts) names none. Each runtime's lives in its folder (import/opencode,
 * import/claude-code); the registry (runtimes.ts) says which runtime recognises a file.
 *
 * What stays the pipeline's, for every runtime: the command's options and their usage errors,
 * standard input kept in a private file, the folder rules, the counts stored after a write, the
 * words said after, the private database of `--export`.
 */
import type { RuntimeName } from '../../shared/runtimes';
import type { CliEnv } from '../env';
import type { Io } from '../program/io';
import type { Store } from '../storage/store';
import type { WorkspaceRequest } from './workspace';

/** The `import` command's options (contract §8). */
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
  /** `--no-count`: false stores no token counts now (`investibook db count` does it later). */
  count?: boolean;
}

export interface ImportSource {
  path: string;
  /** For people: the file name, or "standard input". */
  name: string;
}

/** One session written by an import, as the command reports it. */
export interface SessionResult {
  sessionId: string;
  workspaceId: string;
  source: string;
  /** The workspace was created by this import. */
  createdWorkspace: boolean;
  member: string | null;
  /** The workspace's folder, and whether it came from the file (then no live agent starts there). */
  folder: string;
  folderFromExport: boolean;
  /** --workspace with --root gave the workspace its folder: an agent may start there now. */
  folderGiven: boolean;
  added: number;
  replaced: number;
  unchanged: number;
  /** Messages the database holds in a later state than the file. */
  newerKept: number;
}

/** Said as a file is read: which pass, which file, how many of its bytes so far. */
export interface Progress {
  (phase: 'checking' | 'writing', source: ImportSource, bytes: number): void;
}

/** What the pipeline lends a runtime's import: the counts stored after a write, its report, its folder check. */
export interface Writing {
  countWritten(store: Store, results: readonly SessionResult[], io: Io): Promise<void>;
  report(results: readonly SessionResult[], database: string, io: Io): void;
  /** A folder given on the command line, held to the folder rule (a usage error in one line otherwise). */
  checkedRoot(path: string): string;
  /** What no workspace folder may hold (folder-rules.ts): a file's own folder is held to it too. */
  secrets: readonly string[];
}

/** One run of the command, as a runtime's import is given it. */
export interface ImportRun {
  options: ImportOptions;
  io: Io;
  env: CliEnv;
  writing: Writing;
  /** A private folder for what the import keeps meanwhile, removed after. */
  work: string;
}

/** A file read whole and ready to write into a private store (`debug context --export`). */
export interface LoadedFile {
  /** The folder it names, when it names one. */
  directory: string | undefined;
  /** What it is, in the words said about its folder ("export", "transcript"). */
  noun: string;
  write(store: Store, workspaceId: string, root: string): Promise<void>;
}

export interface RuntimeImport {
  readonly name: RuntimeName;
  /** Its files, in words ("OpenCode exports"). */
  readonly files: string;
  /** The option that asks the runtime's own store instead of files (`--from-opencode [DIR]`). */
  readonly from: { option: 'fromOpencode' | 'fromClaudeCode'; flag: string };
  /** Whether a file is this runtime's. Absent: the default runtime's, which reads whatever no other recognises. */
  recognises?(path: string): boolean;
  /**
   * Files named on the command line (standard input too), each recognised as this runtime's;
   * `request`: where their sessions go, `--root` checked already.
   */
  importFiles(sources: readonly ImportSource[], request: WorkspaceRequest, run: ImportRun): Promise<void>;
  /** `--from-…[DIR]`: the sessions the runtime keeps for DIR. */
  importFrom(run: ImportRun): Promise<void>;
  /** One file for the report from a file (`--export`): checked whole, nothing written yet. */
  load(path: string, name: string): Promise<LoadedFile>;
}
