/**
 * Reads a session back from the agent in its own shapes: `opencode export SESSION_ID` (or the
 * configured equivalent) run in the workspace folder, its JSON written to a file — written to
 * a pipe, OpenCode's output is cut short when the process exits before the pipe drains (seen
 * with exports over ~200 KB).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSessionExport, type SessionExport } from './session-export';

export interface ExportCommand {
  command: string;
  /** `{session}` stands for the session id. */
  args: readonly string[];
}

/** The export program as it runs: its arguments filled in (the session id), where and how. */
export interface ExportRun {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export async function exportSession(run: ExportRun, timeoutMs = 60_000): Promise<SessionExport> {
  const { command, args, cwd, env } = run;
  const dir = mkdtempSync(join(tmpdir(), 'investibook-export-'));
  const file = join(dir, 'export.json');
  const fd = openSync(file, 'w');
  let stderr = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(command, [...args], { cwd, env, stdio: ['ignore', fd, 'pipe'] });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else
          reject(
            new Error(
              `${command} export ${signal ? `was stopped (${signal})` : `exited with ${code}`}${stderr.trim() ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`,
            ),
          );
      });
    });
  } finally {
    closeSync(fd);
  }
  try {
    const text = readFileSync(file, 'utf8');
    // OpenCode may print a line of its own before the JSON.
    return parseSessionExport(text.slice(Math.max(0, text.indexOf('{'))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
