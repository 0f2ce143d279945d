/** Where a command writes and where it runs: the process's own, or a test's. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Standard input (`investibook import -`); default: the process's. */
  stdin?: NodeJS.ReadableStream;
  /** Whether stderr is a terminal: only then does a long import show its progress. */
  errIsTTY?: boolean;
  /** The terminal's width when stdout is one: tables fit it (else $COLUMNS, else 100). */
  columns?: number;
  /**
   * Rewrites the one status line on a terminal's stderr (null: clears it). The only way a
   * command writes a control; out and err show controls as text (terminal-text.ts).
   */
  status?: (line: string | null) => void;
}

export const defaultIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
  stdin: process.stdin,
  errIsTTY: process.stderr.isTTY === true,
  ...(process.stdout.isTTY ? { columns: process.stdout.columns } : {}),
};
