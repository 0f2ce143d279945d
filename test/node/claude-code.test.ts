/**
 * Claude Code as a runtime, against recordings of the real Claude Code (npm run
 * record:claude-code): its transcripts imported by content, the report read from those rows
 * alone, every source within 2 points of what the scripted model counted in the last request,
 * the runtime named and split; the import's idempotency and its refusals.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTranscript, type TranscriptSession } from '../../src/node/agent/claude-code/transcript';
import { writeTranscripts } from '../../src/node/import/claude-code/write-transcripts';
import { ExportInputError } from '../../src/node/export-input-error';
import { PROJECT_ROOT } from '../../src/node/project';
import type { MessagesRequest } from '../../src/node/scripted-model/anthropic';
import { SOURCE_IDS, contextReportSchema } from '../../src/shared/wire';
import { buildRecordingWorkspace, treeDigest } from '../recording/workspace';
import { claudeCodeTruth } from '../support/claude-code-truth';
import { createFixture, reportOf, WS, type Fixture } from '../support/fixtures';

const DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'claude-code');
const NAMES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''));

interface Recording {
  sessionId: string;
  workspace: { digest: string };
  lastRequest: MessagesRequest;
  transcripts: Record<string, string[]>;
}

let fx: Fixture | undefined;
afterEach(() => fx?.cleanup());

/** The recording's transcripts as files, read by the import. */
function sessionsOf(fixture: Fixture, recording: Recording): TranscriptSession[] {
  return Object.entries(recording.transcripts).map(([name, lines], i) => {
    const path = join(fixture.dir, `transcript-${i}.jsonl`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return readTranscript({ path, name });
  });
}

/** The recording workspace with Claude Code's layout, as the recorder made it. */
function claudeWorkspace(root: string): void {
  buildRecordingWorkspace(root, 'recording');
  cpSync(join(root, 'AGENTS.md'), join(root, 'CLAUDE.md'));
  if (existsSync(join(root, '.opencode', 'skills')))
    cpSync(join(root, '.opencode', 'skills'), join(root, '.claude', 'skills'), { recursive: true });
}

const load = (name: string) => JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Recording;
const write = (f: Fixture, sessions: TranscriptSession[]) =>
  writeTranscripts(f.store, sessions, { workspaceId: WS, kind: 'claude_code_transcript', now: 1 });

describe('Claude Code: the report against the recorded requests of the real Claude Code', () => {
  it('has the recordings the report must get right', () => {
    expect(NAMES).toEqual(expect.arrayContaining(['fresh', 'subagent', 'compaction']));
  });

  for (const name of NAMES) {
    it(`${name}: every source within 2 points of what the model counted; the runtime named and split`, async () => {
      fx = await createFixture();
      claudeWorkspace(fx.root);
      const recording = load(name);
      // The workspace the recording ran in, the same again (else: npm run record:claude-code).
      expect(treeDigest(fx.root)).toBe(recording.workspace.digest);
      await write(fx, sessionsOf(fx, recording));
      const report = await reportOf(fx, { sessionId: recording.sessionId, items: 'all' });
      expect(contextReportSchema.safeParse(report).success).toBe(true);
      const truth = claudeCodeTruth(recording.lastRequest);
      expect(report.actual?.contextUsed).toBe(truth.total);
      expect(report.calibration?.mode).toBe('measured');
      for (const id of SOURCE_IDS) {
        const source = report.sources.find((s) => s.id === id)!;
        expect(
          Math.abs((source.percentOfUsed ?? 0) - truth.percent[id]),
          `${id}: report ${source.percentOfUsed}%, truth ${truth.percent[id].toFixed(2)}%`,
        ).toBeLessThanOrEqual(2);
      }
      const json = JSON.stringify(report);
      expect(json).toContain('Claude Code system prompt and tool schemas');
    });
  }

  it('books a read of evidence/ to Evidence and the skill to Skills & Knowledge', async () => {
    fx = await createFixture();
    claudeWorkspace(fx.root);
    const recording = load('fresh');
    await write(fx, sessionsOf(fx, recording));
    const report = await reportOf(fx, { sessionId: recording.sessionId, items: 'all' });
    const evidence = report.sources.find((s) => s.id === 'evidence')!;
    expect(JSON.stringify(evidence)).toContain('evidence_summary_for_agent.txt');
    const skills = report.sources.find((s) => s.id === 'skills_knowledge')!;
    expect(JSON.stringify(skills)).toContain('tidb-clinic-diagnosis');
  });
});

describe('Claude Code: import of transcripts', () => {
  it('imports a transcript once: a second import changes nothing', async () => {
    fx = await createFixture();
    const recording = load('fresh');
    const first = await write(fx, sessionsOf(fx, recording));
    expect(first[0]!.added).toBeGreaterThan(0);
    const again = await write(fx, sessionsOf(fx, recording));
    expect(again[0]).toMatchObject({ added: 0, replaced: 0, unchanged: first[0]!.added });
    const rows = fx.raw.prepare('SELECT DISTINCT runtime FROM messages_v2').all() as { runtime: string }[];
    expect(rows).toEqual([{ runtime: 'claude-code' }]);
  });

  it("keeps a subagent's transcript as its own session, named by the main one", async () => {
    fx = await createFixture();
    const sessions = sessionsOf(fx, load('subagent'));
    const sub = sessions.find((s) => s.parentId !== null)!;
    expect(sub.sessionId).toMatch(/^[0-9a-f-]+\/agent-[0-9a-f]+$/);
    expect(sub.parentId).toBe(sessions.find((s) => s.parentId === null)!.sessionId);
  });

  it('refuses what is not a whole transcript, in one sentence naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-cc-'));
    const lines = load('fresh').transcripts;
    const main = Object.values(lines)[0]!;
    const truncated = join(dir, 'truncated.jsonl');
    writeFileSync(truncated, `${main.slice(0, 5).join('\n')}\n${main[5]!.slice(0, 40)}`);
    expect(() => readTranscript({ path: truncated, name: 'truncated.jsonl' })).toThrow(
      new ExportInputError('truncated.jsonl ends in the middle of a line (truncated?)'),
    );
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, '{"hello": "world"}\n');
    expect(() => readTranscript({ path: other, name: 'other.jsonl' })).toThrow(
      /other.jsonl is not a Claude Code transcript/,
    );
    rmSync(dir, { recursive: true, force: true });
  });
});
