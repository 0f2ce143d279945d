/**
 * The report as Markdown, for pasting into an incident channel or a ticket: the verdict first,
 * then the figures the view and the CLI show (src/shared/report-figures.ts) — the same rows, the
 * same rounded percentages, a Total that is the sum of its column — and the caveats last.
 */
import { totalSourceShort } from '../../shared/total-source';
import { fmt, fmtPct } from '../../shared/format';
import {
  costCells,
  costColumnNote,
  folderLines,
  fmtCost,
  partLabel,
  runtimeFigures,
} from '../../shared/report-figures';
import { largestItemRows, reportText, subagentText, type ChangeText, type ReportText } from '../../shared/report-text';
import type { ContextReport, ReportItem } from '../../shared/wire';
import type { ReportModel } from './report-model';

/**
 * Text a session wrote (a label, a title, a path, a tool's words), as Markdown that shows it and
 * opens nothing: the characters that make links and images (`[`, `]`), code spans, HTML and
 * autolinks (`<`, `>`) and table cells (`|`) backslash-escaped (CommonMark), and a line break a
 * space, so nothing leaves its line. Emphasis characters are left: they cannot reach outside the
 * text, and `_` is in most file names.
 */
const md = (text: string) => text.replace(/[\\`[\]<>|]/g, '\\$&').replace(/\s*\r?\n\s*/g, ' ');
const cell = md;
/** A code span that holds `text` whatever backticks it has (CommonMark: a longer fence). */
const code = (text: string) => {
  const fence = '`'.repeat(Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length)) + 1);
  return `${fence} ${text.replace(/\s*\r?\n\s*/g, ' ')} ${fence}`;
};

/** A change as Markdown: what to do with it, then its text — a JSON block, or the sentence quoted. */
function changeMarkdown(change: ChangeText, indent: string): string[] {
  const lead = `${indent}${change.lead}:`;
  if (change.kind === 'opencode_config') {
    // A fence longer than any run of backticks in the text: the block cannot be closed from inside.
    const fence = '`'.repeat(Math.max(2, ...(change.text.match(/`+/g) ?? []).map((r) => r.length)) + 1);
    return [lead, '', `${indent}${fence}json`, `${indent}${change.text}`, `${indent}${fence}`];
  }
  return [lead, '', ...change.text.split('\n').map((line) => `${indent}> ${md(line)}`)];
}

/** "2026-11-29 12:00:00 UTC": unambiguous wherever it is pasted. */
export const utcStamp = (iso: string): string => {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
};

export function reportToMarkdown(model: ReportModel, sessionTitle?: string | null): string {
  const { report } = model;
  const text = reportText(report);
  const out = [
    ...headMarkdown(model, sessionTitle),
    ...verdictMarkdown(text),
    ...tableMarkdown(model, text),
    ...paragraphs(text.remainders.map(md)),
    ...(text.pending && !model.estimatesOnly ? ['', `${md(text.pending.line)}.`] : []),
    ...foldersMarkdown(report),
    ...largestMarkdown(report),
    ...runtimeMarkdown(report, text),
    ...paragraphs(report.sources.flatMap((s) => s.items).flatMap(subagentMarkdown)),
    ...(text.jumps.length ? ['', '**Biggest jumps**', '', ...text.jumps.map((j) => `- ${md(j)}`)] : []),
    ...(text.duplicates ? ['', md(text.duplicates)] : []),
    ...suggestionsMarkdown(text),
    ...(text.excluded.length
      ? ['', '**Not in context**', '', ...text.excluded.map((e) => `- **${md(e.label)}**${md(e.rest)}`)]
      : []),
    '',
    `_${md(model.boundaries)}_`,
    '',
    ...text.notes.map((n) => `> ${md(n)}`),
    ...(text.warnings.length ? ['', '**Warnings:**', ...text.warnings.map((w) => `- ${md(w)}`)] : []),
  ];
  return `${out.join('\n')}\n`;
}

/** Each a paragraph of its own. */
const paragraphs = (lines: string[]): string[] => lines.flatMap((line) => ['', line]);

function headMarkdown(model: ReportModel, sessionTitle: string | null | undefined): string[] {
  const { report, window } = model;
  const session = sessionTitle
    ? `“${md(sessionTitle)}” (${code(report.sessionId ?? '—')})`
    : code(report.sessionId ?? '—');
  return [
    `### Context report — ${md(report.workspaceId)}`,
    '',
    `Generated ${utcStamp(report.generatedAt)} · session ${session}`,
    '',
    ...(report.asOf
      ? [
          `_As of model call ${report.asOf.call} of ${report.asOf.of} (${utcStamp(report.asOf.at)}): the context then._`,
          '',
        ]
      : []),
    report.actual
      ? `**Context used:** ${fmt(model.total)}${window ? ` of ${fmt(window.contextSize)} tokens (${fmtPct(report.actual.percent)})` : ' tokens'} · ${totalSourceShort(report)}`
      : `**Context used:** no usage reported yet — ≈${fmt(model.total)} estimated tokens`,
  ];
}

function verdictMarkdown(text: ReportText): string[] {
  const { lead, action, facts } = text.verdict;
  if (!lead.length && !action && !facts.length) return [];
  const out = ['', ...lead.map((line) => `- ${md(line)}`)];
  if (action) {
    out.push(
      `- **What to do:** ${md(action.title)}.${action.frees ? ` ${md(action.frees)}.` : ''}${action.detail ? ` ${md(action.detail)}` : ''}`,
    );
    if (action.change) out.push(...changeMarkdown(action.change, '  '));
  }
  return [...out, ...facts.map((line) => `- ${md(line)}`)];
}

/**
 * The web's table: tokens and Used % now, and — where the calls were priced — what each row cost
 * over the session (its meaning said beneath, as on the web); the empty sources under it.
 */
function tableMarkdown(model: ReportModel, text: ReportText): string[] {
  const { report } = model;
  const cost = costCells(report);
  const money = (amount: number | undefined) => (cost && amount !== undefined ? fmtCost(amount, cost.currency) : '');
  const out = ['', `| Source | Tokens | Used % |${cost ? ' Cost |' : ''}`, `|---|---:|---:|${cost ? '---:|' : ''}`];
  for (const row of text.sourceRows)
    out.push(
      `| ${cell(row.label)} | ${row.tokens} | ${row.percent} |${cost ? ` ${money(cost.byKey.get(row.key))} |` : ''}`,
    );
  const total = text.total;
  out.push(
    `| **Total** | **${total.tokens}** | **${text.figures.total.tokens > 0 ? '100.0%' : '—'}** |${cost ? ` **${money(cost.total)}** |` : ''}`,
  );
  const costNote = costColumnNote(report);
  if (costNote) out.push('', `_${costNote}_`);
  // The cost's headline (the CLI's and the MCP's), what the cache saved, what cost money with nothing in context now.
  if (text.cost) {
    const { headline, saved, outside } = text.cost;
    out.push('', `${md(headline)}.${saved ? ` ${md(saved)}.` : ''}${outside ? ` ${md(outside)}` : ''}`);
  }
  if (text.empty) out.push('', md(text.empty));
  return out;
}

function foldersMarkdown(report: ContextReport): string[] {
  const folders = report.sources.filter((s) => s.folders?.length);
  if (!folders.length) return [];
  return [
    '',
    '**By folder**',
    '',
    ...folders.flatMap((source) => folderLines(source).map((line) => `- ${cell(source.label)}: ${cell(line)}`)),
  ];
}

function largestMarkdown(report: ContextReport): string[] {
  const top = largestItemRows(report, 10);
  if (!top.length) return [];
  return [
    '',
    '**Largest items**',
    '',
    '| Item | Source | Tokens | Used % |',
    '|---|---|---:|---:|',
    ...top.map(
      (row) =>
        `| ${cell(row.label)}${row.repeat ? ` _(${row.repeat})_` : ''} | ${cell(row.sourceLabel)} | ${row.tokens} | ${row.percent} |`,
    ),
  ];
}

/** OpenCode's own prompt and tools in parts, and how it changed between calls. */
function runtimeMarkdown(report: ContextReport, text: ReportText): string[] {
  const runtime = runtimeFigures(report);
  if (!runtime) return [];
  const parts = runtime.parts
    ? [
        '',
        `**${cell(runtime.item.label)}** — part of ${cell(runtime.sourceLabel)}, in parts${runtime.recordedFor ? ` (${md(runtime.recordedFor)})` : ''}`,
        '',
        '| Part | Tokens | Used % |',
        '|---|---:|---:|',
        ...runtime.parts.map(
          (part) => `| ${cell(partLabel(part))} | ${fmt(part.tokens)} | ${fmtPct(part.percentOfUsed)} |`,
        ),
      ]
    : [];
  return [...parts, ...paragraphs(text.runtimeChanges.map((change) => `_${cell(runtime.item.label)}:_ ${md(change)}`))];
}

/** A task call's subagent whose session is stored here, and its session's id to look it up. */
function subagentMarkdown(item: ReportItem): string[] {
  const sub = item.subagent;
  const sentence = subagentText(item);
  if (!sub?.stored || typeof sub.total !== 'number' || !sentence) return [];
  return [`${md(sentence)} (${code(sub.sessionId)}).`];
}

function suggestionsMarkdown(text: ReportText): string[] {
  if (!text.suggestions.length) return [];
  return [
    '',
    '**Suggestions** (by what they free, largest first)',
    '',
    ...text.suggestions.flatMap((s, index) => [
      `${index + 1}. ${md(s.title)}. ${md(s.frees)}. ${md(s.detail)}`,
      ...(s.change ? changeMarkdown(s.change, '   ') : []),
    ]),
  ];
}
