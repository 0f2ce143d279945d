/**
 * What to do, in the web report (issue 28), on the seeded demo's real report: the verdict leads
 * with the suggestion that frees the most — what it frees, and its change to copy —, the room
 * left with the calls it is at the recent growth, what the cache saved; the suggestions in the
 * report's order with the same figures and changes; Copy puts the change on the clipboard and
 * says so, and where the clipboard is refused the text is selected instead. Nothing is sent.
 */
import { waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { callsLeftText, suggestionFrees } from '../../src/shared/advice-text';
import { fmtCost } from '../../src/shared/format';
import { contextReportSchema } from '../../src/shared/wire';
import { fixtures } from './msw/handlers';
import { requests } from './msw/server';
import { openReport } from './render';

const report = contextReportSchema.parse(fixtures.report);

describe('what to do, in the web report', () => {
  it('leads the verdict with the suggestion that frees the most, its figures and its change', async () => {
    const { region, user } = await openReport();
    const verdict = within(region).getByRole('region', { name: /^In short/ });
    const first = report.suggestions[0]!;
    expect(first.kind).toBe('new_session');
    expect(verdict).toHaveTextContent(`What to do: ${first.title}. ${suggestionFrees(report, first.frees, first)}.`);
    expect(suggestionFrees(report, first.frees, first)).toMatch(
      /^Frees [\d,]+ tokens \(\d+\.\d%\) from the next call on — \$0\.00\d+ a call; costs \$0\.\d+ once \([\d,]+ tokens read uncached\), paid back after \d+ calls?$/,
    );
    const change = within(verdict).getByRole('group', { name: 'The change: New session' });
    // The hand-off is folded in the verdict (room above the fold), shown whole on request.
    expect(change.querySelector('pre code')).toBeNull();
    await user.click(within(change).getByRole('button', { name: /^Show the text \(\d+ lines\)$/ }));
    expect(change.querySelector('pre code')!.textContent).toBe(first.change!.text);
    expect(within(change).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    // The room left, and how many calls that is at the recent growth; what the cache saved.
    const h = report.verdict!.headroom!;
    expect(verdict).toHaveTextContent(
      `Room ${h.left.toLocaleString('en-US')} tokens left before OpenCode compacts — ${callsLeftText(h)}`,
    );
    expect(callsLeftText(h)).toMatch(
      /^about [\d,]+ more model calls, between [\d,]+ and [\d,]+, at \+[\d,]+ tokens a call \(the median growth over calls 7–30, \d+ steps\)$/,
    );
    expect(verdict).toHaveTextContent(`it saved ${fmtCost(report.cost!.cacheSavings!.amount, 'USD')} over the session`);
  });

  it('lists the suggestions in the report’s order, by what they free, each with its change', async () => {
    const { region } = await openReport();
    const list = within(region).getByRole('region', { name: /^Suggestions/ });
    const entries = within(list).getAllByRole('listitem');
    expect(entries.map((li) => li.querySelector('.suggestion-title')!.textContent)).toEqual(
      report.suggestions.map((s) => s.title),
    );
    report.suggestions.forEach((s, i) => {
      expect(entries[i]).toHaveTextContent(suggestionFrees(report, s.frees, s));
      expect(within(entries[i]!).getByRole('group', { name: /^The change: / })).toHaveTextContent(
        s.change!.text.split('\n')[0]!,
      );
    });
    const tools = entries[report.suggestions.findIndex((s) => s.kind === 'unused_tools')]!;
    const config = within(tools).getByRole('group', { name: 'The change: OpenCode configuration' });
    expect(config).toHaveTextContent('Add to opencode.json (merged with what is there):');
    expect(config.querySelector('pre code')!.textContent).toBe(
      '{"agent":{"build":{"permission":{"task":"deny","todowrite":"deny","webfetch":"deny"}}}}',
    );
  });

  it('copies a change to the clipboard and says so, sending nothing', async () => {
    const { user, region } = await openReport();
    const before = requests.length;
    const tools = report.suggestions.find((s) => s.kind === 'unused_tools')!;
    const list = within(region).getByRole('region', { name: /^Suggestions/ });
    const entry = within(list).getByText(tools.title).closest('li')!;
    const copy = within(entry).getByRole('button', { name: 'Copy' });
    await user.click(copy);
    expect(await navigator.clipboard.readText()).toBe(tools.change!.text);
    await waitFor(() => expect(copy).toHaveTextContent('Copied'));
    expect(within(entry).getByRole('status')).toHaveTextContent('Copied to the clipboard.');
    expect(requests.slice(before)).toEqual([]);
  });

  it('selects the text where the clipboard is refused, and says how to copy it', async () => {
    const { user, region } = await openReport();
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new DOMException('denied', 'NotAllowedError'));
    const verdict = within(region).getByRole('region', { name: /^In short/ });
    const change = within(verdict).getByRole('group', { name: /^The change: / });
    await user.click(within(change).getByRole('button', { name: 'Copy' }));
    await waitFor(() =>
      expect(within(change).getByRole('status')).toHaveTextContent(/the text is selected, copy it with Ctrl\+C/),
    );
    expect(window.getSelection()!.toString()).toBe(report.suggestions[0]!.change!.text);
    expect(within(change).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
  });
});
