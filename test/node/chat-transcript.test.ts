/**
 * Issue 40: the chat's runtime-neutral transcript. GET …/messages maps each stored row by the
 * runtime that wrote it — OpenCode's rows and the real Claude Code's recorded transcripts — to
 * the one schema (shared/transcript.ts), validated before it is sent; the report names its runtime.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTranscript } from '../../src/node/agent/claude-code/transcript';
import { renderReport } from '../../src/node/cli/render-table';
import { writeTranscripts } from '../../src/node/import/claude-code/write-transcripts';
import { PROJECT_ROOT } from '../../src/node/project';
import { withTranscripts } from '../../src/node/server/chat-transcript';
import { part } from '../../src/shared/opencode/build';
import { transcriptMessageSchema, type TranscriptMessage, type TranscriptTool } from '../../src/shared/transcript';
import { messagesResponseSchema, type ChatMessage } from '../../src/shared/wire';
import {
  addMessages,
  createFixture,
  reportOf,
  SESSION,
  text,
  tool,
  TOKEN,
  WS,
  type Fixture,
} from '../support/fixtures';

let fx: Fixture | undefined;
afterEach(() => fx?.cleanup());

async function messagesOf(fixture: Fixture, sessionId: string): Promise<ChatMessage[]> {
  const app = await fixture.app();
  const response = await app.request(`/api/workspace/${WS}/messages?session_id=${encodeURIComponent(sessionId)}`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  expect(response.status).toBe(200);
  const { messages } = messagesResponseSchema.parse(await response.json());
  // Every message the server sends carries a transcript the one schema accepts.
  for (const m of messages) {
    expect(m.problem).toBeUndefined();
    expect(transcriptMessageSchema.safeParse(m.transcript).success).toBe(true);
  }
  return messages;
}

const shown = (messages: ChatMessage[]): TranscriptMessage[] =>
  messages.map((m) => m.transcript!).filter((t) => t.kind !== 'hidden');
const tools = (messages: ChatMessage[]): TranscriptTool[] =>
  messages.flatMap((m) => m.transcript!.parts).filter((p): p is TranscriptTool => p.type === 'tool');

const CONTEXT =
  '<workspace-context>\n<section source="evidence" label="Evidence index">a.txt</section>\n' +
  '<section source="cluster_meta" label="Cluster overview">x</section>\n</workspace-context>';
const REJECTED = 'The user rejected permission to use this specific tool call with the following input: {}';

describe('the chat transcript of OpenCode rows', () => {
  it('shows the user’s words, the context as sections, tools with their outcome, reasoning, a stop and a compaction', async () => {
    fx = await createFixture();
    const root = fx.root;
    addMessages(fx, [
      { role: 'user', parts: [text('Why is checkout slow?'), text(CONTEXT, { synthetic: true })] },
      {
        role: 'assistant',
        parts: [
          part.reasoning('Start from the evidence.'),
          tool('read', { filePath: join(root, 'evidence/a.txt') }, 'line one', { time: { compacted: 9 } }),
          tool('bash', { command: 'rm -rf evidence' }, '', { status: 'error', error: REJECTED }),
          text('The index is missing.'),
        ],
      },
      { role: 'assistant', parts: [text('Half a reply')], info: { error: { name: 'MessageAbortedError', data: {} } } },
      { role: 'assistant', parts: [part.compaction({ auto: true })] },
    ]);
    const messages = await messagesOf(fx, SESSION);
    expect(messages.map((m) => m.transcript)).toEqual([
      {
        role: 'user',
        kind: 'message',
        parts: [
          { type: 'text', text: 'Why is checkout slow?' },
          { type: 'context', sections: ['Evidence index', 'Cluster overview'] },
        ],
      },
      {
        role: 'assistant',
        kind: 'message',
        parts: [
          { type: 'reasoning', text: 'Start from the evidence.' },
          expect.objectContaining({
            type: 'tool',
            tool: 'read',
            summary: join(root, 'evidence/a.txt'),
            status: 'completed',
            output: 'line one',
            pruned: true,
          }),
          expect.objectContaining({
            type: 'tool',
            tool: 'bash',
            summary: 'rm -rf evidence',
            status: 'error',
            refused: 'policy',
            input: 'rm -rf evidence',
          }),
          { type: 'text', text: 'The index is missing.' },
        ],
      },
      {
        role: 'assistant',
        kind: 'message',
        parts: [{ type: 'text', text: 'Half a reply' }],
        outcome: { kind: 'stopped' },
      },
      { role: 'assistant', kind: 'compaction', auto: true, parts: [] },
    ]);
    // The runtime's own shapes stay as stored, for any other client (wire compatible).
    expect(messages[1]!.parts.map((p) => p.type)).toEqual(['reasoning', 'tool', 'tool', 'text']);
  });

  it('cuts a long output to a preview that says how much is left out', async () => {
    fx = await createFixture();
    addMessages(fx, [{ role: 'assistant', parts: [tool('grep', { pattern: 'x' }, 'y'.repeat(20_000))] }]);
    const [call] = tools(await messagesOf(fx, SESSION));
    expect(call!.output!.length).toBeLessThan(8100);
    expect(call!.output).toMatch(/\n… 12,000 more characters$/);
  });
});

interface Recording {
  sessionId: string;
  transcripts: Record<string, string[]>;
}

/** A recording of the real Claude Code imported as the import writes it (rows tagged `claude-code`). */
async function importRecording(fixture: Fixture, name: string): Promise<string> {
  const recording = JSON.parse(
    readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'claude-code', `${name}.json`), 'utf8'),
  ) as Recording;
  const sessions = Object.entries(recording.transcripts).map(([file, lines], i) => {
    const path = join(fixture.dir, `transcript-${i}.jsonl`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return readTranscript({ path, name: file });
  });
  await writeTranscripts(fixture.store, sessions, { workspaceId: WS, kind: 'claude_code_transcript', now: 1 });
  return recording.sessionId;
}

describe('the chat transcript of Claude Code rows', () => {
  it('shows each call once, where it was made, with its result; hides results-only entries, attachments and notes', async () => {
    fx = await createFixture();
    const sessionId = await importRecording(fx, 'fresh');
    const messages = await messagesOf(fx, sessionId);
    expect(messages.every((m) => m.runtime === 'claude-code')).toBe(true);
    const visible = shown(messages);
    expect(visible[0]).toEqual({
      role: 'user',
      kind: 'message',
      parts: [{ type: 'text', text: expect.stringMatching(/^INC-4821: payment requests time out/) }],
    });
    // Attachments, the skill's text for the model and the entries that only deliver results are not messages here.
    expect(messages.filter((m) => m.transcript!.kind === 'hidden').length).toBeGreaterThan(10);
    expect(visible.filter((t) => t.role === 'user')).toHaveLength(1);
    const calls = tools(messages);
    expect(calls.map((c) => c.tool)).toEqual(['Read', 'Read', 'Read', 'Skill', 'Bash', 'Read']);
    expect(calls.every((c) => c.status === 'completed')).toBe(true);
    const [evidence] = calls;
    expect(evidence!.summary).toMatch(/\/evidence\/evidence_summary_for_agent\.txt$/);
    expect(evidence!.output).toContain('EVIDENCE SUMMARY FOR AGENT');
    expect(calls.find((c) => c.tool === 'Skill')!.summary).toBe('tidb-clinic-diagnosis');
    expect(calls.find((c) => c.tool === 'Bash')!.summary).toBe(
      'grep -n "merchant_limits" evidence/slow-query.log | head -40',
    );
    expect(visible.at(-1)).toEqual({
      role: 'assistant',
      kind: 'message',
      parts: [{ type: 'text', text: expect.stringMatching(/^Most likely cause: a read hotspot on store 4/) }],
    });
  });

  it('marks a compaction and shows its summary as the compaction summary', async () => {
    fx = await createFixture();
    const sessionId = await importRecording(fx, 'compaction');
    const visible = shown(await messagesOf(fx, sessionId));
    const at = visible.findIndex((t) => t.kind === 'compaction');
    expect(at).toBeGreaterThan(0);
    expect(visible[at]!.auto).toBe(false); // the recording compacted on request (/compact)
    expect(visible.slice(at + 1).find((t) => t.kind === 'summary')?.parts[0]).toMatchObject({ type: 'text' });
  });

  it('names the runtime in the report JSON and the CLI', async () => {
    fx = await createFixture();
    const sessionId = await importRecording(fx, 'fresh');
    const report = await reportOf(fx, { sessionId });
    expect(report.runtime).toEqual({ name: 'claude-code', title: 'Claude Code' });
    expect(renderReport(report, { items: 3 }).split('\n')[0]).toMatch(/ · Claude Code$/);
    addMessages(fx, [{ role: 'user', parts: [text('hello')] }]);
    expect((await reportOf(fx, { sessionId: SESSION })).runtime).toEqual({ name: 'opencode', title: 'OpenCode' });
  });
});

describe('the server’s check of the transcript', () => {
  const message = (id: string): ChatMessage => ({
    id,
    sessionId: 's',
    timeCreated: 1,
    timeUpdated: 1,
    info: { role: 'user' },
    parts: [{ type: 'text', text: 'hi' }],
  });

  it('shows rows of a runtime it cannot read as unreadable, and leaves an unreadable row as it is', () => {
    const unreadable = {
      ...message('m3'),
      info: {},
      parts: [],
      problem: 'This message is stored as invalid JSON and cannot be shown.',
    };
    const [known, unknown, broken] = withTranscripts([message('m1'), message('m2'), unreadable], [null, 'codex', null]);
    expect(known!.transcript).toEqual({ role: 'user', kind: 'message', parts: [{ type: 'text', text: 'hi' }] });
    expect(unknown!.transcript).toBeUndefined();
    expect(unknown!.problem).toBe('This message was written by codex, whose messages the chat cannot show.');
    expect(broken).toEqual(unreadable);
  });
});
