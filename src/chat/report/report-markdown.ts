/**
 * The report as Markdown, for pasting into an incident channel or a ticket: the verdict first,
 * then the figures the view and the CLI show (src/shared/report-figures.ts) — the same rows, the
 * same rounded percentages, a Total that is the sum of its column — and the caveats last.
 */
import { totalSourceShort } from '../../shared/total-source';
import { fmt, fmtBytes, fmtPct } from '../../shared/format';
import {
  biggestJumps,
  costCells,
  costColumnNote,
  costOutsideText,
  folderLines,
  fmtCost,
  itemPercent,
  itemTokens,
  jumpText,
  largestItems,
  numbersInText,
  partLabel,
  repeatMark,
  runtimeChangeText,
  runtimeFigures,
  verdictLines,
} from '../../shared/report-figures';
import { changeLead, suggestionFrees } from '../../shared/advice-text';
import type { Change } from '../../shared/wire';
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
function changeMarkdown(change: Change, indent: string): string[] {
  const lead = `${indent}${changeLead(change)}:`;
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
  const { report, window, figures } = model;
  const out: string[] = [];
  const approx = model.estimatesOnly ? '≈' : '';
  out.push(`### Context report — ${md(report.workspaceId)}`, '');
  const session = sessionTitle
    ? `“${md(sessionTitle)}” (${code(report.sessionId ?? '—')})`
    : code(report.sessionId ?? '—');
  out.push(`Generated ${utcStamp(report.generatedAt)} · session ${session}`, '');
  if (report.asOf)
    out.push(
      `_As of model call ${report.asOf.call} of ${report.asOf.of} (${utcStamp(report.asOf.at)}): the context then._`,
      '',
    );
  out.push(
    report.actual
      ? `**Context used:** ${fmt(model.total)}${window ? ` of ${fmt(window.contextSize)} tokens (${fmtPct(report.actual.percent)})` : ' tokens'} · ${totalSourceShort(report)}`
      : `**Context used:** no usage reported yet — ≈${fmt(model.total)} estimated tokens`,
  );
  const verdict = verdictLines(report);
  if (verdict) {
    out.push('');
    for (const line of [verdict.biggest, verdict.item]) if (line) out.push(`- ${md(line)}`);
    if (verdict.action) {
      const a = verdict.action;
      out.push(
        `- **What to do:** ${md(a.title)}.${a.frees ? ` ${md(a.frees)}.` : ''}${a.detail ? ` ${md(a.detail)}` : ''}`,
      );
      if (a.change) out.push(...changeMarkdown(a.change, '  '));
    }
    for (const line of [verdict.headroom, verdict.cache, verdict.cost]) if (line) out.push(`- ${md(line)}`);
  }
  // The web's table: tokens and Used % now, and — where the calls were priced — what each row cost
  // over the session (its meaning said beneath, as on the web).
  const cost = costCells(report);
  const money = (amount: number | undefined) => (cost && amount !== undefined ? fmtCost(amount, cost.currency) : '');
  out.push('', `| Source | Tokens | Used % |${cost ? ' Cost |' : ''}`, `|---|---:|---:|${cost ? '---:|' : ''}`);
  for (const row of model.rows)
    out.push(
      `| ${cell(row.label)} | ${approx}${fmt(row.tokens)} | ${row.shareText} |${cost ? ` ${money(cost.byKey.get(row.key))} |` : ''}`,
    );
  out.push(
    `| **Total** | **${approx}${fmt(figures.total.tokens)}** | **${figures.total.tokens > 0 ? '100.0%' : '—'}** |${cost ? ` **${money(cost.total)}** |` : ''}`,
  );
  const costNote = costColumnNote(report);
  if (costNote) out.push('', `_${costNote}_`);
  const outside = costOutsideText(report);
  if (outside) out.push('', outside);
  if (model.empty.length) out.push('', `Nothing in context from ${model.empty.map((r) => md(r.label)).join(', ')}.`);
  for (const row of model.rows) if (row.reason) out.push('', `_${md(row.label)}:_ ${md(numbersInText(row.reason))}`);
  const pending = report.pending;
  if (pending && pending.itemCount > 0 && !model.estimatesOnly) {
    out.push(
      '',
      `Added since the last model call (not in the total): ≈${fmt(pending.estimatedTokens)} tokens in ${pending.itemCount} item${pending.itemCount === 1 ? '' : 's'}.`,
    );
  }
  const folders = report.sources.filter((s) => s.folders?.length);
  if (folders.length) {
    out.push('', '**By folder**', '');
    for (const source of folders)
      for (const line of folderLines(source)) out.push(`- ${cell(source.label)}: ${cell(line)}`);
  }
  const top = largestItems(report, 10);
  if (top.length) {
    out.push('', '**Largest items**', '', '| Item | Source | Tokens | Used % |', '|---|---|---:|---:|');
    for (const { item, source } of top) {
      const mark = repeatMark(item);
      out.push(
        `| ${cell(item.label)}${mark ? ` _(${mark})_` : ''} | ${cell(source.label)} | ${approx}${fmt(itemTokens(item, model.estimatesOnly))} | ${fmtPct(itemPercent(item, figures))} |`,
      );
    }
  }
  const runtime = runtimeFigures(report);
  if (runtime?.parts) {
    out.push(
      '',
      `**${cell(runtime.item.label)}** — part of ${cell(runtime.sourceLabel)}, in parts${runtime.recordedFor ? ` (${md(runtime.recordedFor)})` : ''}`,
      '',
      '| Part | Tokens | Used % |',
      '|---|---:|---:|',
    );
    for (const part of runtime.parts)
      out.push(`| ${cell(partLabel(part))} | ${fmt(part.tokens)} | ${fmtPct(part.percentOfUsed)} |`);
  }
  if (runtime)
    for (const change of runtime.changes)
      out.push('', `_${cell(runtime.item.label)}:_ ${md(runtimeChangeText(change))}.`);
  for (const item of report.sources.flatMap((s) => s.items)) {
    const sub = item.subagent;
    if (sub?.stored && typeof sub.total === 'number')
      out.push(
        '',
        `_${cell(item.label)}:_ its session (${code(sub.sessionId)}) reached ${fmt(sub.total)} tokens in ${fmt(sub.calls ?? 0)} calls${sub.largest?.length ? `; largest: ${sub.largest.map((l) => `${md(l.label)} ${fmt(l.tokens)}`).join(', ')}` : ''}.`,
      );
  }
  const jumps = biggestJumps(report.timeline ?? []);
  if (jumps.length) out.push('', '**Biggest jumps**', '', ...jumps.map((j) => `- ${md(jumpText(j))}`));
  const d = report.duplicates;
  if (d.extraReads > 0) {
    const repeated =
      model.estimatesOnly || d.repeatedScaledTokens === null
        ? `≈${fmt(d.repeatedEstimatedTokens)}`
        : fmt(d.repeatedScaledTokens);
    out.push(
      '',
      `**Duplicated reads:** ${d.files} file${d.files === 1 ? '' : 's'}, ${d.extraReads} extra read${d.extraReads === 1 ? '' : 's'} repeating ${repeated} tokens.`,
    );
  }
  if (report.suggestions.length) {
    out.push('', '**Suggestions** (by what they free, largest first)', '');
    report.suggestions.forEach((s, index) => {
      out.push(
        `${index + 1}. ${md(s.title)}. ${md(suggestionFrees(report, s.frees, s))}. ${md(numbersInText(s.detail))}`,
      );
      if (s.change) out.push(...changeMarkdown(s.change, '   '));
    });
  }
  if (report.excluded.length) {
    out.push(
      '',
      '**Not in context:** ' + report.excluded.map((e) => `${md(e.label)} (${fmtBytes(e.bytes)})`).join('; '),
    );
  }
  out.push('', `_${md(model.boundaries)}_`);
  out.push('', ...report.notes.map((n) => `> ${md(numbersInText(n))}`));
  if (report.warnings.length) out.push('', '**Warnings:**', ...report.warnings.map((w) => `- ${md(w)}`));
  return `${out.join('\n')}\n`;
}
