/**
 * Issue 40: the chat renders a stored session from its runtime-neutral transcript alone, the
 * same for OpenCode's sessions and Claude Code's — whatever the runtime's own `info` and `parts`
 * say (they are given here in each runtime's shapes, with words the chat must never show) — and
 * a configuration change is headed by the report's runtime.
 */
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../../src/shared/transcript';
import type { ChatMessage } from '../../src/shared/wire';
import { fixtures } from './msw/handlers';
import { server } from './msw/server';
import { openReport, renderApp } from './render';

const ROOT = fixtures.workspace.root!;
const SESSION = fixtures.workspace.defaultSessionId!;

let stamp = 1_700_000_000_000;
/** A stored message as the server sends it: the runtime's own shapes, and the transcript the chat reads. */
function stored(runtime: string, raw: Pick<ChatMessage, 'info' | 'parts'>, transcript: TranscriptMessage): ChatMessage {
  stamp += 1000;
  return { id: `m_${stamp}`, sessionId: SESSION, timeCreated: stamp, timeUpdated: stamp, runtime, ...raw, transcript };
}

function serve(messages: ChatMessage[]) {
  server.use(http.get('/api/workspace/demo/messages', () => HttpResponse.json({ sessionId: SESSION, messages })));
}

const history = () => screen.findByRole('region', { name: 'Messages' });

describe('the chat transcript, from the neutral shape', () => {
  it('renders a Claude Code session: its tool names, results with their calls, a failure, a compaction', async () => {
    serve([
      stored(
        'claude-code',
        { info: { type: 'user' }, parts: [{ type: 'text', text: 'Why is checkout slow?' }] },
        { role: 'user', kind: 'message', parts: [{ type: 'text', text: 'Why is checkout slow?' }] },
      ),
      stored(
        'claude-code',
        { info: { type: 'assistant' }, parts: [{ type: 'tool_use', name: 'Read', input: { file_path: 'RAW-INPUT' } }] },
        {
          role: 'assistant',
          kind: 'message',
          parts: [
            { type: 'reasoning', text: 'Read the evidence first.' },
            {
              type: 'tool',
              callId: 'toolu_1',
              tool: 'Read',
              summary: `${ROOT}/evidence/slow-query.log`,
              status: 'completed',
              input: `{\n  "file_path": "${ROOT}/evidence/slow-query.log"\n}`,
              output: '1\tslow query',
            },
            {
              type: 'tool',
              callId: 'toolu_2',
              tool: 'Bash',
              summary: 'rm -rf evidence',
              status: 'error',
              refused: 'policy',
              input: 'rm -rf evidence',
              error: 'User refused permission to run tool',
            },
          ],
        },
      ),
      // The entry that delivered the results, and an attachment for the model: not shown.
      stored(
        'claude-code',
        { info: { type: 'user' }, parts: [{ type: 'tool_result', content: 'RAW-RESULT-ENTRY' }] },
        { role: 'user', kind: 'hidden', parts: [] },
      ),
      stored(
        'claude-code',
        { info: { type: 'assistant', isApiErrorMessage: true }, parts: [{ type: 'text', text: 'RAW-ERROR' }] },
        { role: 'assistant', kind: 'message', parts: [], outcome: { kind: 'failed', message: 'Overloaded' } },
      ),
      stored(
        'claude-code',
        { info: { type: 'system', subtype: 'compact_boundary' }, parts: [] },
        { role: 'assistant', kind: 'compaction', auto: true, parts: [] },
      ),
      stored(
        'claude-code',
        { info: { type: 'user', isCompactSummary: true }, parts: [{ type: 'text', text: 'RAW-SUMMARY' }] },
        { role: 'assistant', kind: 'summary', parts: [{ type: 'text', text: 'The summary so far.' }] },
      ),
    ]);
    const { user } = renderApp();
    const messages = await history();
    await within(messages).findByText('Why is checkout slow?');
    const read = within(messages).getByText('evidence/slow-query.log').closest('.tool-row')!;
    expect(read).toHaveTextContent(/^Readevidence\/slow-query\.logdone$/);
    expect(within(messages).getByText('Refused by the server’s policy: rm -rf evidence')).toBeInTheDocument();
    expect(within(messages).getByText('Failed: Overloaded')).toBeInTheDocument();
    expect(within(messages).getByRole('separator')).toHaveTextContent(/Conversation compacted automatically/);
    expect(within(messages).getByRole('article', { name: 'Compaction summary' })).toHaveTextContent(
      'The summary so far.',
    );
    // Nothing of the runtime's own shapes reaches the page; the hidden entry is no message.
    expect(messages).not.toHaveTextContent(/RAW-/);
    expect(within(messages).getAllByRole('article')).toHaveLength(4);
    await user.click(within(messages).getByText('evidence/slow-query.log'));
    const opened = read.closest('details')!;
    expect(opened).toHaveAttribute('open');
    expect(opened.querySelectorAll('pre')[1]).toHaveTextContent('1 slow query');
    // The input's paths are relative to the workspace too.
    expect(opened.querySelector('pre')!.textContent).toBe('{\n  "file_path": "evidence/slow-query.log"\n}');
  });

  it('renders an OpenCode session the same way: context, attachments, a pruned output, a refusal by the rules, a stop', async () => {
    serve([
      stored(
        'opencode',
        { info: { role: 'user' }, parts: [{ type: 'text', text: 'RAW-OPENCODE-TEXT' }] },
        {
          role: 'user',
          kind: 'message',
          parts: [
            { type: 'text', text: 'Look at the alerts' },
            { type: 'context', sections: ['Investigation mode', 'Firing alerts'] },
            { type: 'file', name: 'grafana.png', mime: 'image/png' },
          ],
        },
      ),
      stored(
        'opencode',
        { info: { role: 'assistant' }, parts: [] },
        {
          role: 'assistant',
          kind: 'message',
          parts: [
            {
              type: 'tool',
              callId: 'call_1',
              tool: 'read',
              summary: `${ROOT}/meta/alerts.json`,
              status: 'completed',
              input: null,
              output: '[]',
              pruned: true,
            },
            {
              type: 'tool',
              callId: 'call_2',
              tool: 'edit',
              summary: `${ROOT}/AGENTS.md`,
              status: 'error',
              refused: 'rules',
              input: null,
              error: 'denied',
            },
          ],
          outcome: { kind: 'stopped' },
        },
      ),
    ]);
    const { user } = renderApp();
    const messages = await history();
    await within(messages).findByText('Look at the alerts');
    expect(messages).not.toHaveTextContent('RAW-OPENCODE-TEXT');
    expect(within(messages).getByText(/Workspace context · 2 sections/)).toBeInTheDocument();
    expect(within(messages).getByText('grafana.png')).toBeInTheDocument();
    expect(within(messages).getByText('Refused by the workspace’s rules: AGENTS.md')).toBeInTheDocument();
    expect(within(messages).getByText('Stopped by you')).toBeInTheDocument();
    const read = within(messages).getByText('meta/alerts.json');
    await user.click(read);
    expect(
      within(read.closest('details')!).getByText(/Output \(the agent’s runtime has since cleared it/),
    ).toBeInTheDocument();
  });
});

describe('a configuration change, headed by the report’s runtime', () => {
  // OpenCode's report says “OpenCode configuration”: test/web/advice.test.tsx.
  it('says Claude Code configuration in a Claude Code session’s report, and names the runtime', async () => {
    server.use(
      http.get('/api/workspace/demo/debug/context', () =>
        HttpResponse.json({ ...fixtures.report, runtime: { name: 'claude-code', title: 'Claude Code' } }),
      ),
    );
    const { region } = await openReport();
    const list = within(region).getByRole('region', { name: /^Suggestions/ });
    expect(
      within(list).getAllByRole('group', { name: 'The change: Claude Code configuration' }).length,
    ).toBeGreaterThan(0);
    expect(within(list).queryByRole('group', { name: /OpenCode configuration/ })).toBeNull();
    expect(region.querySelector('.report-runtime')).toHaveTextContent('· Claude Code');
  });
});
