/** The Markdown export shows what a session wrote and opens nothing of it (issue 36.4). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportToMarkdown } from '../../src/chat/report/report-markdown';
import { buildReportModel } from '../../src/chat/report/report-model';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';

const report = contextReportSchema.parse(
  JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'report-demo.json'), 'utf8')),
);
const HOSTILE = '![x](https://evil.example/p.png) [click](https://evil.example/) `code` <img src=x> a|b\nnext';

describe('the Markdown export', () => {
  it('escapes links, images, code spans, HTML and pipes in labels and titles', () => {
    const hostile: ContextReport = structuredClone(report);
    const source = hostile.sources.find((s) => s.items.length > 0)!;
    source.items[0]!.label = HOSTILE;
    hostile.warnings = [HOSTILE];
    hostile.sessionId = 'ses_`x`';
    const markdown = reportToMarkdown(buildReportModel(hostile), HOSTILE);
    // No unescaped construct a Markdown renderer would act on.
    expect(markdown).not.toMatch(/(?<!\\)!?(?<!\\)\[[^\]\n]*(?<!\\)\]\(/);
    expect(markdown).not.toMatch(/(?<!\\)<img/);
    expect(markdown).not.toContain(' `code` ');
    expect(markdown).toContain(
      '!\\[x\\](https://evil.example/p.png) \\[click\\](https://evil.example/) \\`code\\` \\<img src=x\\> a\\|b next',
    );
    // A table row stays one row with its cells.
    const row = markdown.split('\n').find((l) => l.includes('\\[click\\]') && l.startsWith('| '))!;
    expect(row.split(/(?<!\\)\|/)).toHaveLength(6);
    // The session id is one code span, whatever backticks it holds.
    expect(markdown).toContain('(`` ses_`x` ``)');
  });
});
