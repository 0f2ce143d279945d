/**
 * Contract tests of the report engine: one per attribution rule of contract §2–§4, on fixtures
 * built in code, through the real read-only adapters.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReportService, type ReportRequest } from '../../src/node/report/service';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { contextReportSchema, SOURCE_IDS, type ContextReport, type SourceId } from '../../src/shared/wire';
import {
  addMessages,
  addUsage,
  createFixture,
  readTool,
  reportOf,
  SESSION,
  text,
  tool,
  WS,
  type Fixture,
} from '../support/fixtures';

const FILES = {
  'AGENTS.md': '# Agent rules\nAlways cite evidence.\n',
  'opencode.json': JSON.stringify({ instructions: ['docs/rules.md'] }),
  'docs/rules.md': 'Runbook rule: never mutate the cluster.\n',
  '.opencode/skills/alpha/SKILL.md':
    '---\nname: alpha\ndescription: Alpha skill for hotspots\n---\n\n# Alpha\nBody of alpha.\n',
  '.opencode/skills/beta/SKILL.md': '---\nname: beta\ndescription: Beta skill\n---\n\n# Beta\n',
  '.opencode/.all-skills/alpha/SKILL.md': '---\nname: alpha\ndescription: cached\n---\n' + 'x'.repeat(500),
  '.opencode/.all-skills/gamma/SKILL.md': '---\nname: gamma\ndescription: never enabled\n---\n' + 'y'.repeat(700),
  'evidence/evidence_summary_for_agent.txt': 'SUMMARY line\n',
  'evidence/slow.log': '# Query_time: 2.1\nSELECT 1;\n',
  'meta/cluster.json': '{"cluster":"c1"}',
  'meta/alerts.json': '[]',
  'issues/42.md': '# Issue 42',
  'sources/schema.sql': 'CREATE TABLE t (id int);',
  'other/notes.txt': 'misc',
};

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture(FILES);
});
afterEach(() => fx.cleanup());

async function report(request: Partial<ReportRequest> = {}): Promise<ContextReport> {
  const result = await reportOf(fx, { estimator: 'chars4', items: 'all', ...request });
  expect(contextReportSchema.safeParse(result).success).toBe(true);
  return result;
}

const source = (r: ContextReport, id: SourceId) => r.sources.find((s) => s.id === id)!;
const labels = (r: ContextReport, id: SourceId) => source(r, id).items.map((i) => i.label);
const allItems = (r: ContextReport) => r.sources.flatMap((s) => s.items.map((i) => ({ ...i, source: s.id })));
const itemByLabel = (r: ContextReport, label: string) => allItems(r).find((i) => i.label === label);

describe('always in context', () => {
  it('counts the instruction files and the catalog of enabled skills, never the candidate cache', async () => {
    const r = await report();
    expect(labels(r, 'agent_instructions')).toEqual(
      expect.arrayContaining(['Instructions: AGENTS.md', 'Instructions: docs/rules.md']),
    );
    expect(labels(r, 'skills_knowledge')).toContain('Skill catalog: 2 enabled skills + 1 built-in');
    expect(JSON.stringify(r.sources)).not.toContain('gamma');
    const cache = r.excluded.find((e) => e.label.includes('.opencode/.all-skills'));
    expect(cache?.count).toBe(2);
    expect(cache?.bytes).toBeGreaterThan(1200);
  });

  it('lists all nine sources in contract order even when empty', async () => {
    const r = await report();
    expect(r.sources.map((s) => s.id)).toEqual([...SOURCE_IDS]);
    expect(source(r, 'evidence').itemCount).toBe(0);
  });
});

describe('tool payload attribution', () => {
  it('attributes reads by path to evidence, metadata, issue/source files, skills, instructions and unknown', async () => {
    addMessages(fx, [
      {
        role: 'assistant',
        parts: [
          readTool(fx.root, 'evidence/evidence_summary_for_agent.txt', 'SUMMARY'),
          readTool(fx.root, 'evidence/slow.log', 'slow'),
          readTool(fx.root, 'meta/cluster.json', '{}'),
          readTool(fx.root, 'meta/alerts.json', '[]'),
          readTool(fx.root, 'issues/42.md', 'issue'),
          readTool(fx.root, 'sources/schema.sql', 'sql'),
          readTool(fx.root, '.opencode/skills/alpha/SKILL.md', 'alpha body'),
          readTool(fx.root, 'other/notes.txt', 'misc'),
          tool('read', { filePath: '/etc/passwd' }, 'root:x'),
        ],
      },
    ]);
    const r = await report();
    expect(labels(r, 'evidence')).toEqual(
      expect.arrayContaining(['Read evidence summary: evidence_summary_for_agent.txt', 'Read evidence: slow.log']),
    );
    expect(labels(r, 'cluster_alert_metadata')).toEqual(
      expect.arrayContaining(['Read cluster metadata: cluster.json', 'Read alert metadata: alerts.json']),
    );
    expect(labels(r, 'issue_source_files')).toEqual(
      expect.arrayContaining(['Read issue file: 42.md', 'Read source file: schema.sql']),
    );
    expect(labels(r, 'skills_knowledge')).toContain('Read skill file: alpha/SKILL.md');
    // Anything else is a file by its path, inside the root or out of it (contract §2): never Unknown.
    expect(labels(r, 'issue_source_files')).toEqual(
      expect.arrayContaining(['Read file: other/notes.txt', 'Read file outside the workspace: /etc/passwd']),
    );
    expect(labels(r, 'unknown_tool_payload')).toEqual([]);
    expect(itemByLabel(r, 'Read file: other/notes.txt')!.path).toBe('other/notes.txt');
  });

  it('labels investibook’s own MCP tool, a tool payload like any other, and reads other MCP tools by their input', async () => {
    addMessages(fx, [
      {
        role: 'assistant',
        parts: [
          tool('investibook_context_report', {}, 'Context report · workspace ws_test · session ses_test_main\n…'),
          tool('investibook_context_report', { items: 3 }, 'Context report · again'),
          tool('github_get_file', { path: join(fx.root, 'evidence/slow.log') }, '# Query_time: 2.1'),
          tool('pager_list_incidents', { team: 'db' }, '[]'),
          tool('investibook_context_report', {}, 'tagged', { metadata: { investibook: { source: 'evidence' } } }),
        ],
      },
    ]);
    const r = await report();
    // The report the agent read belongs to the MCP server that answered it, a row of its own.
    expect(labels(r, 'mcp:investibook').filter((l) => l === 'Context report (MCP)')).toHaveLength(2);
    expect(r.sources.find((s) => s.id === 'mcp:investibook')!.label).toBe('MCP server: investibook');
    expect(labels(r, 'agent_instructions')).not.toContain('Context report (MCP)');
    // An explicit tag still comes first.
    expect(labels(r, 'evidence')).toEqual(
      expect.arrayContaining(['Tool call: github_get_file — evidence/slow.log', 'Context report (MCP)']),
    );
    // Another server's tool names no path: its output is its server's (OpenCode names it SERVER_TOOL).
    expect(labels(r, 'mcp:pager')).toContain('MCP pager: list_incidents — db');
    expect(labels(r, 'unknown_tool_payload')).toEqual([]);
    expect(allItems(r).some((i) => i.label.includes('investibook_context_report'))).toBe(false);
  });

  it('applies the rules in order: explicit tag, the skill tool, the path, the working folder, the address, else unknown', async () => {
    addMessages(fx, [
      {
        role: 'assistant',
        parts: [
          tool('bash', { command: 'cat evidence/slow.log' }, 'tagged', {
            metadata: { investibook: { source: 'evidence' } },
          }),
          tool('skill', { name: 'alpha' }, '<skill_content name="alpha">body</skill_content>'),
          tool('grep', { pattern: 'Query_time', path: join(fx.root, 'evidence') }, 'evidence/slow.log: 1'),
          tool('bash', { command: 'ls -la' }, 'total 0'),
          tool('read', { filePath: join(fx.root, 'meta/cluster.json') }, '{}', {
            metadata: { investibook: { source: 'issue_source_files' } },
          }),
          tool('webfetch', { url: 'https://example.com' }, 'page', {
            metadata: { investibook: { source: 'not-a-source' } },
          }),
          tool('invalid', { reason: 'no such tool' }, 'error'),
        ],
      },
    ]);
    const r = await report();
    expect(labels(r, 'evidence')).toEqual(
      expect.arrayContaining(['Shell: cat evidence/slow.log', 'Tool call: grep — "Query_time" in evidence']),
    );
    expect(labels(r, 'skills_knowledge')).toContain('Loaded skill: alpha');
    expect(labels(r, 'issue_source_files')).toContain('Read cluster metadata: cluster.json');
    // A command that names no path belongs to the folder it ran in (here the workspace's root).
    expect(labels(r, 'issue_source_files')).toContain('Shell: ls -la');
    // A page belongs to its address: Web pages, a source after the nine.
    expect(labels(r, 'web_pages')).toEqual(['Web page: https://example.com']);
    expect(r.sources.map((s) => s.id).slice(9)).toContain('web_pages');
    // Only what names no path, address, working folder or owner is Unknown.
    expect(labels(r, 'unknown_tool_payload')).toEqual(['Tool call: invalid — no such tool']);
    expect(r.warnings.some((w) => w.includes('not-a-source'))).toBe(true);
    // Never a "tool" source: input and output of a call are one item.
    expect(r.sources.map((s) => s.id)).not.toContain('tool');
    // The model reads the call (tool name and input) and its result.
    const bash = itemByLabel(r, 'Shell: ls -la')!;
    expect(bash.estimatedTokens).toBe(
      Math.ceil(`bash ${JSON.stringify({ command: 'ls -la' })}`.length / 4) + Math.ceil('total 0'.length / 4),
    );
    expect(bash.sourceRef).toMatch(/^messages_v2\/msg_\w+\/parts\/3$/);
  });

  it('counts error text, the interruption placeholder, and only the placeholder of a pruned output', async () => {
    const big = 'z'.repeat(4000);
    addMessages(fx, [
      {
        role: 'assistant',
        parts: [
          tool('bash', { command: 'false' }, '', { status: 'error', error: 'exit status 1: permission denied' }),
          tool('bash', { command: 'sleep 100' }, '', { status: 'running' }),
          readTool(fx.root, 'evidence/slow.log', big, { time: { compacted: 5 } }),
        ],
      },
    ]);
    const r = await report();
    expect(itemByLabel(r, 'Shell: false (error)')!.bytes).toBe(
      `bash ${JSON.stringify({ command: 'false' })}`.length + 'exit status 1: permission denied'.length,
    );
    expect(itemByLabel(r, 'Shell: sleep 100 (interrupted)')!.bytes).toBe(
      `bash ${JSON.stringify({ command: 'sleep 100' })}`.length + '[Tool execution was interrupted]'.length,
    );
    const pruned = itemByLabel(r, 'Read evidence: slow.log (output cleared)')!;
    expect(pruned.bytes).toBeLessThan(200);
    expect(r.excluded.find((e) => e.label === 'Pruned tool outputs')).toMatchObject({ bytes: 4000, count: 1 });
  });

  it('counts <system-reminder> instructions inside a read output as instructions', async () => {
    const reminder = `<system-reminder>\nInstructions from: ${join(fx.root, 'sources/AGENTS.md')}\nQuote snapshots with their date.\n</system-reminder>`;
    addMessages(fx, [
      {
        role: 'assistant',
        parts: [readTool(fx.root, 'sources/schema.sql', `<content>CREATE</content>\n\n${reminder}`)],
      },
    ]);
    const r = await report();
    const instructions = itemByLabel(r, 'Instructions: sources/AGENTS.md (loaded with a read)')!;
    expect(instructions.source).toBe('agent_instructions');
    expect(instructions.bytes).toBe(reminder.length + 2);
    expect(itemByLabel(r, 'Read source file: schema.sql')!.bytes).toBeLessThan(200);
  });
});

describe('prompt content', () => {
  it('splits <workspace-context> into one item per section, by its source attribute', async () => {
    const ctx = [
      '<workspace-context>',
      '<section source="cluster_alert_metadata" label="Cluster overview">tidb v7</section>',
      '<section source="evidence" label="Evidence index">slow.log</section>',
      '<section source="bogus" label="Odd">?</section>',
      '</workspace-context>',
    ].join('\n');
    addMessages(fx, [{ role: 'user', parts: [text('Investigate'), text(ctx, { synthetic: true })] }]);
    const r = await report();
    expect(labels(r, 'cluster_alert_metadata')).toContain('Workspace context: Cluster overview');
    expect(labels(r, 'evidence')).toContain('Workspace context: Evidence index');
    expect(labels(r, 'conversation')).toEqual(
      expect.arrayContaining(['User message: Investigate', 'Workspace context: Odd', 'Workspace context: framing']),
    );
    expect(r.warnings.some((w) => w.includes('"bogus"'))).toBe(true);
  });

  it('attributes attached reads by their path, file parts as metadata without base64 bodies, and skips ignored text', async () => {
    const png = Buffer.alloc(86_000, 1).toString('base64');
    const abs = join(fx.root, 'issues/42.md');
    addMessages(fx, [
      {
        role: 'user',
        parts: [
          text('See attached'),
          text(`Called the Read tool with the following input: ${JSON.stringify({ filePath: abs })}`, {
            synthetic: true,
          }),
          text(`<path>${abs}</path>\n<type>file</type>\n<content>\n1: # Issue 42\n</content>`, { synthetic: true }),
          { type: 'file', mime: 'text/plain', filename: '42.md', url: `file://${abs}` },
          { type: 'file', mime: 'image/png', filename: 'grafana.png', url: `data:image/png;base64,${png}` },
          text('SECRET_IGNORED_TEXT', { ignored: true }),
        ],
      },
    ]);
    const r = await report();
    expect(labels(r, 'issue_source_files')).toContain('Read issue file: 42.md (attached)');
    // A text/plain file part is not sent: its content went in as the read above.
    expect(labels(r, 'attachment_metadata')).toEqual(['Attachment: grafana.png (image/png, 84 KB)']);
    expect(source(r, 'attachment_metadata').bytes).toBeLessThan(300);
    expect(r.excluded.find((e) => e.label.startsWith('Attachment bodies'))?.bytes).toBe(png.length);
    expect(r.excluded.find((e) => e.label === 'Ignored text parts')?.count).toBe(1);
    expect(JSON.stringify(r)).not.toContain('SECRET_IGNORED_TEXT');
    // The image's tokens are the family's published rule, for a size the bytes do not tell: said.
    expect(r.notes).toContainEqual(
      expect.stringMatching(
        /^Images: 1 item with images in context; by .+ rule.*, [\d,]+ tokens — an estimate .*1,024 × 768/,
      ),
    );
  });

  it('counts visible reasoning only, and never bookkeeping parts', async () => {
    addMessages(fx, [
      {
        role: 'assistant',
        parts: [
          { type: 'step-start' },
          { type: 'reasoning', text: 'Think about store 4' },
          { type: 'reasoning', text: '' },
          text('Answer'),
          { type: 'patch', hash: 'abc', files: [] },
          { type: 'snapshot', snapshot: 'x' },
          { type: 'agent', name: 'build' },
          { type: 'retry', attempt: 1 },
          { type: 'step-finish', tokens: { input: 1 } },
        ],
        info: { tokens: { input: 10, output: 5, reasoning: 999, cache: { read: 90, write: 4 } } },
      },
    ]);
    const r = await report();
    // No ACP total: the total is the call's own prompt (contract §8), so what it produced is
    // added since that call — listed apart, counted all the same.
    const held = (id: SourceId) => [
      ...labels(r, id),
      ...(r.pending?.items ?? []).filter((i) => i.source === id).map((i) => i.label),
    ];
    expect(r.actual).toMatchObject({ source: 'provider', contextUsed: 1 });
    expect(held('assistant_reasoning')).toEqual(['Reasoning: Think about store 4']);
    expect(held('conversation')).toEqual(['Assistant reply: Answer']);
    expect(r.excluded.find((e) => e.label.startsWith("OpenCode's own records"))?.count).toBe(6);
    // OpenCode's input leaves the cache out: the prompt was 10 + 90 + 4 tokens, 90 of them read from cache.
    expect(r.providerTokens).toMatchObject({
      input: 10,
      cacheRead: 90,
      cacheWrite: 4,
      promptTokens: 104,
      convention: 'input-excludes-cache',
      cacheReadSharePercent: 86.5,
    });
  });

  it('never invents cache figures the provider did not report', async () => {
    addMessages(fx, [{ role: 'assistant', parts: [text('hi')], info: { tokens: { input: 10, output: 2 } } }]);
    const r = await report();
    expect(r.providerTokens).toMatchObject({
      input: 10,
      cacheRead: null,
      cacheWrite: null,
      cacheReadSharePercent: null,
    });
  });
});

describe('compaction', () => {
  function compactedSession(summaryInfo: Record<string, unknown>) {
    const [first] = addMessages(fx, [
      { role: 'user', parts: [text('old question')] },
      { role: 'assistant', parts: [readTool(fx.root, 'evidence/slow.log', 'old output '.repeat(100))] },
    ]);
    const [request] = addMessages(fx, [{ role: 'user', parts: [{ type: 'compaction', auto: true }] }]);
    addMessages(fx, [
      { role: 'assistant', parts: [text('## Goal\nsummary text')], info: { parentID: request, ...summaryInfo } },
      { role: 'user', parts: [text('new question')] },
    ]);
    return first;
  }

  it('leaves history before the latest completed compaction out, and reports it', async () => {
    compactedSession({ summary: true, finish: 'stop' });
    const r = await report();
    expect(labels(r, 'conversation')).toEqual(
      expect.arrayContaining(['Compaction request', 'Compaction summary', 'User message: new question']),
    );
    expect(JSON.stringify(r.sources)).not.toContain('old question');
    expect(labels(r, 'evidence')).toEqual([]);
    const history = r.excluded.find((e) => e.label === 'History before the latest compaction')!;
    expect(history.count).toBe(2);
    expect(history.bytes).toBeGreaterThan(1100);
  });

  it('does not cut at a compaction that has not completed or failed', async () => {
    compactedSession({ summary: true });
    expect(labels(await report(), 'conversation')).toContain('User message: old question');
    fx.cleanup();
    fx = await createFixture(FILES);
    compactedSession({ summary: true, finish: 'stop', error: { name: 'APIError' } });
    expect(labels(await report(), 'conversation')).toContain('User message: old question');
  });

  it('reads compaction from structured markers only, never from text', async () => {
    addMessages(fx, [
      { role: 'user', parts: [text('old question')] },
      { role: 'assistant', parts: [text('What did we do so far? ## Goal summary')], info: { finish: 'stop' } },
      { role: 'user', parts: [text('What did we do so far?')] },
    ]);
    expect(labels(await report(), 'conversation')).toContain('User message: old question');
  });
});

describe('totals and scaling', () => {
  beforeEach(() => {
    addMessages(fx, [
      { role: 'user', parts: [text('Why is store 4 hot?')] },
      {
        role: 'assistant',
        parts: [readTool(fx.root, 'evidence/slow.log', 'x'.repeat(999)), text('Because of a scan.')],
      },
    ]);
  });

  it('uses the latest ACP row and ignores newer rows from other sources', async () => {
    addUsage(fx, 1000);
    addUsage(fx, 5003);
    addUsage(fx, 99, { source: 'evidence_postpass', size: 128_000 });
    const r = await report();
    expect(r.actual).toMatchObject({ contextUsed: 5003, contextSize: 200_000, percent: 2.5, source: 'acp' });
  });

  it('scales with conservation: sources sum to the used total, items to their source', async () => {
    addUsage(fx, 5003);
    const r = await report();
    expect(r.sources.reduce((n, s) => n + s.scaledTokens!, 0)).toBe(5003);
    for (const s of r.sources) {
      expect(s.items.reduce((n, i) => n + i.scaledTokens!, 0)).toBe(s.scaledTokens);
      expect(s.percentOfUsed).toBeCloseTo((s.scaledTokens! / 5003) * 100, 1);
    }
    expect(r.estimate.scale).toBeCloseTo(5003 / r.estimate.totalTokens, 3);
  });

  it('keeps conservation when items are cut short, accounting the rest in `more`', async () => {
    addUsage(fx, 5003);
    const r = await report({ items: 1 });
    for (const s of r.sources) {
      expect(s.items.length).toBeLessThanOrEqual(1);
      const shown = s.items.reduce((n, i) => n + i.scaledTokens!, 0);
      expect(shown + s.more.scaledTokens!).toBe(s.scaledTokens);
      expect(s.items.length + s.more.itemCount).toBe(s.itemCount);
    }
  });

  it('is pending without an ACP row: estimates only, scaled figures null', async () => {
    addUsage(fx, 777, { source: 'evidence_postpass' });
    const r = await report();
    expect(r.actual).toBeNull();
    expect(r.estimate.scale).toBeNull();
    expect(r.sources.every((s) => s.scaledTokens === null && s.percentOfUsed === null)).toBe(true);
    expect(r.estimate.totalTokens).toBeGreaterThan(0);
    expect(r.notes.some((n) => n.startsWith('Pending'))).toBe(true);
  });

  it('handles a context_size of 0 or absent, and skips unusable usage rows with a warning', async () => {
    addUsage(fx, 4000, { size: 0 });
    let r = await report();
    expect(r.actual).toMatchObject({ contextUsed: 4000, contextSize: null, percent: null });
    expect(r.warnings.some((w) => w.includes('context_size 0'))).toBe(true);
    addUsage(fx, -5);
    r = await report();
    expect(r.actual?.contextUsed).toBe(4000);
    expect(r.warnings.some((w) => w.includes('context_used -5'))).toBe(true);
  });

  it('selects the estimator: BPE by default, chars/4 on request', async () => {
    const bpe = await report({ estimator: undefined });
    expect(bpe.estimate).toMatchObject({ estimator: 'bpe', method: expect.stringContaining('o200k_base') });
    const chars = await report({ estimator: 'chars4' });
    expect(chars.estimate).toMatchObject({ estimator: 'chars4', method: expect.stringMatching(/^chars\/4/) });
    expect(chars.estimate.totalTokens).not.toBe(bpe.estimate.totalTokens);
  });
});

describe('the window', () => {
  it('reads the model limits and compaction settings of opencode.json', async () => {
    writeFileSync(
      join(fx.root, 'opencode.json'),
      JSON.stringify({
        instructions: ['docs/rules.md'],
        compaction: { auto: false },
        provider: { acme: { models: { 'big-1': { limit: { context: 100_000, output: 4_096 } } } } },
      }),
    );
    addMessages(fx, [
      { role: 'user', parts: [text('hi')], info: { model: { providerID: 'acme', modelID: 'big-1' } } },
      { role: 'assistant', parts: [text('hello')], info: { providerID: 'acme', modelID: 'big-1' } },
    ]);
    addUsage(fx, 9_000, { size: 100_000 });
    expect((await report()).window).toEqual({
      contextSize: 100_000,
      reservedOutput: 4_096,
      usable: 95_904,
      autoCompactAt: null,
      basis: 'workspace-config',
    });
  });
});

describe('sessions', () => {
  it('defaults to the most recently active session, by messages and ACP usage', async () => {
    addMessages(fx, [{ role: 'user', parts: [text('main')] }]);
    addMessages(fx, [{ role: 'user', parts: [text('other')], session: 'ses_other' }]);
    expect((await report()).sessionId).toBe('ses_other');
    addUsage(fx, 100, { session: SESSION });
    expect((await report()).sessionId).toBe(SESSION);
    expect((await report({ sessionId: 'ses_other' })).sessionId).toBe('ses_other');
    await expect(report({ sessionId: 'ses_missing' })).rejects.toThrow(/session not found/);
  });
});

describe('duplicates', () => {
  it('flags a file read more than once in live context and totals the repeated tokens', async () => {
    const body = 'summary '.repeat(50);
    addMessages(fx, [
      { role: 'assistant', parts: [readTool(fx.root, 'evidence/evidence_summary_for_agent.txt', body)] },
      { role: 'assistant', parts: [readTool(fx.root, 'evidence/evidence_summary_for_agent.txt', body)] },
      { role: 'assistant', parts: [readTool(fx.root, 'evidence/slow.log', 'once')] },
      {
        role: 'assistant',
        parts: [
          tool(
            'read',
            { filePath: join(fx.root, 'evidence/evidence_summary_for_agent.txt'), offset: 1, limit: 5 },
            'part',
          ),
        ],
      },
    ]);
    const r = await report();
    const reads = source(r, 'evidence').items.filter(
      (i) => i.label === 'Read evidence summary: evidence_summary_for_agent.txt',
    );
    expect(reads.map((i) => i.duplicate)).toEqual(
      expect.arrayContaining([
        { reads: 2, ordinal: 1 },
        { reads: 2, ordinal: 2 },
      ]),
    );
    expect(source(r, 'evidence').items.find((i) => i.label.includes('lines 1–5'))?.duplicate).toBeUndefined();
    expect(r.duplicates).toMatchObject({ files: 1, extraReads: 1, repeatedEstimatedTokens: reads[1]!.estimatedTokens });
  });
});

describe('bad input still yields a report, with warnings', () => {
  it('survives malformed rows: invalid JSON, a non-array, unknown parts, a null state, a number for text', async () => {
    addMessages(fx, [
      { role: 'user', parts: [], rawParts: '{not json' },
      { role: 'user', parts: [], rawParts: '{"type":"text"}' },
      {
        role: 'assistant',
        parts: [
          { type: 'hologram', text: 'x' },
          { type: 'tool', tool: 'bash', state: null },
          { type: 'text', text: 42 },
          text('fine'),
        ],
      },
      { role: 'assistant', parts: [text('info broken')], rawInfo: 'nope' },
    ]);
    const r = await report();
    const w = r.warnings.join('\n');
    expect(w).toMatch(/parts is not valid JSON/);
    expect(w).toMatch(/parts is not a JSON array/);
    expect(w).toMatch(/unknown part type "hologram"/);
    expect(w).toMatch(/no state object/);
    expect(w).toMatch(/a number where text belongs/);
    expect(w).toMatch(/info is not valid JSON/);
    expect(labels(r, 'conversation')).toEqual(expect.arrayContaining(['Assistant reply: fine']));
  });

  it('tolerates a binary instruction file, a symlink out of the root and a symlink loop', async () => {
    writeFileSync(join(fx.root, 'AGENTS.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    const outside = join(fx.dir, 'secret');
    mkdirSync(outside);
    writeFileSync(join(outside, 'SKILL.md'), '---\nname: stolen\ndescription: outside\n---\n');
    symlinkSync(outside, join(fx.root, '.opencode/skills/escape'));
    symlinkSync(join(fx.root, 'docs/loop'), join(fx.root, 'docs/loop'));
    writeFileSync(join(fx.root, 'opencode.json'), JSON.stringify({ instructions: ['docs/loop', 'docs/rules.md'] }));
    const r = await report();
    const w = r.warnings.join('\n');
    expect(w).toMatch(/AGENTS\.md: is a binary file/);
    expect(w).toMatch(/escape\/SKILL\.md: is a symlink that leaves the workspace/);
    expect(w).toMatch(/docs\/loop: is a symlink loop/);
    expect(JSON.stringify(r.sources)).not.toContain('stolen');
    expect(labels(r, 'agent_instructions')).toEqual(['Instructions: docs/rules.md']);
  });

  it('reports on a missing root and on a root that is a file', async () => {
    fx.raw.prepare('UPDATE workspaces SET root_path = ? WHERE id = ?').run('does-not-exist', WS);
    addMessages(fx, [{ role: 'user', parts: [text('hello')] }]);
    let r = await report();
    expect(r.warnings.some((w) => w.startsWith('workspace folder not found'))).toBe(true);
    expect(labels(r, 'conversation')).toEqual(['User message: hello']);
    fx.raw.prepare('UPDATE workspaces SET root_path = ? WHERE id = ?').run('ws/AGENTS.md', WS);
    r = await report();
    expect(r.warnings.some((w) => w.startsWith('workspace root is not a folder'))).toBe(true);
  });

  it('caps how much of a file it reads, with a warning', async () => {
    writeFileSync(join(fx.root, 'AGENTS.md'), 'a'.repeat(5000));
    const store = await openSqlite(fx.dbPath, { readOnly: true });
    try {
      const service = new ReportService(store, { maxFileBytes: 1000 });
      const r = await service.report({ workspaceId: WS, estimator: 'chars4' });
      expect(r.warnings).toContain('AGENTS.md: 5000 bytes; only the first 1000 were read');
      expect(itemByLabel(r, 'Instructions: AGENTS.md')!.bytes).toBeLessThan(1200);
    } finally {
      await store.close();
    }
  });
});
