/**
 * /debug contract tests: one GET and nothing else, never appendMessagesToAPI, nothing stored,
 * gone after a "refresh", errors with Retry, the pending state, human labels, keyboard use and
 * Copy JSON. Fixtures are real engine reports (scripts/generate-fixtures.ts).
 */
import { act, screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import * as messagesApi from '../../src/api/messages';
import { contextReportSchema, SOURCE_LABELS, type ContextReport } from '../../src/shared/wire';
import pendingReport from '../fixtures/report-pending.json';
import { fixtures } from './msw/handlers';
import { requests, server } from './msw/server';
import { composer, expectNothingStored, renderApp, waitForHistory } from './render';

vi.mock('../../src/api/messages', async (importOriginal) => {
  const actual = await importOriginal<typeof messagesApi>();
  return { ...actual, appendMessagesToAPI: vi.fn(actual.appendMessagesToAPI) };
});

const report = contextReportSchema.parse(fixtures.report);
const DEBUG_PATH = `/api/workspace/demo/debug/context?session_id=${report.sessionId}`;

async function runDebug(user: ReturnType<typeof renderApp>['user'], line = '/debug') {
  await user.type(composer(), line);
  await user.keyboard('{Enter}');
}

const reportRegion = () => screen.findByRole('region', { name: 'Context breakdown' }, { timeout: 3000 });

describe('the fixtures', () => {
  it('are real reports that validate against the shared schema', () => {
    expect(contextReportSchema.safeParse(fixtures.report).success).toBe(true);
    expect(contextReportSchema.safeParse(pendingReport).success).toBe(true);
    expect(report.sources).toHaveLength(9);
  });
});

describe('/debug', () => {
  it('sends exactly one GET to the report and nothing else, never appendMessagesToAPI, stores nothing', async () => {
    const { user } = renderApp();
    await waitForHistory();
    const before = requests.length;
    await runDebug(user);
    const region = await reportRegion();
    expect(requests.slice(before)).toEqual([{ method: 'GET', path: DEBUG_PATH }]);
    expect(messagesApi.appendMessagesToAPI).not.toHaveBeenCalled();
    await expectNothingStored();
    expect(screen.getByRole('article', { name: 'Your command (only visible to you)' })).toHaveTextContent('/debug');
    const message = region.closest('article')!;
    expect(within(message).getByText('Only visible to you · disappears on refresh')).toBeInTheDocument();
  });

  it('shows the real total, the estimator, the share bar and all nine sources', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    const used = report.actual!.contextUsed.toLocaleString('en-US');
    expect(within(region).getByText(`${used} / 200,000 tokens`)).toBeInTheDocument();
    expect(within(region).getByText(/Estimated with o200k_base BPE/, { selector: 'p' })).toHaveTextContent(
      `scaled ×${report.estimate.scale!.toFixed(2)}`,
    );
    expect(within(region).getByText(/cache read \d+\.\d% of prompt tokens/)).toBeInTheDocument();
    const bar = within(region).getByRole('img', { name: /Share of used context by source/ });
    expect(bar.getAttribute('aria-label')).toContain('Evidence');
    const rows = within(region)
      .getAllByRole('row')
      .filter((r) => r.classList.contains('source-row'));
    expect(rows.map((r) => within(r).getByRole('button').textContent)).toEqual(Object.values(SOURCE_LABELS));
    const evidence = report.sources.find((s) => s.id === 'evidence')!;
    expect(rows[0]).toHaveTextContent(evidence.scaledTokens!.toLocaleString('en-US'));
    expect(rows[0]).toHaveTextContent(`${evidence.percentOfUsed!.toFixed(1)}%`);
  });

  it('expands a source by keyboard to human-labelled items, with internal refs only as tooltips', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    const skills = within(region).getByRole('button', { name: 'Skills & Knowledge' });
    skills.focus();
    await user.keyboard('{Enter}');
    expect(skills).toHaveAttribute('aria-expanded', 'true');
    const items = within(region).getByRole('table', { name: 'Largest items of Skills & Knowledge' });
    const loaded = within(items).getByText('Loaded skill: tidb-clinic-diagnosis');
    expect(loaded.closest('th')!.getAttribute('title')).toMatch(
      /^Loaded skill: tidb-clinic-diagnosis\nmessages_v2\/msg_\w+\/parts\/\d+$/,
    );
    expect(region.textContent).not.toMatch(/messages_v2\//);
    await user.keyboard(' ');
    expect(skills).toHaveAttribute('aria-expanded', 'false');
  });

  it('flags duplicated reads', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    await user.click(within(region).getByRole('button', { name: 'Evidence' }));
    expect(within(region).getAllByText('read 2 of 2').length).toBeGreaterThan(0);
    expect(within(region).getByText(/Read more than once:/)).toBeInTheDocument();
  });

  it('shows a pending message while the report is collected', async () => {
    server.use(
      http.get('/api/workspace/demo/debug/context', async () => {
        await delay(200);
        return HttpResponse.json(report);
      }),
    );
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    expect(await screen.findByText('Collecting context breakdown…')).toBeInTheDocument();
    await reportRegion();
    expect(screen.queryByText('Collecting context breakdown…')).not.toBeInTheDocument();
  });

  it('shows a report without usage as estimates only', async () => {
    server.use(http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(pendingReport)));
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    expect(within(region).getByText('No usage reported yet — estimates only')).toBeInTheDocument();
    expect(within(region).getAllByText('pending').length).toBeGreaterThan(0);
  });

  it.each([
    [
      'a 500',
      () =>
        HttpResponse.json(
          { error: { code: 'internal', message: 'Something went wrong on the server' } },
          { status: 500 },
        ),
      /Something went wrong on the server/,
    ],
    [
      'a 404',
      () =>
        HttpResponse.json({ error: { code: 'workspace_not_found', message: 'Workspace not found' } }, { status: 404 }),
      /Workspace not found/,
    ],
    ['a network failure', () => HttpResponse.error(), /could not be reached/],
    ['a malformed report', () => HttpResponse.json({ schemaVersion: 1, sources: 'nope' }), /cannot read/],
  ])('turns %s into an error message with a Retry that works', async (_name, failure, message) => {
    server.use(http.get('/api/workspace/demo/debug/context', failure, { once: true }));
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Context report failed');
    expect(alert).toHaveTextContent(message);
    const before = requests.length;
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    await reportRegion();
    expect(screen.queryByText('Context report failed')).not.toBeInTheDocument();
    expect(requests.slice(before)).toEqual([{ method: 'GET', path: DEBUG_PATH }]);
    expect(screen.getAllByRole('article', { name: 'Your command (only visible to you)' })).toHaveLength(1);
  });

  it('is gone after a refresh, while the persisted messages stay', async () => {
    const first = renderApp();
    await waitForHistory();
    await runDebug(first.user);
    await reportRegion();
    first.unmount();
    // A refresh: the module-level stores are reset (zustand mock) and the query client is new.
    const { storeResetFns } = (await import('zustand')) as unknown as { storeResetFns: Set<() => void> };
    act(() => storeResetFns.forEach((reset) => reset()));
    renderApp();
    await waitForHistory();
    expect(screen.queryByRole('region', { name: 'Context breakdown' })).not.toBeInTheDocument();
    expect(screen.queryByText('/debug')).not.toBeInTheDocument();
    expect(screen.getByText(/INC-4821 just paged/)).toBeInTheDocument();
    await expectNothingStored();
  });

  it('aborts the request when the user leaves the workspace', async () => {
    let aborted = false;
    server.use(
      http.get('/api/workspace/demo/debug/context', async ({ request }) => {
        request.signal.addEventListener('abort', () => (aborted = true));
        await delay('infinite');
        return HttpResponse.json(report);
      }),
    );
    const { user, unmount } = renderApp();
    await waitForHistory();
    await runDebug(user);
    await screen.findByText('Collecting context breakdown…');
    unmount();
    await waitFor(() => expect(aborted).toBe(true));
  });

  it('copies the report as JSON and as Markdown', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    await user.click(within(region).getByRole('button', { name: 'Copy JSON' }));
    expect(JSON.parse(await navigator.clipboard.readText())).toEqual(report);
    expect(within(region).getByText('JSON copied')).toBeInTheDocument();
    await user.click(within(region).getByRole('button', { name: 'Copy Markdown' }));
    const markdown = await navigator.clipboard.readText();
    expect(markdown).toContain('| Evidence |');
    expect(markdown).toContain('Loaded skill: tidb-clinic-diagnosis');
  });

  it('shows the change since the previous /debug on this page', async () => {
    const grown: ContextReport = structuredClone(report);
    grown.actual!.contextUsed += 500;
    grown.sources[0]!.scaledTokens! += 500;
    grown.generatedAt = '2026-11-29T12:05:00.000Z';
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    await reportRegion();
    server.use(http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(grown)));
    await runDebug(user);
    await waitFor(() => expect(screen.getAllByRole('region', { name: 'Context breakdown' })).toHaveLength(2));
    const latest = screen.getAllByRole('region', { name: 'Context breakdown' })[1]!;
    expect(within(latest).getByRole('columnheader', { name: 'Change' })).toBeInTheDocument();
    const evidenceRow = within(latest)
      .getAllByRole('row')
      .find((r) => r.classList.contains('source-row'))!;
    expect(evidenceRow).toHaveTextContent('+500');
    expect(within(latest).getByText(/since the previous \/debug/)).toHaveTextContent('+500 tokens used in total');
  });

  it('keeps a source of 200 items to a bounded number of rendered rows', async () => {
    const big: ContextReport = structuredClone(report);
    const evidence = big.sources[0]!;
    evidence.items = Array.from({ length: 200 }, (_, i) => ({
      ...evidence.items[0]!,
      id: `it_${i}`,
      label: `Read evidence: file-${i}.log`,
    }));
    evidence.itemCount = 200;
    server.use(http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(big)));
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    await user.click(within(region).getByRole('button', { name: 'Evidence' }));
    const table = within(region).getByRole('table', { name: 'Largest items of Evidence' });
    expect(table).toHaveAttribute('aria-rowcount', '201');
    expect(within(table).getByText('Read evidence: file-0.log')).toBeInTheDocument();
    expect(within(table).getAllByRole('row').length).toBeLessThan(30);
  });

  it('can be dismissed', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    await user.click(within(region).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('region', { name: 'Context breakdown' })).not.toBeInTheDocument();
  });

  it('passes a session id argument through', async () => {
    const { user } = renderApp();
    await waitForHistory();
    const before = requests.length;
    await runDebug(user, '/debug ses_other');
    await reportRegion();
    expect(requests.slice(before)).toEqual([
      { method: 'GET', path: '/api/workspace/demo/debug/context?session_id=ses_other' },
    ]);
  });
});
