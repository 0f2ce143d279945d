/**
 * Two-step disclosure: the report carries metadata only; an item's text is fetched only after
 * "Reveal", a page at a time, pinned to the report's snapshot. The reader shows the context in
 * request order with focus by source. Suggestions lead to the text in one more click.
 */
import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { contextReportSchema, itemContentSchema, readerPageSchema } from '../../src/shared/wire';
import { fixtures } from './msw/handlers';
import { requests, server } from './msw/server';
import { composer, renderApp, waitForHistory } from './render';

const report = contextReportSchema.parse(fixtures.report);
const skillItem = itemContentSchema.parse(fixtures.itemSkill);
const reader = readerPageSchema.parse(fixtures.reader);

async function openReport() {
  const app = renderApp();
  await waitForHistory();
  await app.user.type(composer(), '/debug{Enter}');
  const region = await screen.findByRole('region', { name: 'Context breakdown' });
  return { ...app, region };
}

const contentRequests = () => requests.filter((r) => /\/debug\/context\/(items|reader)/.test(r.path));

describe('Reveal content', () => {
  it('fetches nothing before Reveal, then one pinned page of the item', async () => {
    const { user, region } = await openReport();
    await user.click(within(region).getByRole('button', { name: 'Skills & Knowledge' }));
    expect(contentRequests()).toEqual([]);
    expect(region.textContent).not.toContain('TiDB Clinic diagnosis');
    await user.click(
      within(region).getByRole('button', { name: 'Reveal content: Loaded skill: tidb-clinic-diagnosis' }),
    );
    const panel = await within(region).findByRole('region', { name: 'Content of Loaded skill: tidb-clinic-diagnosis' });
    expect(await within(panel).findByText(/# TiDB Clinic diagnosis/)).toBeInTheDocument();
    expect(contentRequests()).toEqual([
      {
        method: 'GET',
        path: `/api/workspace/demo/debug/context/items/${skillItem.itemId}?session_id=${report.sessionId}&snapshot=${report.snapshotId}&page=0`,
      },
    ]);
    expect(within(panel).getByText(/Page 1 of 1/)).toBeInTheDocument();
    await user.click(within(panel).getByRole('button', { name: /Close the content/ }));
    expect(within(region).queryByRole('region', { name: /Content of/ })).not.toBeInTheDocument();
  });

  it('pages through long content, 8,000 characters at a time', async () => {
    server.use(
      http.get('/api/workspace/demo/debug/context/items/:itemId', ({ request }) => {
        const page = Number(new URL(request.url).searchParams.get('page'));
        return HttpResponse.json({
          ...skillItem,
          page,
          pageCount: 3,
          totalChars: 20_000,
          text: `text of page ${page}`,
        });
      }),
    );
    const { user, region } = await openReport();
    await user.click(within(region).getByRole('button', { name: 'Skills & Knowledge' }));
    await user.click(
      within(region).getByRole('button', { name: 'Reveal content: Loaded skill: tidb-clinic-diagnosis' }),
    );
    const panel = await within(region).findByRole('region', { name: /Content of/ });
    expect(await within(panel).findByText('text of page 0')).toBeInTheDocument();
    expect(within(panel).getByRole('button', { name: 'Previous page' })).toBeDisabled();
    await user.click(within(panel).getByRole('button', { name: 'Next page' }));
    expect(await within(panel).findByText('text of page 1')).toBeInTheDocument();
    await user.click(within(panel).getByRole('button', { name: 'Next page' }));
    expect(await within(panel).findByText('text of page 2')).toBeInTheDocument();
    expect(within(panel).getByRole('button', { name: 'Next page' })).toBeDisabled();
    expect(contentRequests().map((r) => new URL(r.path, 'http://x').searchParams.get('page'))).toEqual(['0', '1', '2']);
  });

  it('says so when the context changed since the report (410)', async () => {
    server.use(
      http.get('/api/workspace/demo/debug/context/items/:itemId', () =>
        HttpResponse.json({ error: { code: 'context_changed', message: 'changed' } }, { status: 410 }),
      ),
    );
    const { user, region } = await openReport();
    await user.click(within(region).getByRole('button', { name: 'Skills & Knowledge' }));
    await user.click(
      within(region).getByRole('button', { name: 'Reveal content: Loaded skill: tidb-clinic-diagnosis' }),
    );
    expect(
      await within(region).findByText(/The context has changed since this report was made. Run \/debug again/),
    ).toBeInTheDocument();
  });
});

describe('Suggestions', () => {
  it('are listed from the report, and lead to the text of the item they name', async () => {
    const { user, region } = await openReport();
    const list = within(region).getByRole('region', { name: 'Suggestions' });
    for (const suggestion of report.suggestions) expect(within(list).getByText(suggestion.title)).toBeInTheDocument();
    const duplicate = report.suggestions.find((s) => s.kind === 'duplicate_read')!;
    const item = duplicate.itemIds.at(-1)!;
    server.use(
      http.get(`/api/workspace/demo/debug/context/items/${item}`, () =>
        HttpResponse.json({ ...skillItem, itemId: item, label: 'dup', text: 'the repeated text' }),
      ),
    );
    const entry = within(list).getByText(duplicate.title).closest('li')!;
    await user.click(within(entry).getByRole('button', { name: 'Show the text' }));
    expect(await within(region).findByText('the repeated text')).toBeInTheDocument();
    expect(within(region).getByRole('button', { name: 'Evidence' })).toHaveAttribute('aria-expanded', 'true');
  });
});

describe('Reader', () => {
  it('loads only when opened, shows blocks in request order, and focuses by source', async () => {
    const { user, region } = await openReport();
    expect(contentRequests()).toEqual([]);
    await user.click(within(region).getByRole('button', { name: 'Open reader' }));
    const view = await within(region).findByRole('region', { name: 'Context in request order' });
    const blocks = await within(view).findAllByRole('listitem');
    expect(
      blocks.map((b) => within(b).getByText((_, el) => el?.classList.contains('reader-label') ?? false).textContent),
    ).toEqual(reader.blocks.map((b) => b.label));
    // The runtime's own prompt comes first (measured, its text unseen), then the instructions.
    expect(blocks[0]).toHaveTextContent('OpenCode system prompt and tool schemas, measured');
    expect(blocks[1]).toHaveTextContent('Instructions: AGENTS.md');
    expect(contentRequests()).toEqual([
      {
        method: 'GET',
        path: `/api/workspace/demo/debug/context/reader?session_id=${report.sessionId}&snapshot=${report.snapshotId}&page=0`,
      },
    ]);
    await user.click(within(view).getByRole('button', { name: 'Evidence' }));
    const evidence = blocks.filter((b) => b.dataset.source === 'evidence');
    const others = blocks.filter((b) => b.dataset.source !== 'evidence');
    expect(evidence.length).toBeGreaterThan(0);
    expect(evidence.every((b) => !b.classList.contains('unfocused'))).toBe(true);
    expect(others.every((b) => b.classList.contains('unfocused'))).toBe(true);
    await user.click(within(view).getByRole('button', { name: 'All' }));
    expect(blocks.every((b) => !b.classList.contains('unfocused'))).toBe(true);
  });
});
