/**
 * Claude Code's write side, its parts that need no agent process: the server's policy as Claude
 * Code's permission settings in the private HOME (never the workspace's), its environment and
 * egress, a transcript it wrote read back as rows tagged with its runtime (the subagent's after,
 * the request shapes recorded), and the demo's script in its tools. The real Claude Code runs it
 * in test/agent/claude-code-live.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeCalls, claudeCodeScript } from '../../src/node/agent/claude-code/demo-script';
import { transcriptPath } from '../../src/node/agent/claude-code/install';
import { claudePermissions, CLAUDE_REPORT_TOOL } from '../../src/node/agent/claude-code/permissions';
import { sessionTranscripts, typedPrompts } from '../../src/node/agent/claude-code/read-back';
import {
  claudeCodeEgress,
  claudeCodeLaunch,
  claudeCodeToolName,
  claudeCodeWriteSide,
  CLAUDE_OPT_IN_TOOLS,
  settingsFile,
} from '../../src/node/agent/claude-code/write-side';
import type { AgentSettings } from '../../src/node/agent/settings';
import { turnEvents } from '../../src/node/agent/turn-events';
import { liveDemoScript } from '../../src/node/demo/live-script';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'claude-code');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-cc-write-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const settings = (over: Partial<AgentSettings> = {}): AgentSettings =>
  ({
    command: '',
    args: [],
    env: {},
    exporter: null,
    permissions: 'reject',
    workspacePermissions: 'tighten',
    sandbox: 'bwrap',
    bwrap: 'bwrap',
    sandboxRead: [],
    stateDir: join(dir, 'state'),
    hidden: [],
    turnTimeoutMs: 60_000,
    ...over,
  }) as AgentSettings;

function home(root: string, over: Partial<AgentSettings> = {}) {
  const base = join(dir, `home-${Math.random().toString(36).slice(2)}`);
  const dirs = {
    HOME: join(base, 'home'),
    XDG_CONFIG_HOME: join(base, 'config'),
    XDG_DATA_HOME: join(base, 'data'),
    XDG_STATE_HOME: join(base, 'state'),
    XDG_CACHE_HOME: join(base, 'cache'),
  };
  return {
    settings: settings(over),
    workspace: { id: 'w1', root },
    home: base,
    dirs,
    base: {},
    secret: { username: 'u', password: 'p' },
  };
}

describe("the server's policy in Claude Code's settings", () => {
  it('asks for the shell, edits, writes and the web, allows skills, subagents and the report tool', () => {
    const permissions = claudePermissions('tighten');
    expect(permissions.ask).toEqual(expect.arrayContaining(['Bash', 'Edit', 'Write', 'WebFetch', 'WebSearch']));
    expect(permissions.allow).toEqual(expect.arrayContaining(['Skill', 'Task', CLAUDE_REPORT_TOOL]));
    expect(permissions.allow).not.toContain('Bash');
    expect(CLAUDE_REPORT_TOOL).toBe('mcp__investibook__context_report');
    expect(permissions.defaultMode).toBe('default');
    expect(permissions.disableBypassPermissionsMode).toBe('disable');
  });

  it('lets a workspace widen only when the operator allows it: no ask rules then', () => {
    expect(claudePermissions('widen').ask).toEqual([]);
  });

  it('is written into the private HOME, owner-only, and the workspace folder is left as it is', () => {
    const root = join(dir, 'ws-policy');
    mkdirSync(join(root, '.claude'), { recursive: true });
    writeFileSync(join(root, '.claude', 'settings.json'), '{"permissions":{"allow":["Bash"]}}');
    const made = home(root);
    const launch = claudeCodeLaunch(made);
    const file = settingsFile(made.dirs.HOME);
    const written = JSON.parse(readFileSync(file, 'utf8')) as { permissions: { ask: string[] } };
    expect(written.permissions.ask).toContain('Bash');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(root, '.claude', 'settings.json'), 'utf8')).toBe('{"permissions":{"allow":["Bash"]}}');
    expect(launch.env).toMatchObject({
      CLAUDE_CONFIG_DIR: join(made.dirs.HOME, '.claude'),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
  });

  it("says so once when the workspace's own settings pick a permission mode", () => {
    const root = join(dir, 'ws-mode');
    mkdirSync(join(root, '.claude'), { recursive: true });
    writeFileSync(join(root, '.claude', 'settings.local.json'), '{"permissions":{"defaultMode":"auto"}}');
    const { warnings } = claudeCodeLaunch(home(root));
    expect(warnings).toEqual([
      expect.stringMatching(/settings\.local\.json sets permissions\.defaultMode "auto".*classifier/),
    ]);
  });
});

describe("Claude Code's network", () => {
  it('reaches the port of a model on the host loopback, and nothing else', () => {
    const { policy } = claudeCodeEgress(settings({ env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:4567' } }));
    expect(policy).toEqual({
      open: false,
      hosts: [],
      loopback: [{ host: '127.0.0.1', port: 4567, why: 'ANTHROPIC_BASE_URL' }],
    });
  });

  it("reaches Anthropic's API when no endpoint is named, and the operator's hosts", () => {
    const { policy, warnings } = claudeCodeEgress(settings({ egressHosts: ['example.com', 'localhost', 'x y'] }));
    expect(policy.hosts).toEqual([
      { host: 'api.anthropic.com', port: 443, why: "Anthropic's API" },
      { host: 'example.com', port: '*', why: 'INVESTIBOOK_AGENT_EGRESS_HOSTS' },
    ]);
    expect(warnings).toHaveLength(2);
  });
});

describe("a turn read back from Claude Code's own store", () => {
  interface Recording {
    sessionId: string;
    workspace: { root: string };
    transcripts: Record<string, string[]>;
  }
  const recording = JSON.parse(readFileSync(join(FIXTURES, 'subagent.json'), 'utf8')) as Recording;

  /** The recording's transcripts where Claude Code wrote them, in a HOME of the test's. */
  function placed(agentHome: string) {
    for (const [name, lines] of Object.entries(recording.transcripts)) {
      const path = join(agentHome, '.claude', 'projects', name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${lines.join('\n')}\n`);
    }
  }

  it('is the main transcript, its subagent after it, every row tagged claude-code', () => {
    const agentHome = join(dir, 'read-back-home');
    placed(agentHome);
    expect(existsSync(transcriptPath(agentHome, recording.workspace.root, recording.sessionId))).toBe(true);
    const sessions = sessionTranscripts(agentHome, recording.workspace.root, recording.sessionId)!;
    expect(sessions.map((s) => s.parentId)).toEqual([null, recording.sessionId]);
    expect(sessions[1]!.sessionId).toMatch(new RegExp(`^${recording.sessionId}/agent-`));
    const lines = Object.entries(recording.transcripts).find(([k]) => !k.includes('/subagents/'))![1];
    expect(sessions[0]!.rows).toHaveLength(lines.filter((l) => (JSON.parse(l) as { uuid?: string }).uuid).length);
    expect(new Set(sessions.flatMap((s) => s.rows.map((r) => r.runtime)))).toEqual(new Set(['claude-code']));
    expect(typedPrompts(sessions[0]!.rows)).toEqual(['INC-4821 hot regions: ask a subagent which store holds them.']);
  });

  it('is none when Claude Code kept no transcript of the session', async () => {
    const lines: string[] = [];
    const back = await claudeCodeWriteSide.readBack({
      settings: settings(),
      workspace: { id: 'w1', root: join(dir, 'nowhere') },
      sessionId: 'missing',
      launch: () => Promise.reject(new Error('not run')),
      log: (line) => lines.push(line),
    });
    expect(back).toBeNull();
    expect(lines).toEqual(['Claude Code kept no transcript of session missing']);
  });
});

describe("the demo's story in Claude Code's tools", () => {
  const script = claudeCodeScript(liveDemoScript('/w'));
  const called = new Set(script.turns.flatMap((t) => t.steps.flatMap((s) => (s.tools ?? []).map((c) => c.name))));

  it('calls Read, Grep, Skill, Agent, its todo tool and Bash with their own inputs', () => {
    expect(claudeCodeCalls({ name: 'read', args: { filePath: '/w/a.txt', limit: 5 } })).toEqual([
      { name: 'Read', args: { file_path: '/w/a.txt', limit: 5 } },
    ]);
    expect(claudeCodeCalls({ name: 'skill', args: { name: 's' } })).toEqual([{ name: 'Skill', args: { skill: 's' } }]);
    expect(
      claudeCodeCalls({ name: 'task', args: { description: 'd', prompt: 'p', subagent_type: 'general' } }),
    ).toEqual([
      {
        name: 'Agent',
        args: { description: 'd', prompt: 'p', subagent_type: 'general-purpose', run_in_background: false },
      },
    ]);
    expect(claudeCodeCalls({ name: 'todowrite', args: { todos: [{ content: 'c', status: 'pending' }] } })).toEqual([
      { name: 'TaskCreate', args: { subject: 'c', description: 'c', activeForm: 'c' } },
    ]);
    expect(called).toEqual(new Set(['Read', 'Grep', 'Skill', 'ToolSearch', 'TaskCreate', 'Agent', 'Bash']));
  });

  it('loads the deferred todo tool with ToolSearch in the step before it calls it', () => {
    const steps = script.turns.flatMap((t) => t.steps);
    const todo = steps.findIndex((s) => s.tools?.some((c) => c.name === 'TaskCreate'));
    expect(steps[todo - 1]!.tools).toEqual([
      { name: 'ToolSearch', args: { query: 'select:TaskCreate', max_results: 1 } },
    ]);
  });

  it('calls only tools Claude Code offers: as recorded out of the box, or opted into by the write side', () => {
    const recording = JSON.parse(readFileSync(join(FIXTURES, 'fresh.json'), 'utf8')) as {
      transcripts: Record<string, string[]>;
    };
    const entries = Object.values(recording.transcripts)
      .flat()
      .map((line) => JSON.parse(line) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    const sent = entries.flatMap((e) => (e.type === 'api-request-shape' ? e.shape.tools.map((t: any) => t.name) : [])); // eslint-disable-line @typescript-eslint/no-explicit-any
    const deferred = entries.flatMap((e) =>
      e.attachment?.type === 'deferred_tools_delta' ? (e.attachment.addedNames as string[]) : [],
    );
    // Out of the box it has neither Grep nor its todo tools: the bug this test would have caught.
    expect(sent).not.toContain('Grep');
    expect(deferred).not.toContain('TaskCreate');
    const optedIn = (claudeCodeWriteSide.sessionMeta as { claudeCode: { options: { allowedTools: string[] } } })
      .claudeCode.options.allowedTools;
    expect(optedIn).toEqual([...CLAUDE_OPT_IN_TOOLS]);
    const offered = new Set([...sent, ...deferred, ...optedIn.map((rule) => rule.replace(/\(.*\)$/, ''))]);
    expect([...called].filter((name) => !offered.has(name))).toEqual([]);
  });

  it("names a streamed call by Claude Code's tool name, not its title", () => {
    expect(claudeCodeToolName({ _meta: { claudeCode: { toolName: 'Read' } } })).toBe('Read');
    expect(claudeCodeToolName({ _meta: null })).toBeNull();
  });
});

describe("a Claude Code turn's tool calls as the chat streams them", () => {
  it("carry Claude Code's tool name, the latest title and the result's text", () => {
    const toEvent = turnEvents('/w', () => {}, claudeCodeWriteSide.toolName);
    const meta = { claudeCode: { toolName: 'Read' } };
    const first = toEvent({
      sessionUpdate: 'tool_call',
      toolCallId: 't1',
      title: 'Read File',
      kind: 'read',
      status: 'pending',
      _meta: meta,
    });
    expect(first).toMatchObject({ type: 'tool', tool: 'Read', title: 'Read File' });
    toEvent({ sessionUpdate: 'tool_call_update', toolCallId: 't1', title: 'Read evidence/a.txt', _meta: meta });
    const done = toEvent({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't1',
      status: 'completed',
      rawOutput: '1\tfirst line',
      _meta: meta,
    });
    expect(done).toMatchObject({
      tool: 'Read',
      title: 'Read evidence/a.txt',
      status: 'completed',
      output: '1\tfirst line',
    });
  });
});
