/**
 * One wording, four renderers: the report's words are made once (src/shared/report-text.ts) and
 * the CLI table, the Markdown export and the MCP summary each say them as they are — every
 * sentence of the full report in the CLI and the Markdown, the shared ones in the compact MCP
 * text too (the web view: test/web/one-wording.test.tsx). A renderer that words a sentence of its
 * own, or leaves one out, fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildReportModel } from '../../src/chat/report/report-model';
import { reportToMarkdown } from '../../src/chat/report/report-markdown';
import { renderReport } from '../../src/node/cli/render-table';
import { summaryText } from '../../src/node/mcp/summary';
import { fullSentences, reportText, sharedSentences } from '../../src/shared/report-text';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';

const fixture = (name: string): ContextReport =>
  contextReportSchema.parse(JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')));

/** Text as a reader reads it: one space between words, Markdown's escapes and bold undone. */
const words = (text: string) =>
  text
    .replace(/\*\*/g, '')
    .replace(/\\([\\`[\]<>|])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
const missingFrom = (rendering: string, sentences: string[]) =>
  sentences.filter((sentence) => !words(rendering).includes(words(sentence)));

describe.each(['report-demo.json', 'report-pending.json'])('the words of %s', (name) => {
  const report = fixture(name);
  const text = reportText(report);

  it('are many: the verdict, the advice, the notes', () => {
    expect(fullSentences(text).length).toBeGreaterThan(5);
    expect(text.notes.length).toBeGreaterThan(0);
  });

  it('are all in the CLI table (wide and at 100 columns) and the Markdown export', () => {
    expect(missingFrom(renderReport(report, { items: 'all', width: null }), fullSentences(text))).toEqual([]);
    expect(missingFrom(renderReport(report, { items: 3 }), fullSentences(text))).toEqual([]);
    expect(missingFrom(reportToMarkdown(buildReportModel(report)), fullSentences(text))).toEqual([]);
  });

  it('the shared ones are in the MCP summary too', () => {
    expect(missingFrom(summaryText(report), sharedSentences(text))).toEqual([]);
  });
});

describe('a renderer that words a sentence its own way', () => {
  it('is caught', () => {
    const report = fixture('report-demo.json');
    const text = reportText(report);
    const reworded = renderReport(report, { items: 'all', width: null }).replace(
      text.verdict.lead[0]!,
      'Most of it is evidence.',
    );
    expect(missingFrom(reworded, fullSentences(text))).toEqual([text.verdict.lead[0]]);
  });
});
