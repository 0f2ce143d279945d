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
import { composer, openReport } from './render';

const report = contextReportSchema.parse(fixtures.report);
const skillItem = itemContentSchema.parse(fixtures.itemSkill);
const reader = readerPageSchema.parse(fixtures.reader);

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
    const list = within(region).getByRole('region', { name: /^Suggestions/ });
    for (const suggestion of report.suggestions)
      expect(within(list).getByText(suggestion.title, { selector: '.suggestion-title' })).toBeInTheDocument();
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
    // Focus moves to the text it names.
    expect(within(region).getByRole('region', { name: /^Content of / })).toHaveFocus();
  });

  it('puts a ready sentence for a duplicated read in the composer, and sends nothing', async () => {
    const { user, region } = await openReport();
    const before = requests.length;
    const duplicate = report.suggestions.find((s) => s.kind === 'duplicate_read')!;
    const entry = within(within(region).getByRole('region', { name: /^Suggestions/ }))
      .getByText(duplicate.title)
      .closest('li')!;
    await user.click(within(entry).getByRole('button', { name: 'Ask the agent' }));
    const path = duplicate.title.replace(/ is in context \d+ times$/, '');
    // The suggestion's own change, word for word.
    expect(duplicate.change).toMatchObject({ kind: 'ask_agent' });
    expect((composer() as HTMLTextAreaElement).value).toBe(duplicate.change!.text);
    expect(duplicate.change!.text).toContain(`${path} is already in your context`);
    expect(composer()).toHaveFocus();
    expect(screen.getByText(/Draft from the report/)).toBeInTheDocument();
    expect(requests.slice(before)).toEqual([]);
  });
});

describe('Reader', () => {
  it('opens as a dialog, loads only then, shows blocks in request order, and focuses by source', async () => {
    const { user, region } = await openReport();
    expect(contentRequests()).toEqual([]);
    const open = within(region).getByRole('button', { name: 'Open reader' });
    await user.click(open);
    const view = await screen.findByRole('dialog', { name: 'Reader' });
    expect(within(view).getByRole('heading', { name: 'Reader' })).toHaveFocus();
    const list = await within(view).findByRole('list', { name: 'Context blocks in request order' });
    const blocks = within(list).getAllByRole('listitem');
    expect(blocks).toHaveLength(reader.blocks.length);
    reader.blocks.forEach((block, i) => expect(blocks[i]).toHaveTextContent(block.label));
    // The runtime's own prompt comes first (measured, its text unseen), then the instructions.
    expect(blocks[0]).toHaveTextContent('OpenCode system prompt and tool schemas, measured');
    expect(blocks[1]).toHaveTextContent('Instructions: AGENTS.md');
    expect(contentRequests()).toEqual([
      {
        method: 'GET',
        path: `/api/workspace/demo/debug/context/reader?session_id=${report.sessionId}&snapshot=${report.snapshotId}&page=0`,
      },
    ]);
    // Focus on Evidence: its blocks stay whole, the others fold to one line (no preview), with a count.
    const evidence = reader.blocks.filter((b) => b.source === 'evidence');
    const other = reader.blocks.findIndex((b) => b.source === 'conversation' && b.preview.startsWith('## Goal'));
    expect(blocks[other]).toHaveTextContent('## Goal');
    await user.click(within(view).getByRole('button', { name: `Evidence ${evidence.length} blocks` }));
    expect(within(view).getByRole('button', { name: `Evidence ${evidence.length} blocks` })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    expect(within(view).getByRole('status')).toHaveTextContent(`Evidence: 1 of ${evidence.length}`);
    expect(blocks[other]).not.toHaveTextContent('## Goal');
    expect(blocks[other]).toHaveTextContent(reader.blocks[other]!.label);
    await user.click(within(view).getByRole('button', { name: 'Next' }));
    expect(within(view).getByRole('status')).toHaveTextContent(`Evidence: 2 of ${evidence.length}`);
    await user.click(within(view).getByRole('button', { name: /^All/ }));
    expect(blocks[other]).toHaveTextContent('## Goal');
    // Escape closes it and gives focus back to the button that opened it.
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog', { name: 'Reader' })).not.toBeInTheDocument();
    expect(open).toHaveFocus();
  });
});

describe('From a source to the reader', () => {
  it('opens the reader focused on that source', async () => {
    const { user, region } = await openReport();
    await user.click(within(region).getByRole('button', { name: 'Evidence' }));
    await user.click(within(region).getByRole('button', { name: 'Read Evidence in context order' }));
    const view = await screen.findByRole('dialog', { name: 'Reader' });
    const count = reader.blocks.filter((b) => b.source === 'evidence').length;
    expect(await within(view).findByRole('status')).toHaveTextContent(`Evidence: 1 of ${count}`);
    expect(within(view).getByRole('button', { name: `Evidence ${count} blocks` })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
  });
});

describe('Escape', () => {
  it('closes a revealed text and returns focus to its Reveal button', async () => {
    const { user, region } = await openReport();
    await user.click(within(region).getByRole('button', { name: 'Skills & Knowledge' }));
    const reveal = within(region).getByRole('button', {
      name: 'Reveal content: Loaded skill: tidb-clinic-diagnosis',
    });
    await user.click(reveal);
    expect(reveal).toHaveAttribute('aria-expanded', 'true');
    const panel = await within(region).findByRole('region', { name: /Content of/ });
    await within(panel).findByText(/# TiDB Clinic diagnosis/);
    await user.keyboard('{Escape}');
    expect(within(region).queryByRole('region', { name: /Content of/ })).not.toBeInTheDocument();
    expect(reveal).toHaveFocus();
  });
});
