/**
 * The rules behind the advice, on small inputs: the narrower read picked from a file's structure
 * and what the model quoted (or a log's error lines); the calls left before auto-compaction, and
 * every reason they cannot be counted; what OpenCode's configuration can turn off and in which
 * form (a tool per agent, an MCP server the workspace declares, the edit tools only together).
 */
import { describe, expect, it } from 'vitest';
import { callsLeft } from '../../src/node/core/calls-left';
import { narrowerRead, quotedSpans } from '../../src/node/core/narrower-read';
import { OPENCODE_ADVICE } from '../../src/node/core/opencode/advice';
import { readOutputLines } from '../../src/node/core/opencode/read-output';
import type { ContextWindow } from '../../src/shared/wire';
import type { ReportInput, RuntimePart } from '../../src/node/core/types';
import { unusedTools } from '../../src/node/core/unused-advice';

const lines = (text: string) => text.split('\n').map((t, i) => ({ n: i + 1, text: t }));

describe('the narrower read', () => {
  const markdown = [
    '# Runbook',
    'Intro line.',
    '',
    '## Disk',
    'Check io_util first.',
    '',
    '## Hot regions',
    'Run `pd-ctl hot read` and compare hot_degree.',
    'A region above 3000 is hot.',
    '',
    '## Leaders',
    'Transfer leaders with care.',
  ].join('\n');

  it('is the section that holds most of what the model quoted, with the most specific quote as the pattern', () => {
    const read = narrowerRead(
      lines(markdown),
      quotedSpans('The runbook says `pd-ctl hot read` and `above 3000 is hot`.'),
    );
    expect(read.range).toEqual({ from: 7, to: 10, what: 'the section that holds most of what you quoted from it' });
    expect(read.pattern).toMatchObject({ text: 'pd-ctl hot read', lines: 1 });
    expect(read.totalLines).toBe(12);
  });

  it('takes a log’s entries by their repeated header, and splits a quote at its elisions', () => {
    const log = ['# Time: 1', '# Digest: aaaa1111', 'SELECT 1;', '# Time: 2', '# Digest: bbbb2222ffff', 'SELECT 2;'];
    const read = narrowerRead(lines(log.join('\n')), ['bbbb2222…ffff']);
    expect(read.range).toMatchObject({ from: 4, to: 6 });
    expect(read.range!.what).toMatch(/^the entry /);
    expect(read.pattern?.text).toBe('bbbb2222');
  });

  it('without a quote the file holds, is a search for a log’s error lines, when they are few', () => {
    const log = lines(['INFO ok', 'INFO ok', 'ERROR region 7 unavailable', 'INFO ok', 'INFO ok'].join('\n'));
    expect(narrowerRead(log, ['nothing of it'])).toEqual({
      totalLines: 5,
      pattern: { text: 'ERROR', lines: 1, what: 'its error lines' },
    });
    // Nothing to go by: no range, no pattern (the sentence then asks for a search).
    expect(narrowerRead(lines('a\nb\nc'), [])).toEqual({ totalLines: 3 });
  });

  it('reads the lines from OpenCode’s read output, and the file’s length from its last line', () => {
    const output =
      '<path>/w/x.log</path>\n<type>file</type>\n<content>\n1: first\n2: second\n\n(Showing lines 1-2 of 713. Use offset=3 to continue.)\n</content>';
    expect(readOutputLines(output)).toEqual({
      lines: [
        { n: 1, text: 'first' },
        { n: 2, text: 'second' },
      ],
      total: 713,
    });
    expect(readOutputLines('no read here')).toBeNull();
  });

  it('quotes the model’s code spans, not its fenced blocks', () => {
    expect(quotedSpans('Use `a.b` here.\n```sql\nSELECT `x`;\n```\nand `c d`.')).toEqual(['a.b', 'c d']);
  });
});

describe('the calls left before OpenCode compacts', () => {
  const window: ContextWindow = {
    contextSize: 200_000,
    reservedOutput: 32_000,
    usable: 168_000,
    autoCompactAt: 168_000,
    basis: 'assumed',
  };
  const p = (call: number, promptTokens: number, events: string[] = []) => ({ call, promptTokens, events });

  it('go by the median growth per call since the last compaction, a pruning left out, with the quartiles as the range', () => {
    const timeline = [
      p(1, 10_000),
      p(2, 60_000),
      p(3, 20_000, ['compaction']),
      p(4, 21_000),
      p(6, 23_000),
      p(7, 22_000, ['pruning']),
      p(8, 24_000),
      p(9, 24_500),
      p(10, 30_500),
    ];
    // Since call 3: 3→4 +1,000; 4→6 +1,000 a call; 6→7 a fall; 7→8 +2,000; 8→9 +500; 9→10 +6,000.
    // Sorted 500, 1,000, 1,000, 2,000, 6,000: median 1,000; quartiles 1,000 and 2,000.
    const left = callsLeft(timeline, window, 30_500, 'OpenCode');
    expect(left.basis).toEqual({
      perCall: 1_000,
      calls: 5,
      fromCall: 3,
      toCall: 10,
      range: { low: Math.floor(137_500 / 2_000), high: Math.floor(137_500 / 1_000) },
    });
    expect(left.callsLeft).toBe(Math.floor(137_500 / 1_000));
  });

  it('hold steady over small turns: one turn more barely moves them', () => {
    // A session growing by about 300 a call, with one large read (+14,000) among its steps.
    const prompts = [8_000, 8_300, 8_650, 22_650, 22_950, 23_200, 23_550, 23_850];
    const base = prompts.map((tokens, i) => p(i + 1, tokens));
    const before = callsLeft(base, window, 23_850, 'OpenCode').callsLeft!;
    for (const growth of [120, 500, 380]) {
      const after = callsLeft([...base, p(9, 23_850 + growth)], window, 23_850 + growth, 'OpenCode').callsLeft!;
      expect(Math.abs(after - before) / before).toBeLessThan(0.1);
    }
  });

  it('cannot be said without a window, with auto-compaction off, from fewer than five calls since a compaction, or without growth', () => {
    expect(callsLeft([p(1, 1), p(2, 2)], null, 2, 'OpenCode').because).toBe(
      "OpenCode's auto-compaction point is not known for this model, so the calls left cannot be counted",
    );
    expect(callsLeft([p(1, 1), p(2, 2)], { ...window, autoCompactAt: null }, 2, 'OpenCode').because).toMatch(
      /auto-compaction is off/,
    );
    expect(callsLeft([p(1, 100)], window, 100, 'OpenCode').because).toBe(
      'only 1 model call was measured: a growth rate needs at least 5',
    );
    const grown = [1, 2, 3, 4, 5, 6].map((c) => p(c, c * 1_000));
    expect(callsLeft(grown, window, 6_000, 'OpenCode').callsLeft).not.toBeNull();
    // A compaction at call 4 leaves three calls to go by: no figure.
    const compacted = [...grown.slice(0, 3), p(4, 500, ['compaction']), p(5, 900), p(6, 1_300)];
    expect(callsLeft(compacted, window, 1_300, 'OpenCode').because).toBe(
      'only 3 model calls were measured since the last compaction: a growth rate needs at least 5',
    );
    const flat = [1, 2, 3, 4, 5].map((c) => p(c, 100));
    expect(callsLeft(flat, window, 100, 'OpenCode').because).toMatch(/did not grow/);
    // Past the point already: none left.
    const full = [1, 2, 3, 4, 5].map((c) => p(c, 160_000 + c * 2_000));
    expect(callsLeft(full, window, 170_000, 'OpenCode').callsLeft).toBe(0);
  });
});

describe('what OpenCode’s configuration turns off', () => {
  const base = { agent: 'build', sent: ['bash', 'read', 'task', 'edit', 'write'], mcp: [], config: { models: {} } };

  it('denies each tool for the agent by name; the edit tools only together, the MCP resource tools never', () => {
    const change = OPENCODE_ADVICE.unusedTools({ ...base, tools: ['task', 'write'] });
    expect(JSON.parse(change.text)).toEqual({ agent: { build: { permission: { task: 'deny' } } } });
    expect(change.tools).toEqual(['task']);
    expect(change.kept).toEqual([{ tool: 'write', why: 'it shares the edit permission with edit, which was called' }]);
    // The skill tool stays: OpenCode sends the skill catalog only with it.
    expect(OPENCODE_ADVICE.unusedTools({ ...base, tools: ['skill'] }).kept.map((k) => k.tool)).toEqual(['skill']);
    const both = OPENCODE_ADVICE.unusedTools({ ...base, tools: ['edit', 'write'] });
    expect(JSON.parse(both.text)).toEqual({ agent: { build: { permission: { edit: 'deny' } } } });
    expect(both.tools).toEqual(['edit', 'write']);
    const resources = OPENCODE_ADVICE.unusedTools({
      ...base,
      tools: [],
      mcp: [{ server: 'docs', tools: ['docs_search', 'read_mcp_resource'], whole: false }],
    });
    expect(resources.tools).toEqual(['docs_search']);
    expect(resources.kept.map((k) => k.tool)).toEqual(['read_mcp_resource']);
  });

  it('turns off an MCP server the workspace declares, whole; one it does not (given over ACP) by its tools', () => {
    const mcp = [
      { server: 'incident-tools', tools: ['incident-tools_a', 'incident-tools_b'], whole: true },
      { server: 'investibook', tools: ['investibook_context_report'], whole: true },
    ];
    const change = OPENCODE_ADVICE.unusedTools({
      ...base,
      tools: [],
      mcp,
      config: { models: {}, mcpServers: ['incident-tools'] },
    });
    expect(JSON.parse(change.text)).toEqual({
      agent: { build: { permission: { investibook_context_report: 'deny' } } },
      mcp: { 'incident-tools': { enabled: false } },
    });
    expect(change.servers).toEqual(['incident-tools']);
    expect(change.tools).toEqual(['investibook_context_report', 'incident-tools_a', 'incident-tools_b']);
  });

  it('without an agent, turns off for every agent; a skill by its name', () => {
    expect(JSON.parse(OPENCODE_ADVICE.unusedTools({ ...base, agent: null, tools: ['task'] }).text)).toEqual({
      permission: { task: 'deny' },
    });
    expect(JSON.parse(OPENCODE_ADVICE.unusedSkill({ agent: 'plan', skill: 'x-y' }).text)).toEqual({
      agent: { plan: { permission: { skill: { 'x-y': 'deny' } } } },
    });
  });
});

describe('the never-called tools, as a suggestion', () => {
  const tool = (name: string, tokens: number, called: boolean): RuntimePart => ({
    kind: 'tool',
    label: name,
    name,
    estimate: tokens,
    tokens,
    called,
  });
  const inputOf = (calls: number, parts: RuntimePart[]) =>
    ({
      runtime: { name: 'OpenCode', rows: 'opencode', label: '', words: {}, advice: OPENCODE_ADVICE },
      runtimeSplit: { parts, estimated: 0, measured: 0, recordedAt: 0, agent: 'build', model: null, notes: [] },
      agent: 'build',
      workspace: { agentConfig: { models: {}, mcpServers: [] } },
      calibration: { calls },
      usage: { contextUsed: 20_000, contextSize: 200_000, recordedAt: 0 },
    }) as unknown as ReportInput;
  const report = (server: string): RuntimePart => ({
    kind: 'mcp_server',
    label: server,
    name: server,
    estimate: 300,
    tokens: 300,
    tools: [{ name: 'investibook_context_report', estimate: 300, called: false }],
  });

  it('never turn off the report’s own MCP tool, and price the change as a cache broken once', () => {
    const [s] = unusedTools(inputOf(12, [tool('task', 900, false), tool('read', 500, true), report('investibook')]));
    expect(s!.tools).toEqual(['task']);
    expect(s!.tokens).toBe(900);
    expect(s!.once).toMatchObject({ uncached: 20_000 - 900 });
    expect(s!.detail).not.toContain('Weak evidence');
    // Only the report's tool unused: nothing to suggest.
    expect(unusedTools(inputOf(12, [tool('read', 500, true), report('investibook')]))).toEqual([]);
  });

  it('say that a tool never called in a handful of calls is weak evidence', () => {
    const [s] = unusedTools(inputOf(2, [tool('bash', 700, false), tool('read', 500, true)]));
    expect(s!.detail).toContain('Weak evidence: the session made only 2 model calls');
  });
});
