/**
 * One wording, four renderers: the web's report view says the sentences of the report's words
 * (src/shared/report-text.ts) as the CLI, the Markdown export and the MCP summary say them
 * (test/node/one-wording.test.ts holds those three to the same text model).
 */
import { describe, expect, it } from 'vitest';
import { fullSentences, reportText, type ReportText } from '../../src/shared/report-text';
import { verdictLines } from '../../src/shared/report-figures';
import { contextReportSchema } from '../../src/shared/wire';
import { fixtures } from './msw/handlers';
import { openReport } from './render';

/** Text as a reader reads it: one space between words, a sentence's closing period left to the layout. */
const words = (text: string) => text.replace(/\s+/g, ' ').trim().replace(/\.$/, '');

/**
 * What the web shows in a form of its own, not as a sentence: the biggest jumps are drawn in the
 * timeline, what was added since the last call is a line of the table, and the cost is the
 * table's Cost column with its caption and the verdict's Cost fact.
 */
function drawnNotSaid(text: ReportText, cost: string | null): string[] {
  return [
    ...text.jumps,
    ...(text.pending ? [text.pending.line] : []),
    ...(text.cost ? [text.cost.headline, text.cost.saved, text.cost.outside] : []),
    cost,
  ].filter((sentence): sentence is string => !!sentence);
}

describe('the web report view', () => {
  it('says every sentence of the report’s words as the CLI, Markdown and MCP say them', async () => {
    const { region } = await openReport();
    const report = contextReportSchema.parse(fixtures.report);
    const text = reportText(report);
    const shown = words(region.textContent ?? '');
    const drawn = new Set(drawnNotSaid(text, verdictLines(report)?.cost ?? null));
    const said = fullSentences(text).filter((sentence) => !drawn.has(sentence));
    expect(said.length).toBeGreaterThan(20);
    expect(said.filter((sentence) => !shown.includes(words(sentence)))).toEqual([]);
  });
});
