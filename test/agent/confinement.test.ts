/**
 * The live agent, confined — tried as an attacker would, with the real pinned OpenCode on the
 * scripted model, in a workspace without its own opencode.json:
 *
 * - by default it reads and searches, and asks for everything else: a shell command that writes
 *   in the workspace, outside it or into investibook's database, an edit, a read outside — each
 *   is asked, refused by the server's policy, and nothing is written anywhere;
 * - with every request allowed, the sandbox still holds: the workspace write works, the writes
 *   outside and into the database fail, and nothing outside the workspace changes;
 * - a workspace's opencode.json may tighten the defaults but not widen them, unless the operator
 *   says so;
 * - two workspaces never reach each other's sessions, nor each other's model requests.
 */
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { launch } from '../../src/node/agent/confinement';
import { installedOpencode, opencodeEnv, pinnedAgentSettings } from '../../src/node/agent/opencode/install';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import type { Store } from '../../src/node/storage/store';
import type { AgentEvent } from '../../src/shared/agent';
import { startAgentHarness, type AgentHarness } from '../support/agent-harness';
import { treeDigest } from '../support/fixtures';
import { withoutRequestId } from '../support/request-id';

const of = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

const bash = (command: string) => ({ name: 'bash', args: { command, description: 'run it' } });

/**
 * Prompts that try every way out, one per turn (OpenCode ends a turn at a refused permission):
 * shell writes inside, outside and into the database; an edit; a read outside.
 */
const ATTEMPTS = ['write inside', 'write outside', 'write the database', 'edit a file', 'read outside'] as const;

/** A shell command that gives usr_demo the other workspace: a row written into investibook's own database. */
const databaseWrite = (dbPath: string) =>
  `python3 -c 'import sqlite3; c = sqlite3.connect("${dbPath}"); c.execute("INSERT INTO workspace_members VALUES (?, ?)", ("other", "usr_demo")); c.commit()'`;

const attack = (dir: string, root: string, dbPath: string) => {
  const tools: Record<(typeof ATTEMPTS)[number], { name: string; args: Record<string, unknown> }> = {
    'write inside': bash(`echo planted > ${root}/evidence/planted.txt`),
    'write outside': bash(`echo planted > ${dir}/outside/planted.txt`),
    'write the database': bash(databaseWrite(dbPath)),
    'edit a file': { name: 'write', args: { filePath: `${root}/notes.md`, content: 'written by the agent' } },
    'read outside': { name: 'read', args: { filePath: `${dir}/outside/secret.txt` } },
  };
  return ATTEMPTS.map((attempt) => ({
    when: `Please ${attempt}`,
    steps: [{ tools: [tools[attempt]] }, { text: 'Tried.' }],
  }));
};

/** Every row of the database but those of one session (the turn's own messages and usage). */
async function rowsBesides(store: Store, sessionId: string): Promise<string[]> {
  return (await store.contentRows()).filter((row) => !row.includes(`"session_id":"${sessionId}"`));
}

/** The harness folder outside the workspace, the database and the agent's state. */
function outsideDigest(h: AgentHarness): string {
  return treeDigest(join(h.dir, 'outside')) + treeDigest(h.otherRoot);
}

async function attacked(h: AgentHarness) {
  // Earlier turns' runtime definitions are recorded in the background: settled before and after.
  await h.bridge.settled();
  const before = { rows: await h.store.contentRows(), outside: outsideDigest(h), workspace: treeDigest(h.root) };
  const events: AgentEvent[] = [];
  let sessionId: string | undefined;
  for (const attempt of ATTEMPTS) {
    const turn = await h.prompt(`Please ${attempt}`, sessionId ? { sessionId } : {});
    sessionId ??= of(turn.events, 'turn')[0]!.sessionId;
    expect(of(turn.events, 'done')[0]?.stopReason, attempt).toBeDefined();
    events.push(...turn.events);
  }
  await h.bridge.settled();
  const after = {
    rows: await rowsBesides(h.store, sessionId!),
    outside: outsideDigest(h),
    workspace: treeDigest(h.root),
  };
  return { events, before, after };
}

function prepare(h: AgentHarness) {
  mkdirSync(join(h.dir, 'outside'), { recursive: true });
  writeFileSync(join(h.dir, 'outside', 'secret.txt'), 'the outside secret');
}

describe('in a workspace without opencode.json, by default', () => {
  let h: AgentHarness;
  let untouched: string;
  beforeAll(async () => {
    h = await startAgentHarness({
      plain: true,
      second: true,
      turns: (root) => attack(join(root, '..', '..'), root, join(root, '..', '..', 'investibook.db')),
    });
    prepare(h);
    untouched = treeDigest(h.root);
  });
  afterAll(() => h?.close());

  it('reads, searches and loads skills unasked inside its workspace', async () => {
    const { events } = await h.prompt('What do we know so far?');
    expect(of(events, 'permission')).toEqual([]);
    expect(of(events, 'tool').some((t) => t.status === 'completed')).toBe(true);
    expect(of(events, 'done')[0]?.stopReason).toBe('end_turn');
  });
  it('asks before every shell command, edit and read outside; the server refuses; nothing is written', async () => {
    expect(existsSync(join(h.root, 'opencode.json'))).toBe(false);
    const { events, before, after } = await attacked(h);
    const asked = of(events, 'permission');
    // The three shell commands, the write and the read outside the workspace: all asked, all refused.
    expect(asked).toHaveLength(ATTEMPTS.length);
    expect(asked.every((p) => !p.allowed)).toBe(true);
    expect(after.workspace).toBe(before.workspace);
    expect(after.outside).toBe(before.outside);
    expect(after.rows).toEqual(before.rows);
    expect(existsSync(join(h.root, 'evidence', 'planted.txt'))).toBe(false);
    // Not even OpenCode's own bookkeeping (its plugin SDK install into .opencode) reached the folder.
    expect(treeDigest(h.root)).toBe(untouched);
    // The model never saw the outside secret.
    expect(JSON.stringify(h.requests.map((r) => r.body))).not.toContain('the outside secret');
  });

  // Two workspaces, two users (this harness has both: no agent of its own needed for it).
  it('two workspaces never reach each other’s sessions: every way of naming one answers as not found', async () => {
    const theirs = await h.other.prompt('What do we know so far? Our marker is OTHER-TEAM-SECRET');
    const theirSession = of(theirs.events, 'turn')[0]!.sessionId;
    const mine = await h.prompt('What do we know so far? Our marker is DEMO-TEAM-SECRET');
    const mySession = of(mine.events, 'turn')[0]!.sessionId;
    const notFound = await h.api(`/messages?session_id=${theirSession}`);
    const bodies = [await notFound.text()];
    const statuses = [notFound.status];
    for (const [path, init] of [
      [`/usage?session_id=${theirSession}`, {}],
      [`/debug/context?session_id=${theirSession}`, {}],
      ['/messages', { method: 'POST', body: JSON.stringify({ text: 'hijack', sessionId: theirSession }) }],
      ['/agent/prompt', { method: 'POST', body: JSON.stringify({ text: 'hijack', sessionId: theirSession }) }],
      ['/agent/cancel', { method: 'POST', body: JSON.stringify({ sessionId: theirSession }) }],
    ] as const) {
      const response = await h.api(path, init);
      statuses.push(response.status);
      bodies.push(await response.text());
    }
    expect(statuses).toEqual([404, 404, 404, 404, 404, 404]);
    // Like a session that does not exist (the cancel route has its own "no turn" answer).
    const absent = await h.api('/messages?session_id=ses_does_not_exist');
    // (The same body but for each answer's own request id.)
    expect(withoutRequestId((await absent.text()).replace('ses_does_not_exist', theirSession))).toBe(
      withoutRequestId(bodies[0]!),
    );
    expect(await h.store.listMessages('demo', theirSession)).toEqual([]);

    // Even asked directly, this workspace's agent has no such session: its storage is its own.
    const direct: AgentEvent[] = [];
    await h.bridge.runTurn(
      { workspaceId: 'demo', root: h.root, text: 'What do we know so far? Continue it', sessionId: theirSession },
      (event) => direct.push(event),
    );
    expect(of(direct, 'turn')[0]).toMatchObject({ newSession: true });
    expect(of(direct, 'turn')[0]!.sessionId).not.toBe(theirSession);

    // No text of one workspace reached the other's model requests.
    const sent = h.requests.map((r) => JSON.stringify(r.body.messages));
    const withMine = sent.filter((t) => t.includes('DEMO-TEAM-SECRET'));
    const withTheirs = sent.filter((t) => t.includes('OTHER-TEAM-SECRET'));
    expect(withMine.length).toBeGreaterThan(0);
    expect(withTheirs.length).toBeGreaterThan(0);
    expect(withMine.some((t) => t.includes('OTHER-TEAM-SECRET'))).toBe(false);
    expect(withTheirs.some((t) => t.includes('DEMO-TEAM-SECRET'))).toBe(false);
    expect(mySession).not.toBe(theirSession);
  });
});

describe('with every permission allowed (INVESTIBOOK_AGENT_PERMISSIONS=allow)', () => {
  let h: AgentHarness;
  beforeAll(async () => {
    h = await startAgentHarness({
      plain: true,
      second: true,
      permissions: 'allow',
      turns: (root) => attack(join(root, '..', '..'), root, join(root, '..', '..', 'investibook.db')),
    });
    prepare(h);
  });
  afterAll(() => h?.close());

  it('writes in the workspace, and the sandbox stops every write outside it and into the database', async () => {
    const { events, before, after } = await attacked(h);
    expect(of(events, 'permission').every((p) => p.allowed)).toBe(true);
    expect(readFileSync(join(h.root, 'evidence', 'planted.txt'), 'utf8')).toBe('planted\n');
    expect(readFileSync(join(h.root, 'notes.md'), 'utf8')).toBe('written by the agent');
    expect(after.workspace).not.toBe(before.workspace);
    // Outside the workspace nothing changed: the other workspace, the folder beside, the database.
    expect(after.outside).toBe(before.outside);
    expect(after.rows).toEqual(before.rows);
    expect(existsSync(join(h.dir, 'outside', 'planted.txt'))).toBe(false);
    // The same database write outside the sandbox works: the sandbox is what stopped it.
    const copy = join(h.dir, 'outside-copy.db');
    h.store.db.exec(`VACUUM INTO '${copy}'`);
    execSync(databaseWrite(copy));
    const check = await openSqlite(copy, { readOnly: true });
    expect(await check.workspaceForMember('other', 'usr_demo')).not.toBeNull();
    await check.close();
    // The agent saw its commands fail: the paths do not exist in its sandbox.
    const sent = JSON.stringify(h.requests.map((r) => r.body.messages));
    expect(sent).toMatch(/No such file or directory|unable to open database file/);
    expect(sent).not.toContain('the outside secret');
  });
});

describe('a workspace’s own opencode.json', () => {
  const agentRules = async (workspacePermissions: 'tighten' | 'widen', root: string, dir: string) => {
    const bin = installedOpencode()!;
    const env = opencodeEnv(join(dir, 'home'));
    const how = await launch(
      pinnedAgentSettings(bin, env, join(dir, 'state'), { workspacePermissions }),
      { id: 'w', root, others: [] },
      { command: bin, args: ['debug', 'agent', 'build'] },
    );
    const run = spawnSync(how.command, how.args, { cwd: how.cwd, env: how.env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const rules = (
      JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
        permission: { permission: string; pattern: string; action: string }[];
      }
    ).permission;
    // OpenCode evaluates the last matching rule.
    return (permission: string, pattern = '*') =>
      rules.filter((r) => r.permission === permission && r.pattern === pattern).at(-1)?.action ??
      rules.filter((r) => r.permission === '*').at(-1)?.action;
  };

  it('tightens the defaults, and widens them only where the operator allows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-confinement-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const root = join(dir, 'ws');
    mkdirSync(root, { recursive: true });
    writeFileSync(
      join(root, 'opencode.json'),
      JSON.stringify({
        permission: { bash: { '*': 'allow', 'rm *': 'deny' }, webfetch: 'allow', grep: 'deny' },
        agent: { build: { permission: { edit: 'allow' } } },
      }),
    );
    const tight = await agentRules('tighten', root, dir);
    expect([tight('bash'), tight('bash', 'rm *'), tight('webfetch'), tight('edit'), tight('grep')]).toEqual([
      'ask',
      'deny',
      'ask',
      'ask',
      'deny',
    ]);
    expect(tight('read')).toBe('allow');
    const wide = await agentRules('widen', root, dir);
    expect([wide('bash'), wide('webfetch'), wide('edit'), wide('grep')]).toEqual(['allow', 'allow', 'allow', 'deny']);
  });

  it("turns off a workspace MCP server whose tools would be named like investibook's own report tool", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-confinement-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const root = join(dir, 'ws');
    mkdirSync(root, { recursive: true });
    // `investibook_context` + its tool `report` would be `investibook_context_report`: allowed unasked.
    const servers = {
      investibook_context: { type: 'local', command: ['true'] },
      other: { type: 'local', command: ['true'] },
    };
    writeFileSync(join(root, 'opencode.json'), JSON.stringify({ mcp: servers }));
    const bin = installedOpencode()!;
    const how = await launch(
      pinnedAgentSettings(bin, opencodeEnv(join(dir, 'home')), join(dir, 'state'), { workspacePermissions: 'tighten' }),
      { id: 'w', root, others: [] },
      { command: bin, args: ['mcp', 'list'] },
    );
    expect(how.warnings.join('\n')).toMatch(/MCP server "investibook_context" is turned off/);
    const run = spawnSync(how.command, how.args, { cwd: how.cwd, env: how.env, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.find((l) => l.includes('investibook_context'))).toMatch(/disabled/);
    expect(lines.find((l) => l.includes(' other'))).not.toMatch(/disabled/);
  });
});
