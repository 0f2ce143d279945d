/**
 * Advice in Claude Code's terms, on a recording of the real Claude Code: the tools it sent and
 * the session never called, turned off with `permissions.deny` in the workspace's
 * .claude/settings.json — freeing exactly their parts of the runtime's item, ToolSearch and the
 * placeholder kept (denying them frees nothing: measured, docs/claude-code.md) — and the lines
 * of its Read output as the report's narrower-read advice reads them.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLAUDE_CODE_ADVICE } from '../../src/node/core/claude-code/advice';
import { readTranscript } from '../../src/node/agent/claude-code/transcript';
import { writeTranscripts } from '../../src/node/import/claude-code/write-transcripts';
import { PROJECT_ROOT } from '../../src/node/project';
import { buildRecordingWorkspace } from '../recording/workspace';
import { createFixture, reportOf, WS, type Fixture } from '../support/fixtures';

let fx: Fixture | undefined;
afterEach(() => fx?.cleanup());

interface Recording {
  sessionId: string;
  transcripts: Record<string, string[]>;
}

async function freshReport() {
  fx = await createFixture();
  buildRecordingWorkspace(fx.root, 'recording');
  cpSync(join(fx.root, 'AGENTS.md'), join(fx.root, 'CLAUDE.md'));
  if (existsSync(join(fx.root, '.opencode', 'skills')))
    cpSync(join(fx.root, '.opencode', 'skills'), join(fx.root, '.claude', 'skills'), { recursive: true });
  const recording = JSON.parse(
    readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'claude-code', 'fresh.json'), 'utf8'),
  ) as Recording;
  const sessions = Object.entries(recording.transcripts).map(([name, lines], i) => {
    const path = join(fx!.dir, `t-${i}.jsonl`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return readTranscript({ path, name });
  });
  await writeTranscripts(fx.store, sessions, { workspaceId: WS, kind: 'claude_code_transcript', now: 1 });
  return reportOf(fx, { sessionId: recording.sessionId, items: 'all' });
}

describe("Claude Code's advice", () => {
  it('turns off the tools never called with permissions.deny, freeing their parts of its own prompt', async () => {
    const report = await freshReport();
    const unused = report.suggestions.find((s) => s.kind === 'unused_tools')!;
    expect(unused.change).toMatchObject({ kind: 'opencode_config', file: '.claude/settings.json' });
    const denied = (JSON.parse(unused.change!.text) as { permissions: { deny: string[] } }).permissions.deny;
    const runtime = report.sources.flatMap((s) => s.items ?? []).find((i) => i.runtime)!;
    const parts = runtime.parts!.filter((p) => p.kind === 'tool');
    const called = new Set(['Read', 'Bash', 'Skill']);
    // Every tool sent and never called, but the two Claude Code cannot do without.
    expect(new Set(denied)).toEqual(
      new Set(
        parts
          .map((p) => p.name!)
          .filter((n) => !called.has(n) && n !== 'ToolSearch' && n !== 'DeferredToolPlaceholder'),
      ),
    );
    expect(denied).not.toContain('Read');
    expect(unused.detail).toContain('.claude/settings.json');
    expect(unused.detail).toMatch(/Left on: .*ToolSearch/);
    // What it frees is their parts of the runtime's item, as the report measured them.
    const freed = parts.filter((p) => denied.includes(p.name!)).reduce((n, p) => n + p.tokens, 0);
    expect(unused.figures).toMatchObject({ tokens: freed });
  });

  it("reads Claude Code's Read output as numbered lines", () => {
    expect(CLAUDE_CODE_ADVICE.fileLines('     1\tfirst\n     2\tsecond\n')).toEqual({
      lines: [
        { n: 1, text: 'first' },
        { n: 2, text: 'second' },
      ],
      total: 2,
    });
    expect(CLAUDE_CODE_ADVICE.fileLines('no lines here')).toBeNull();
  });

  it("turns a skill off in its own SKILL.md, and keeps investibook's report tool", () => {
    expect(CLAUDE_CODE_ADVICE.unusedSkill({ agent: null, skill: 'slow-query-analysis' })).toMatchObject({
      text: 'disable-model-invocation: true',
      file: '.claude/skills/slow-query-analysis/SKILL.md',
    });
    const change = CLAUDE_CODE_ADVICE.unusedTools({
      agent: null,
      sent: ['Edit', 'mcp__investibook__context_report'],
      tools: ['Edit', 'mcp__investibook__context_report'],
      mcp: [{ server: 'linear', tools: ['search'], whole: true }],
      config: undefined,
    });
    expect(JSON.parse(change.text)).toEqual({ permissions: { deny: ['Edit', 'mcp__linear'] } });
    expect(change.kept.map((k) => k.tool)).toEqual(['mcp__investibook__context_report']);
  });
});
