/** The report as Markdown, for pasting into an incident channel or a ticket: the figures the view shows. */
import { fmt, fmtBytes } from '../../shared/format';
import { type ReportModel, shareText } from './report-model';
import { biggestJumps } from './timeline-model';

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** "2026-11-29 12:00:00 UTC": unambiguous wherever it is pasted. */
export const utcStamp = (iso: string): string => {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
};

export function reportToMarkdown(model: ReportModel): string {
  const { report, window, headroom } = model;
  const out: string[] = [];
  const approx = model.estimatesOnly ? '≈' : '';
  out.push(`### Context report — ${report.workspaceId}`, '');
  out.push(`Generated ${utcStamp(report.generatedAt)} · session \`${report.sessionId ?? '—'}\``, '');
  out.push(
    report.actual
      ? `**Context used:** ${fmt(model.total)}${window ? ` of ${fmt(window.contextSize)} tokens (${shareText(model.total, window.contextSize)})` : ' tokens'}`
      : `**Context used:** no usage reported yet — ≈${fmt(model.total)} estimated tokens`,
  );
  if (headroom && window?.autoCompactAt != null) {
    out.push(
      `**Headroom:** ${fmt(Math.max(0, headroom.left))} tokens before auto-compaction at ${window.assumed ? '≈' : ''}${fmt(window.autoCompactAt)}` +
        (headroom.callsLeft !== null && headroom.growth
          ? ` (≈${fmt(headroom.callsLeft)} calls at +${fmt(headroom.growth.perCall)} tokens per call)`
          : ''),
    );
  }
  out.push(`_${model.boundaries}_`, '');
  out.push('| Source | Tokens | Share |', '|---|---:|---:|');
  for (const row of model.rows) out.push(`| ${cell(row.label)} | ${approx}${fmt(row.tokens)} | ${row.shareText} |`);
  const pending = report.pending;
  if (pending && pending.itemCount > 0 && !model.estimatesOnly) {
    out.push(
      '',
      `Added since the last model call (not in the total): ≈${fmt(pending.estimatedTokens)} tokens in ${pending.itemCount} item${pending.itemCount === 1 ? '' : 's'}.`,
    );
  }
  const tokensOf = (t: { scaledTokens: number | null; estimatedTokens: number }) =>
    model.estimatesOnly ? t.estimatedTokens : (t.scaledTokens ?? 0);
  const top = report.sources
    .flatMap((s) => s.items.map((item) => ({ item, source: s.label })))
    .sort((a, b) => tokensOf(b.item) - tokensOf(a.item))
    .slice(0, 10);
  if (top.length) {
    out.push('', '**Largest items**', '', '| Item | Source | Tokens | Share |', '|---|---|---:|---:|');
    for (const { item, source } of top)
      out.push(
        `| ${cell(item.label)} | ${cell(source)} | ${approx}${fmt(tokensOf(item))} | ${shareText(tokensOf(item), model.total)} |`,
      );
  }
  const jumps = biggestJumps(report.timeline ?? []);
  if (jumps.length) {
    out.push('', '**Biggest jumps**', '');
    for (const j of jumps)
      out.push(
        `- Call ${j.point.call}: +${fmt(j.delta)} tokens${j.point.added[0] ? ` — ${j.point.added[0].label} (${fmt(j.point.added[0].tokens)})` : ''}`,
      );
  }
  if (report.duplicates.extraReads > 0) {
    out.push(
      '',
      `**Duplicated reads:** ${report.duplicates.files} file${report.duplicates.files === 1 ? '' : 's'}, ${report.duplicates.extraReads} extra read${report.duplicates.extraReads === 1 ? '' : 's'} repeating ${fmt(report.duplicates.repeatedScaledTokens ?? report.duplicates.repeatedEstimatedTokens)} tokens.`,
    );
  }
  if (report.suggestions.length) {
    out.push('', '**Suggestions**', '', ...report.suggestions.map((s) => `- ${s.title}: ${s.detail}`));
  }
  if (report.excluded.length) {
    out.push('', '**Not in context:** ' + report.excluded.map((e) => `${e.label} (${fmtBytes(e.bytes)})`).join('; '));
  }
  out.push('', ...report.notes.map((n) => `> ${n}`));
  if (report.warnings.length) out.push('', '**Warnings:**', ...report.warnings.map((w) => `- ${w}`));
  return `${out.join('\n')}\n`;
}
