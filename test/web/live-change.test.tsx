/**
 * A change the live agent can make (contract §7 `change.request`), in the web report on the
 * demo's real report: a button the user presses, its price said beside it, nothing sent before;
 * pressed, the route named by the report is called with its body, and the result says what the
 * context holds now against before; a refusal is said in one line. A change with no request (a
 * past call, an import) has no button.
 */
import { waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { suggestionFrees } from '../../src/shared/advice-text';
import { fmt } from '../../src/shared/format';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { contextNow } from '../../src/chat/report/live-change';
import { fixtures } from './msw/handlers';
import { requests, server } from './msw/server';
import { openReport } from './render';

const report = contextReportSchema.parse(fixtures.report);
const compact = report.suggestions.find((s) => s.change?.kind === 'compact')!;

const sse = (...events: unknown[]) =>
  new HttpResponse(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''), {
    headers: { 'Content-Type': 'text/event-stream' },
  });

/** The report after the compaction: what the next call holds, less what it freed. */
function compactedReport(): ContextReport {
  const after = structuredClone(report);
  after.actual!.contextUsed -= compact.frees.tokens;
  return after;
}

const entryOf = async (title: string) => {
  const { region, user } = await openReport();
  const list = within(region).getByRole('region', { name: /^Suggestions/ });
  const entry = within(list)
    .getAllByRole('listitem')
    .find((li) => li.querySelector('.suggestion-title')!.textContent === title)!;
  return { entry, user, region };
};

describe('a change made on the live agent', () => {
  it('is a button with the price said, and nothing is sent until it is pressed', async () => {
    expect(compact.change!.request).toMatchObject({ method: 'POST', path: '/api/workspace/demo/agent/compact' });
    const before = requests.length;
    const { entry, region } = await entryOf(compact.title);
    const live = within(entry).getByRole('group', { name: 'Make the change on the agent' });
    expect(within(live).getByRole('button', { name: 'Compact the session now' })).toBeEnabled();
    expect(live).toHaveTextContent(suggestionFrees(report, compact.frees, compact));
    // The verdict's first suggestion (the hand-off) is offered the same way.
    const verdict = within(region).getByRole('region', { name: /^In short/ });
    expect(within(verdict).getByRole('button', { name: 'Start the new session with this hand-off' })).toBeEnabled();
    expect(requests.slice(before).filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('pressed, calls the route with the report’s body, then says what the context holds now against before', async () => {
    let body: unknown;
    server.use(
      http.post('/api/workspace/demo/agent/compact', async ({ request }) => {
        body = await request.json();
        return sse(
          { type: 'turn', turnId: 't1', sessionId: report.sessionId, newSession: false },
          { type: 'saved', messages: 2 },
          { type: 'done', stopReason: 'end_turn' },
        );
      }),
    );
    const { entry, user } = await entryOf(compact.title);
    // The fresh report is asked for once the change is made.
    server.use(http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(compactedReport())));
    await user.click(within(entry).getByRole('button', { name: 'Compact the session now' }));
    const live = within(entry).getByRole('group', { name: 'Make the change on the agent' });
    await waitFor(() =>
      expect(within(live).getByRole('status')).toHaveTextContent(
        `Done. The context now holds ${fmt(contextNow(report)! - compact.frees.tokens)} tokens (before the change: ${fmt(contextNow(report)!)} tokens).`,
      ),
    );
    expect(body).toEqual(compact.change!.request!.body);
    expect(within(live).getByRole('button', { name: 'Compact the session now' })).toBeDisabled();
  });

  it('says in one line why the change was not made', async () => {
    server.use(
      http.post('/api/workspace/demo/agent/compact', () =>
        HttpResponse.json(
          { error: { code: 'agent_not_configured', message: 'No agent is configured on this server.' } },
          { status: 409 },
        ),
      ),
    );
    const { entry, user } = await entryOf(compact.title);
    await user.click(within(entry).getByRole('button', { name: 'Compact the session now' }));
    const live = within(entry).getByRole('group', { name: 'Make the change on the agent' });
    await waitFor(() =>
      expect(within(live).getByRole('status')).toHaveTextContent('Not done: No agent is configured on this server.'),
    );
    expect(within(live).getByRole('button', { name: 'Compact the session now' })).toBeEnabled();
  });

  it('is not offered where the report carries no request (a past call, an import)', async () => {
    const past = structuredClone(report);
    for (const s of past.suggestions) if (s.change) delete s.change.request;
    server.use(http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(past)));
    const { region } = await entryOf(compact.title);
    expect(within(region).queryByRole('group', { name: 'Make the change on the agent' })).toBeNull();
    expect(within(region).getAllByRole('group', { name: 'The change: Compact the session' }).length).toBeGreaterThan(0);
  });

  it('a revert: pressed, calls its route, and says what the next call carries, as no call has counted it yet', async () => {
    // The demo has no revert (its large read is in a compaction's kept tail): one made from the compaction's figures.
    const withRevert = structuredClone(report);
    const messageId = 'msg_read';
    const revert = {
      ...structuredClone(compact),
      kind: 'revert_read' as const,
      title: 'Revert to before Read evidence: slow-query.log',
      change: {
        kind: 'revert' as const,
        messageId,
        text: `Revert the session to before message ${messageId}.`,
        request: {
          method: 'POST' as const,
          path: '/api/workspace/demo/agent/revert',
          body: { sessionId: report.sessionId, messageId },
        },
      },
    };
    withRevert.suggestions.push(revert);
    server.use(http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(withRevert)));
    let body: unknown;
    server.use(
      http.post('/api/workspace/demo/agent/revert', async ({ request }) => {
        body = await request.json();
        return sse(
          { type: 'turn', turnId: 't2', sessionId: report.sessionId, newSession: false },
          { type: 'saved', messages: 0 },
          { type: 'done', stopReason: 'reverted' },
        );
      }),
    );
    const { entry, user } = await entryOf(revert.title);
    await user.click(within(entry).getByRole('button', { name: 'Revert to before this message' }));
    const live = within(entry).getByRole('group', { name: 'Make the change on the agent' });
    await waitFor(() =>
      expect(within(live).getByRole('status')).toHaveTextContent(
        `Done: reverted. Its next call carries about ${fmt(contextNow(report)! - revert.frees.tokens)} tokens (before the change: ${fmt(contextNow(report)!)} tokens)`,
      ),
    );
    expect(body).toEqual({ sessionId: report.sessionId, messageId });
  });
});
