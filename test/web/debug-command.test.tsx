/**
 * /debug contract tests: one GET and nothing else, never appendMessagesToAPI, nothing stored,
 * gone after a "refresh", errors with Retry, the pending state, human labels, keyboard use and
 * Copy JSON. Fixtures are real engine reports (scripts/generate-fixtures.ts).
 */
import { act, screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import * as messagesApi from '../../src/api/messages';
import { fmt } from '../../src/shared/format';
import { fmtCost, roomText } from '../../src/shared/report-figures';
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
const USAGE_PATH = '/api/workspace/demo/usage?';
const DEBUG_PATH = `/api/workspace/demo/debug/context?session_id=${report.sessionId}`;

async function runDebug(user: ReturnType<typeof renderApp>['user'], line = '/debug') {
  await user.type(composer(), line);
  await user.keyboard('{Enter}');
}

/** What a person sees: the text of the rendered elements that are not hidden (closed details, display: none). */
const visibleText = (root: HTMLElement): string =>
  [...root.querySelectorAll<HTMLElement>('*')]
    .filter((el) => el.childNodes.length && !el.closest('details:not([open]) > :not(summary)'))
    .flatMap((el) => [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent))
    .join(' ');

const reportRegion = () => screen.findByRole('region', { name: /^Context breakdown/ });

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
    // The meter's usage poll runs on its own 15 s clock (src/api/usage.ts), whatever /debug does: on a
    // loaded machine it can fall inside this test. Every other request counts.
    const caused = requests.slice(before).filter((r) => !(r.method === 'GET' && r.path.startsWith(USAGE_PATH)));
    expect(caused).toEqual([{ method: 'GET', path: DEBUG_PATH }]);
    expect(messagesApi.appendMessagesToAPI).not.toHaveBeenCalled();
    await expectNothingStored();
    expect(screen.getByRole('article', { name: 'Your command (only visible to you)' })).toHaveTextContent('/debug');
    const message = region.closest('article')!;
    expect(within(message).getByText('Only visible to you · disappears on refresh')).toBeInTheDocument();
  });

  it('shows the real total, the whole window, the limits of the estimate and all nine sources by size', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    const used = fmt(report.actual!.contextUsed);
    expect(within(region).getByText(`${used} / 200,000 tokens`)).toBeInTheDocument();
    const bar = within(region).getByRole('img', {
      name: new RegExp(`^Context window: ${used} of 200,000 tokens used`),
    });
    expect(bar.getAttribute('aria-label')).toContain('Evidence');
    expect(bar.getAttribute('aria-label')).toContain(
      `free ${fmt(168_000 - report.actual!.contextUsed)} before auto-compaction at 168,000`,
    );
    // The verdict first: the biggest source and item, what to do; under the sources the room left, cache and cost.
    const verdict = within(region).getByRole('region', { name: /^In short/ });
    const facts = within(region).getByRole('region', { name: /^Room, cache and cost/ });
    const v = report.verdict!;
    expect(verdict).toHaveTextContent(
      `${v.biggestSource!.label} holds ${v.biggestSource!.percentOfUsed!.toFixed(1)}% of the context (${fmt(v.biggestSource!.tokens)} tokens)`,
    );
    expect(verdict).toHaveTextContent(`Largest item: ${v.biggestItem!.label} — ${fmt(v.biggestItem!.tokens)} tokens`);
    expect(verdict).toHaveTextContent(`What to do: ${v.action!.title}`);
    expect(facts).toHaveTextContent(`Room ${roomText(v.headroom!)}`);
    expect(facts).toHaveTextContent(`Cache ${v.cacheReadPercent!.toFixed(1)}% of the last prompt read from cache`);
    // The session's cost, its calls being priced (never the agent's own figure beside it).
    expect(report.cost?.total).not.toBeNull();
    expect(facts).toHaveTextContent(
      `Cost ${fmtCost(report.cost!.total!, report.cost!.currency)} over ${report.cost!.calls} model calls`,
    );
    // The methods are fine print: not in the main view.
    // The calls the provider counted (30 of the demo's 31: one was stopped before it counted anything).
    expect(report.calibration!.calls).toBe(30);
    expect(within(region).getByText(/^Measured: the total and 30 model calls/)).not.toBeVisible();
    for (const jargon of [/scale ×/, /calibrated/, /o200k/, /Basis:/, /usage_update/])
      expect(visibleText(region)).not.toMatch(jargon);
    // One order everywhere: by size. Percentages as the report carries them.
    const table = within(region).getByRole('table', { name: /^Context by semantic source, largest first/ });
    const rows = within(table.querySelector('tbody')!).getAllByRole('rowheader');
    const bySize = [...report.sources].sort((a, b) => b.scaledTokens! - a.scaledTokens!);
    // The sources with something in them, by size; the empty ones (here Unknown tool payload) are named below.
    expect(rows.map((r) => r.textContent)).toEqual(bySize.filter((s) => s.scaledTokens! > 0).map((s) => s.label));
    expect(bySize.map((s) => s.label).sort()).toEqual(Object.values(SOURCE_LABELS).sort());
    expect(region).toHaveTextContent('Nothing in context from Unknown tool payload.');
    const evidence = report.sources.find((s) => s.id === 'evidence')!;
    const evidenceRow = rows[0]!.closest('tr')!;
    expect(evidenceRow).toHaveTextContent(fmt(evidence.scaledTokens!));
    expect(evidenceRow).toHaveTextContent(`${evidence.percentOfUsed!.toFixed(1)}%`);
    // The Total is the sum of its column.
    const total = within(table).getByRole('rowheader', { name: 'Total' }).closest('tr')!;
    expect(total).toHaveTextContent(`Total${used}100.0%`);
    // Estimates are details, not a second figure in the table.
    expect(table).not.toHaveTextContent('≈');
    // The legend follows the bar: one entry per row of the table, with the table's share —
    // OpenCode's own prompt and tools are a part of Agent/runtime instructions, not an entry apart.
    const legend = within(region).getByRole('list', { name: 'Legend, in the bar’s order' });
    expect(within(legend).getAllByRole('button')[0]).toHaveTextContent(/^Evidence/);
    expect(legend).not.toHaveTextContent('OpenCode’s own prompt');
    expect(legend).not.toHaveTextContent('the rest');
    const runtimeRow = report.sources.find((s) => s.id === 'agent_instructions')!;
    expect(within(legend).getByRole('button', { name: /^Agent\/runtime instructions/ })).toHaveTextContent(
      `Agent/runtime instructions ${runtimeRow.percentOfUsed!.toFixed(1)}%`,
    );
    const shares = [...legend.querySelectorAll('.legend-share')].map((el) => el.textContent ?? '');
    expect(shares.every((share) => /^\d+(\.\d)?%$/.test(share))).toBe(true);
    const sum = shares.reduce((n, share) => n + Number.parseFloat(share), 0);
    expect(Math.abs(sum - 100)).toBeLessThanOrEqual(0.05 * shares.length);
  });

  for (const source of ['acp', 'provider'] as const) {
    it(`says where the total came from (${source})`, async () => {
      const shown = { ...report, actual: { ...report.actual!, source } };
      server.use(http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(shown)));
      const { user } = renderApp();
      await waitForHistory();
      await runDebug(user);
      const region = await reportRegion();
      const words =
        source === 'acp' ? /· as the agent reported it/ : /· the last model call's prompt, as the provider counted it/;
      const line = within(region).getByText(words);
      expect(line).toHaveAttribute(
        'title',
        source === 'acp'
          ? expect.stringMatching(/^The total is the last one the agent reported itself/)
          : expect.stringMatching(/the agent reported no total of its own for this session/),
      );
    });
  }

  it('collapses the sources with nothing in context into one line, and still adds up', async () => {
    const sparse: ContextReport = structuredClone(report);
    const emptied = sparse.sources.filter((s) => s.id === 'attachment_metadata' || s.id === 'unknown_tool_payload');
    const moved = emptied.reduce((n, s) => n + s.scaledTokens!, 0);
    for (const s of emptied)
      Object.assign(s, { scaledTokens: 0, estimatedTokens: 0, percentOfUsed: 0, items: [], itemCount: 0 });
    sparse.sources[0]!.scaledTokens! += moved;
    server.use(http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(sparse)));
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    const table = within(region).getByRole('table', { name: /^Context by semantic source, largest first/ });
    expect(within(table.querySelector('tbody')!).getAllByRole('rowheader')).toHaveLength(7);
    expect(table).toHaveTextContent('Nothing in context from Attachment metadata, Unknown tool payload.');
    expect(table).not.toHaveTextContent(/\b0 ?0(\.0)?%/);
    const total = within(table).getByRole('rowheader', { name: 'Total' }).closest('tr')!;
    expect(total).toHaveTextContent(`Total${fmt(sparse.actual!.contextUsed)}100.0%`);
  });

  it('takes focus on its heading when it is ready', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    await waitFor(() => expect(within(region).getByRole('heading', { name: /^Context breakdown/ })).toHaveFocus());
  });

  it('draws the timeline: keyboard reachable, what each call added, the biggest jumps, a table', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    const timeline = report.timeline!;
    const slider = await within(region).findByRole('slider', { name: 'Model call' });
    expect(slider).toHaveAttribute('tabindex', '0');
    expect(slider).toHaveAttribute('aria-valuenow', String(timeline.length));
    slider.focus();
    await user.keyboard('{Home}');
    expect(slider).toHaveAttribute('aria-valuenow', '1');
    expect(slider.getAttribute('aria-valuetext')).toContain(`Call 1: ${fmt(timeline[0]!.promptTokens)} tokens`);
    await user.keyboard('{ArrowRight}');
    const second = timeline[1]!;
    expect(slider.getAttribute('aria-valuetext')).toContain(`Call ${second.call}`);
    const readout = within(region).getByText(`+ ${second.added[0]!.label}`);
    expect(readout).toBeInTheDocument();
    // The three biggest jumps, named by what caused them.
    const jumps = within(region).getByRole('heading', { name: 'Biggest jumps' }).parentElement!;
    const deltas = timeline.slice(1).map((p, i) => p.promptTokens - timeline[i]!.promptTokens);
    const biggest = Math.max(...deltas);
    const at = timeline[deltas.indexOf(biggest) + 1]!;
    expect(within(jumps).getAllByRole('listitem')).toHaveLength(3);
    expect(within(jumps).getAllByRole('listitem')[0]).toHaveTextContent(
      `Call ${at.call}: +${fmt(biggest)} tokens — ${at.added[0]!.label}`,
    );
    await user.click(within(jumps).getAllByRole('button')[0]!);
    expect(slider).toHaveAttribute('aria-valuenow', String(deltas.indexOf(biggest) + 2));
    // The text alternative.
    await user.click(within(region).getByText(/Timeline as a table/));
    const table = within(region).getByRole('table', { name: 'Prompt tokens of every model call' });
    expect(within(table).getAllByRole('row')).toHaveLength(timeline.length + 1);
  });

  it('flags duplicated reads', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    await user.click(within(region).getByRole('button', { name: 'Evidence' }));
    expect(within(region).getAllByText('read again: 2 of 2').length).toBeGreaterThan(0);
    expect(within(region).getAllByText('read 1 of 2').length).toBeGreaterThan(0);
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
    expect(within(region).getByText(/no usage reported yet — estimates only/)).toBeInTheDocument();
    expect(within(region).getByText(/^Nothing measured yet/)).not.toBeVisible();
    const table = within(region).getByRole('table', { name: /^Context by semantic source, largest first/ });
    const total = pendingReport.sources.reduce((n, s) => n + s.estimatedTokens, 0);
    expect(
      within(region).getByText(`≈${fmt(total)} tokens · no usage reported yet — estimates only`),
    ).toBeInTheDocument();
    expect(within(table).getAllByText(/^≈/).length).toBeGreaterThan(0);
    expect(within(region).queryByRole('slider')).not.toBeInTheDocument();
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
    // The meter's usage poll runs on its own 15 s clock (src/api/usage.ts), whatever /debug does: on a
    // loaded machine it can fall inside this test. Every other request counts.
    const caused = requests.slice(before).filter((r) => !(r.method === 'GET' && r.path.startsWith(USAGE_PATH)));
    expect(caused).toEqual([{ method: 'GET', path: DEBUG_PATH }]);
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
    expect(screen.queryByRole('region', { name: /^Context breakdown/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('article', { name: 'Your command (only visible to you)' })).not.toBeInTheDocument();
    expect(
      within(screen.getByRole('region', { name: 'Messages' })).getByText(/INC-4821 just paged/),
    ).toBeInTheDocument();
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
    expect(await within(region).findByText('JSON copied')).toBeInTheDocument();
    await user.click(within(region).getByRole('button', { name: 'Copy Markdown' }));
    const markdown = await navigator.clipboard.readText();
    expect(markdown).toContain('| Evidence |');
    expect(markdown).toContain('Loaded skill: tidb-clinic-diagnosis');
  });

  it('shows the change since the previous /debug in measured tokens and items, and folds the older report', async () => {
    const grown: ContextReport = structuredClone(report);
    grown.actual!.contextUsed += 500;
    const evidence = grown.sources.find((s) => s.id === 'evidence')!;
    evidence.scaledTokens! += 500;
    evidence.items.push({
      ...evidence.items[0]!,
      id: 'it_new_read',
      label: 'Read evidence: new.log',
      scaledTokens: 500,
    });
    evidence.itemCount += 1;
    grown.generatedAt = '2026-11-29T12:05:00.000Z';
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    await reportRegion();
    server.use(http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(grown)));
    await runDebug(user);
    await waitFor(() => expect(screen.getByText(/a newer report of this session is below/)).toBeInTheDocument());
    const latest = screen.getByRole('region', { name: /^Context breakdown/ });
    expect(within(latest).getByRole('columnheader', { name: 'Change' })).toBeInTheDocument();
    const rows = within(latest).getAllByRole('rowheader');
    const evidenceRow = rows.find((r) => r.textContent === 'Evidence')!.closest('tr')!;
    expect(evidenceRow).toHaveTextContent('+500');
    // Sources where nothing changed show no drift.
    const skills = rows.find((r) => r.textContent === 'Skills & Knowledge')!.closest('tr')!;
    // (Source, Tokens, Used %, Change, then Cost.)
    expect(skills.children[3]).toHaveTextContent('—');
    expect(
      within(latest)
        .getByText(/Since the previous \/debug/)
        .closest('p'),
    ).toHaveTextContent('+500 tokens in total · 1 item added, 0 items removed.');
    await user.click(within(latest).getByRole('button', { name: 'Evidence' }));
    expect(within(latest).getByText(/new: Read evidence: new.log/)).toBeInTheDocument();
    // The older report is folded to one line and can be shown again.
    await user.click(screen.getByRole('button', { name: 'Show this report' }));
    expect(screen.getAllByRole('region', { name: /^Context breakdown/ })).toHaveLength(2);
  });

  it('compares items only, never tokens, when a report was scaled in proportion', async () => {
    const scaled: ContextReport = structuredClone(report);
    scaled.calibration!.mode = 'scaled';
    for (const s of scaled.sources) s.scaledTokens = Math.round(s.scaledTokens! * 0.99);
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    await reportRegion();
    server.use(http.get('/api/workspace/demo/debug/context', () => HttpResponse.json(scaled)));
    await runDebug(user);
    await waitFor(() => expect(screen.getByText(/a newer report of this session is below/)).toBeInTheDocument());
    const latest = screen.getByRole('region', { name: /^Context breakdown/ });
    expect(
      within(latest)
        .getByText(/Since the previous \/debug/)
        .closest('p'),
    ).toHaveTextContent(
      'figures were scaled in proportion, so only items are compared · 0 items added, 0 items removed.',
    );
    const table = within(latest).getByRole('table', { name: /^Context by semantic source, largest first/ });
    expect(table).not.toHaveTextContent('−');
  });

  it('is marked outdated when the agent reports a newer model call', async () => {
    const { user, queryClient } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    server.use(
      http.get('/api/workspace/demo/usage', () =>
        HttpResponse.json({
          ...fixtures.usage,
          latest: { ...fixtures.usage.latest, contextUsed: 35_000, recordedAt: '2026-11-28T03:10:00.000Z' },
        }),
      ),
    );
    await act(() => queryClient.refetchQueries({ queryKey: ['usage'] }));
    expect(await within(region).findByText(/^Outdated: /)).toBeInTheDocument();
  });

  it('is marked outdated as soon as a new message arrives, and Refresh makes a new report', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const region = await reportRegion();
    expect(within(region).queryByText(/^Outdated/)).not.toBeInTheDocument();
    await user.type(composer(), 'Check the PD leader schedule too{Enter}');
    expect(await within(region).findByText(/^Outdated: 1 new message since it was made/)).toBeInTheDocument();
    const before = requests.length;
    await user.click(within(region).getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(screen.getByText(/a newer report of this session is below/)).toBeInTheDocument());
    // The meter's usage poll runs on its own 15 s clock (src/api/usage.ts), whatever /debug does: on a
    // loaded machine it can fall inside this test. Every other request counts.
    const caused = requests.slice(before).filter((r) => !(r.method === 'GET' && r.path.startsWith(USAGE_PATH)));
    expect(caused).toEqual([{ method: 'GET', path: DEBUG_PATH }]);
    expect(screen.getByRole('region', { name: /^Context breakdown/ })).not.toHaveTextContent(/Outdated/);
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
    await user.click(within(table).getByRole('button', { name: 'Show 100 more of 200 items' }));
    await user.click(within(table).getByRole('button', { name: 'Show 75 more of 200 items' }));
    expect(within(table).getByText('Read evidence: file-199.log')).toBeInTheDocument();
  });

  it('can be dismissed', async () => {
    const { user } = renderApp();
    await waitForHistory();
    await runDebug(user);
    const article = screen.getByRole('article', { name: 'Context report (only visible to you)' });
    await reportRegion();
    await user.click(within(article).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('region', { name: /^Context breakdown/ })).not.toBeInTheDocument();
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
