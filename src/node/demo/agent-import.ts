/**
 * `npm run demo:agent` continues the demo's story: the seeded sessions are imported into the demo
 * workspace's own OpenCode storage (`opencode import FILE`, run as that workspace's agent through
 * confinement.ts, so it lands where the agent looks), as the same export the database was seeded
 * from — the same ids, the demo folder's paths, the story's times. The first prompt in the chat
 * then loads the seeded session and extends its context instead of starting a new one.
 *
 * Each session is imported once per agent storage (a marker in the workspace's state folder);
 * OpenCode's import never overwrites messages it already has, so a session continued since keeps
 * its new turns.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, workspaceKey } from '../agent/confinement';
import type { AgentSettings } from '../agent/settings';
import { DEMO_WORKSPACE_ID, demoRecordings } from './builder';

export interface DemoImport {
  /** Sessions imported now. */
  imported: string[];
  /** Sessions the agent's storage already had from an earlier start. */
  present: string[];
}

export async function importDemoSessions(
  settings: AgentSettings,
  opencode: string,
  root: string,
  workspaceId = DEMO_WORKSPACE_ID,
): Promise<DemoImport> {
  const state = join(settings.stateDir, 'workspaces', workspaceKey(workspaceId));
  const markerFile = join(state, 'demo-imported.json');
  const done = new Set<string>(readMarker(markerFile));
  const result: DemoImport = { imported: [], present: [] };
  // The sandbox runs in the workspace folder: it must exist (the first start seeds it later).
  mkdirSync(root, { recursive: true });
  for (const { recording } of demoRecordings(root)) {
    const id = recording.export.info.id;
    if (done.has(id)) {
      result.present.push(id);
      continue;
    }
    // Inside the agent's own state folder: the only place besides the workspace its sandbox sees.
    const folder = join(state, 'home', 'demo-import');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${id}.json`);
    writeFileSync(file, JSON.stringify(recording.export));
    try {
      const how = await launch(
        settings,
        { id: workspaceId, root, others: [] },
        { command: opencode, args: ['import', file] },
      );
      const output = await run(how.command, how.args, how.cwd, how.env);
      if (!output.includes(`Imported session: ${id}`)) throw new Error(`opencode import said: ${output.trim()}`);
    } finally {
      rmSync(file, { force: true });
    }
    done.add(id);
    result.imported.push(id);
    writeFileSync(markerFile, `${JSON.stringify([...done], null, 2)}\n`);
  }
  return result;
}

function readMarker(file: string): string[] {
  if (!existsSync(file)) return [];
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else
        reject(
          new Error(
            `opencode import ${signal ? `was stopped (${signal})` : `exited with ${code}`}: ${output.trim().split('\n').at(-1) ?? ''}`,
          ),
        );
    });
  });
}
