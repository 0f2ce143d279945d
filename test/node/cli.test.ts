/** The CLI as a user meets it: commands, output, exit codes, and errors on one stderr line. */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import { start } from '../../src/node/server/start';
import { SCHEMA_VERSION } from '../../src/node/storage/schema';
import { contextReportSchema } from '../../src/shared/wire';
import { captureIo } from '../support/cli';

const exec = promisify(execFile);
const BIN = join(import.meta.dirname, '../../bin/investibook.js');
let dir: string;
let dbPath: string;
let root: string;
let sessions: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-cli-'));
  dbPath = join(dir, 'data', 'investibook.db');
  ({ root, sessions } = await seedDemoDatabase(dbPath, 'cli-token'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const io = captureIo(options.cwd ?? dir, options.env ?? {});
  const code = await run(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

describe('investibook db init', () => {
  it('creates a database with the current schema, idempotently, as a real process', async () => {
    const path = join(dir, 'fresh', 'new.db');
    for (let i = 0; i < 2; i++) {
      const { stdout } = await exec(process.execPath, [BIN, 'db', 'init', '--db', path]);
      expect(stdout).toContain(`schema version ${SCHEMA_VERSION}`);
    }
    expect(existsSync(path)).toBe(true);
  });

  it('needs --db', async () => {
    const result = await cli(['db', 'init']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--db/);
  });
});

describe('investibook debug context', () => {
  it('prints a readable table: totals, nine sources, top items, notes', async () => {
    const { code, stdout } = await cli(['debug', 'context', 'demo', '--db', dbPath]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Context report · workspace demo · session ses_/);
    expect(stdout).toMatch(/Context: [\d,]+ \/ 200,000 tokens/);
    for (const label of [
      'Evidence',
      'Skills & Knowledge',
      'Cluster & Alert Metadata',
      'Agent/runtime instructions',
      'Conversation',
      'Assistant reasoning (visible)',
      'Attachment metadata',
      'Issue/source files',
      'Unknown tool payload',
    ]) {
      expect(stdout).toContain(label);
    }
    expect(stdout).toContain('Loaded skill: tidb-clinic-diagnosis');
    expect(stdout).toContain('Read evidence summary: evidence_summary_for_agent.txt');
    expect(stdout).not.toMatch(/messages_v2\/msg_\w+\/parts/);
    expect(stdout).toContain('Notes:');
  });

  it('prints exactly one report object with --json, honouring --items and --session', async () => {
    const { code, stdout } = await cli([
      'debug',
      'context',
      'demo',
      '--db',
      dbPath,
      '--json',
      '--items',
      '2',
      '--session',
      sessions[0]!,
    ]);
    expect(code).toBe(0);
    const report = contextReportSchema.parse(JSON.parse(stdout));
    expect(report.sessionId).toBe(sessions[0]);
    expect(report.sources.every((s) => s.items.length <= 2)).toBe(true);
  });

  it('finds the workspace from the current directory, and lists workspaces when it cannot', async () => {
    mkdirSync(join(root, 'evidence', 'deep'), { recursive: true });
    const inside = await cli(['debug', 'context', '--db', dbPath, '--json'], { cwd: join(root, 'evidence') });
    expect(inside.code).toBe(0);
    expect(JSON.parse(inside.stdout).workspaceId).toBe('demo');
    const outside = await cli(['debug', 'context', '--db', dbPath], { cwd: tmpdir() });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toBe(`investibook: no workspace contains ${tmpdir()}; name one of: demo\n`);
  });

  it('works from inside a workspace folder with no options: it finds the database and says which', async () => {
    const here = join(root, 'evidence');
    const { code, stdout, stderr } = await cli(['debug', 'context'], { cwd: here });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Context report · workspace demo · session ses_/);
    expect(stdout).toContain(`${dbPath} (found from ${here})`);
  });

  it('with --api and no workspace id, asks the server which workspace holds the current folder', async () => {
    const server = await start({ database: dbPath, port: 0, token: 'cli-token', build: false, log: () => {} });
    try {
      const api = ['debug', 'context', '--api', new URL(server.url).origin, '--token', 'cli-token', '--json'];
      const inside = await cli(api, { cwd: join(root, 'evidence') });
      expect(inside.stderr).toBe('');
      expect(contextReportSchema.parse(JSON.parse(inside.stdout)).workspaceId).toBe('demo');
      const outside = await cli(api, { cwd: tmpdir() });
      expect(outside.code).toBe(2);
      expect(outside.stderr).toBe(`investibook: no workspace contains ${tmpdir()}; name one of: demo\n`);
    } finally {
      await server.close();
    }
  });

  it('uses $INVESTIBOOK_DB when --db is absent', async () => {
    const { code } = await cli(['debug', 'context', 'demo', '--json'], { env: { INVESTIBOOK_DB: dbPath } });
    expect(code).toBe(0);
  });

  it.each([
    [['debug', 'context', 'nope'], 3, /workspace not found: nope/],
    [['debug', 'context', 'demo', '--session', 'ses_nope'], 3, /session not found/],
    [['debug', 'context', 'demo', '--items', 'many'], 2, /items must be/],
    [['debug', 'context', 'demo', '--estimator', 'gpt2'], 2, /estimator/],
    [['debug', 'context', 'demo', '--frobnicate'], 2, /unknown option/],
    [['debug', 'context', 'demo', '--api', 'http://127.0.0.1:9'], 2, /--api needs --token/],
    [['debug', 'context', 'demo', '--api', 'http://127.0.0.1:9', '--token', 't'], 1, /cannot reach/],
  ])('%j exits %i with one clear stderr line', async (args, code, message) => {
    const result = await cli([...args, '--db', dbPath]);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });

  it('never creates a missing database', async () => {
    const missing = join(dir, 'absent', 'none.db');
    const result = await cli(['debug', 'context', 'demo', '--db', missing]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`investibook: database not found: ${missing}\n`);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(join(dir, 'absent'))).toBe(false);
  });

  it('runs as a real process with the documented exit code', async () => {
    const ok = await exec(process.execPath, [
      BIN,
      'debug',
      'context',
      'demo',
      '--db',
      dbPath,
      '--json',
      '--estimator',
      'chars4',
    ]);
    expect(JSON.parse(ok.stdout).estimate).toMatchObject({
      estimator: 'chars4',
      method: expect.stringMatching(/^chars\/4/),
    });
    await expect(exec(process.execPath, [BIN, 'debug', 'context', 'nope', '--db', dbPath])).rejects.toMatchObject({
      code: 3,
    });
  });
});
