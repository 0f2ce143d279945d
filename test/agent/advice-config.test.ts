/**
 * Each `opencode_config` change the report hands over, given to the pinned OpenCode as its
 * configuration (OPENCODE_CONFIG_CONTENT), turns off exactly what it says and nothing else —
 * asked of OpenCode itself: `opencode debug agent NAME` (the agent's tools and permission
 * rules), `--tool skill` (whether a skill still loads), `opencode mcp list` (which MCP servers
 * are on). The changes are those of the seeded demo's report, and the adapter's forms for MCP
 * servers (one the workspace declares, turned off whole; one it does not, its tools denied).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOpencode, opencodeEnv, writeScriptedConfig } from '../../src/node/agent/opencode/install';
import { disabledTools } from '../../src/node/agent/opencode/runtime-definitions';
import { OPENCODE_ADVICE } from '../../src/node/core/opencode/advice';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import { PROJECT_ROOT } from '../../src/node/project';
import { ReportService } from '../../src/node/report/service';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import type { ContextReport } from '../../src/shared/wire';

interface Rule {
  permission: string;
  pattern: string;
  action: string;
}
interface DebugAgent {
  tools: Record<string, boolean>;
  permission: Rule[];
}

let dir: string;
let root: string;
let bin: string;
let env: NodeJS.ProcessEnv;
let report: ContextReport;

/** The pinned OpenCode in the demo workspace, with a configuration layer of its own (or none). */
function opencode(args: string[], content?: string) {
  const run = spawnSync(bin, args, {
    cwd: root,
    env: { ...env, ...(content === undefined ? {} : { OPENCODE_CONFIG_CONTENT: content }) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `opencode debug agent NAME`, asked once per agent and configuration (each run takes seconds). */
const asked = new Map<string, DebugAgent>();
function debugAgent(name: string, content?: string): DebugAgent {
  const key = `${name}\u0000${content ?? ''}`;
  const known = asked.get(key);
  if (known) return known;
  const run = opencode(['debug', 'agent', name], content);
  expect(run.status, run.stderr).toBe(0);
  const answer = JSON.parse(run.stdout) as DebugAgent;
  asked.set(key, answer);
  return answer;
}

/** Tools whose entry differs between two answers. */
const changed = (before: DebugAgent, after: DebugAgent) =>
  Object.keys({ ...before.tools, ...after.tools }).filter((t) => before.tools[t] !== after.tools[t]);

const suggestion = (kind: string) => report.suggestions.find((s) => s.kind === kind)!;

beforeAll(async () => {
  bin = await ensureOpencode();
  dir = mkdtempSync(join(tmpdir(), 'investibook-advice-config-'));
  const dbPath = join(dir, 'investibook.db');
  ({ root } = await seedDemoDatabase(dbPath, 'advice-config-token'));
  const store = await openSqlite(dbPath, { readOnly: true });
  try {
    report = await new ReportService(store).report({ workspaceId: 'demo', items: 20 });
  } finally {
    await store.close();
  }
  env = opencodeEnv(join(dir, 'home'));
  // No request is made: the provider is only there for OpenCode to have a default model.
  writeScriptedConfig(env, { baseURL: 'http://127.0.0.1:9/v1' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the report’s opencode_config changes, given to the pinned OpenCode', () => {
  it('the tools never called: exactly those leave the build agent, every other tool stays', () => {
    const tools = suggestion('unused_tools');
    expect(tools.change?.kind).toBe('opencode_config');
    const before = debugAgent('build');
    const after = debugAgent('build', tools.change!.text);
    expect(tools.tools).toEqual(['task', 'todowrite', 'webfetch']);
    expect(tools.tools!.every((t) => before.tools[t] === true)).toBe(true);
    expect(changed(before, after).sort()).toEqual([...tools.tools!].sort());
    expect(tools.tools!.every((t) => after.tools[t] === false)).toBe(true);
    // OpenCode's own rule for leaving a tool out of the request says the same.
    expect(disabledTools(Object.keys(after.tools), after.permission).sort()).toEqual(
      [...disabledTools(Object.keys(before.tools), before.permission), ...tools.tools!].sort(),
    );
    // Only for that agent: the plan agent keeps them.
    expect(changed(debugAgent('plan'), debugAgent('plan', tools.change!.text))).toEqual([]);
  });

  it('the skill loaded and never used: the build agent can no longer load it, and loads the others', () => {
    const skill = suggestion('unused_skill');
    const name = 'incident-report-writer';
    expect(skill.title).toContain(name);
    const load = (which: string, content?: string) =>
      opencode(['debug', 'agent', 'build', '--tool', 'skill', '--params', JSON.stringify({ name: which })], content);
    expect(load(name).status).toBe(0);
    const refused = load(name, skill.change!.text);
    expect(refused.status).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/prevents you from using this specific tool call/);
    const other = load('slow-query-analysis', skill.change!.text);
    expect(other.status, other.stderr).toBe(0);
    expect(other.stdout).toContain('Loaded skill: slow-query-analysis');
    // The skill tool itself stays: nothing else changed.
    expect(changed(debugAgent('build'), debugAgent('build', skill.change!.text))).toEqual([]);
  });

  it('an MCP server the workspace declares, none of its tools called: turned off whole', () => {
    const server = join(PROJECT_ROOT, 'test', 'recording', 'mcp-server.mjs');
    const scratch = join(dir, 'mcp-workspace');
    cpSync(root, scratch, { recursive: true });
    const mcp = {
      'incident-tools': { type: 'local', command: ['node', server] },
      other: { type: 'local', command: ['node', server] },
    };
    writeFileSync(join(scratch, 'opencode.json'), JSON.stringify({ mcp }));
    const change = OPENCODE_ADVICE.unusedTools({
      agent: 'build',
      sent: [],
      tools: [],
      mcp: [{ server: 'incident-tools', tools: ['incident-tools_pd_hot_regions'], whole: true }],
      config: { models: {}, mcpServers: ['incident-tools', 'other'] },
    });
    expect(change.servers).toEqual(['incident-tools']);
    const list = (content?: string) => {
      const run = spawnSync(bin, ['mcp', 'list'], {
        cwd: scratch,
        env: { ...env, ...(content ? { OPENCODE_CONFIG_CONTENT: content } : {}) },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.status, run.stderr).toBe(0);
      const line = (name: string) => run.stdout.split('\n').find((l) => l.includes(` ${name}`)) ?? '';
      return { target: line('incident-tools'), other: line('other') };
    };
    const before = list();
    expect([before.target, before.other]).toEqual([
      expect.stringMatching(/connected/),
      expect.stringMatching(/connected/),
    ]);
    const after = list(change.text);
    expect([after.target, after.other]).toEqual([
      expect.stringMatching(/disabled/),
      expect.stringMatching(/connected/),
    ]);
  });

  it('MCP tools of a server the workspace does not declare (given over ACP): denied by name for the agent', () => {
    const names = ['investibook_context_report', 'incident-tools_pd_hot_regions'];
    const change = OPENCODE_ADVICE.unusedTools({
      agent: 'build',
      sent: [],
      tools: [],
      mcp: [
        { server: 'investibook', tools: [names[0]!], whole: true },
        { server: 'incident-tools', tools: [names[1]!], whole: false },
      ],
      config: { models: {} },
    });
    expect(change.servers).toEqual([]);
    const before = debugAgent('build');
    const after = debugAgent('build', change.text);
    const others = ['investibook_other', 'incident-tools_slow_query_digest'];
    expect(disabledTools([...names, ...others], before.permission)).toEqual([]);
    expect(disabledTools([...names, ...others], after.permission)).toEqual(names);
    expect(changed(before, after)).toEqual([]);
  });
});
