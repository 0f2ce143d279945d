/**
 * `investibook import --from-opencode DIR` against the pinned OpenCode, with sessions a scripted
 * run made (`opencode run` on the scripted model: a session whose task call made a subagent's
 * session): both are imported, linked, and OpenCode's own storage — its HOME with the XDG data,
 * state, config and cache folders — is byte for byte and time for time what it was before, and
 * so is every file of the workspace folder but the project id OpenCode itself rewrites in
 * .git/opencode whenever it runs in a git folder (same content).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureOpencode,
  opencodeEnv,
  SCRIPTED_SMALL_MODEL,
  writeScriptedConfig,
} from '../../src/node/agent/opencode/install';
import { run } from '../../src/node/cli/main';
import { ReportService } from '../../src/node/report/service';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { startScriptedModel, type RunningModel } from '../../src/node/scripted-model/server';
import { captureIo } from '../support/cli';
import { databaseDigest, treeDigest } from '../support/fixtures';

let dir: string;
let bin: string;
let ws: string;
let env: NodeJS.ProcessEnv;
let model: RunningModel;

beforeAll(async () => {
  bin = await ensureOpencode();
  dir = mkdtempSync(join(tmpdir(), 'investibook-from-opencode-'));
  ws = join(dir, 'incident');
  mkdirSync(ws);
  writeFileSync(join(ws, 'AGENTS.md'), '# Incident\nBe brief.\n');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, stdio: 'ignore' });
  git('init', '-q');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'start');
  model = await startScriptedModel({
    script: {
      turns: [
        {
          when: 'look into it',
          steps: [
            {
              tools: [
                {
                  name: 'task',
                  args: { description: 'Read the notes', prompt: 'read the notes', subagent_type: 'general' },
                },
              ],
            },
            { text: 'The notes say: be brief.' },
          ],
        },
        {
          when: 'read the notes',
          steps: [{ tools: [{ name: 'read', args: { filePath: join(ws, 'AGENTS.md') } }] }, { text: 'Be brief.' }],
        },
      ],
      summary: 'Summary.',
      title: 'Incident notes',
      fallback: 'Done.',
    },
    smallModels: [SCRIPTED_SMALL_MODEL],
  });
  env = opencodeEnv(join(dir, 'home'));
  writeScriptedConfig(env, { baseURL: model.url });
  await opencode(['run', 'look into it']);
});

afterAll(async () => {
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

function opencode(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: ws, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`opencode ${args[0]} exited ${code}`)),
    );
  });
}

/** Every file's path and content under a folder, modification times aside. */
function contentDigest(root: string): string {
  const hash = createHash('sha256');
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(`${path}\0`).update(readFileSync(path));
    }
  };
  walk(root);
  return hash.digest('hex');
}

describe('investibook import --from-opencode', () => {
  it("imports the folder's sessions and their subagents' from the user's own OpenCode, writing nothing of OpenCode's", async () => {
    const home = join(dir, 'home');
    const before = treeDigest(home);
    const workspace = contentDigest(ws);
    const db = join(dir, 'x.db');
    const io = captureIo(dir, env);
    const code = await run(['import', '--from-opencode', ws, '--db', db, '--opencode', bin], io);
    expect(io.stderr()).toBe('');
    expect(code).toBe(0);
    expect(io.stdout()).toMatch(/Created workspace incident/);
    const imported = [...io.stdout().matchAll(/Imported session (ses_\w+)/g)].map((m) => m[1]!);
    expect(imported).toHaveLength(2);

    // OpenCode's storage is as it was, to the byte and the modification time.
    expect(treeDigest(home)).toBe(before);
    // The workspace's files too (OpenCode rewrites .git/opencode, its project id, unchanged, when it lists the sessions there).
    expect(contentDigest(ws)).toBe(workspace);

    const store = await openSqlite(db, { readOnly: true });
    try {
      const origins = await store.sessionOrigins('incident');
      expect(origins.map((o) => o.kind)).toEqual(['opencode', 'opencode']);
      const child = origins.find((o) => o.parent_session_id)!;
      const parent = origins.find((o) => !o.parent_session_id)!;
      expect(child.parent_session_id).toBe(parent.session_id);
      const service = new ReportService(store);
      const top = await service.report({ workspaceId: 'incident', sessionId: parent.session_id, items: 'all' });
      expect(top.actual!.source).toBe('provider');
      expect(top.sources.flatMap((s) => s.items).find((i) => i.subagent)!.subagent!.sessionId).toBe(child.session_id);
      const own = await service.report({ workspaceId: 'incident', sessionId: child.session_id, items: 'all' });
      expect(own.parentSessionId).toBe(parent.session_id);
      // The subagent read AGENTS.md: the import's workspace is the folder OpenCode ran in.
      expect(
        own.sources.find((s) => s.id === 'agent_instructions')!.items.some((i) => /AGENTS\.md/.test(i.label)),
      ).toBe(true);
    } finally {
      await store.close();
    }

    // Again: OpenCode answers the same, and nothing is written.
    const digest = await databaseDigest(db);
    const again = captureIo(dir, env);
    expect(await run(['import', '--from-opencode', ws, '--db', db, '--opencode', bin], again)).toBe(0);
    expect(again.stdout()).toMatch(/Already imported session/);
    expect(await databaseDigest(db)).toBe(digest);
    expect(treeDigest(home)).toBe(before);
  });

  it('says so in one line when there is no OpenCode or no session of that folder', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const io = captureIo(dir, env);
    expect(await run(['import', '--from-opencode', empty, '--db', join(dir, 'y.db'), '--opencode', bin], io)).toBe(3);
    expect(io.stderr()).toMatch(/^investibook: OpenCode has no sessions in .*empty\n$/);
    const missing = captureIo(dir, env);
    expect(
      await run(['import', '--from-opencode', ws, '--db', join(dir, 'y.db'), '--opencode', join(dir, 'nope')], missing),
    ).toBe(2);
    expect(missing.stderr()).toMatch(/OpenCode was not found/);
  });
});
