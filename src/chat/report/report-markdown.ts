/** The report as Markdown, for pasting into an incident channel or a ticket. */
import type { ContextReport } from '../../shared/wire';
import { fmt, fmtBytes, fmtPct } from '../../shared/format';

export function reportToMarkdown(report: ContextReport): string {
  const out: string[] = [];
  const { actual, estimate } = report;
  out.push(`### Context report — ${report.workspaceId}`, '');
  out.push(
    actual
      ? `**Context used:** ${fmt(actual.contextUsed)} / ${fmt(actual.contextSize)} tokens${actual.percent === null ? '' : ` (${actual.percent.toFixed(1)}%)`}`
      : '**Context used:** no usage reported yet — estimates only',
  );
  out.push(
    `**Estimator:** ${estimate.method}${estimate.scale === null ? '' : ` · scale ×${estimate.scale.toFixed(2)}`} · session \`${report.sessionId ?? '—'}\``,
    '',
  );
  out.push('| Source | Scaled tokens | Used % | Estimated | Bytes | Items |', '|---|---:|---:|---:|---:|---:|');
  for (const s of report.sources) {
    out.push(
      `| ${s.label} | ${fmt(s.scaledTokens)} | ${fmtPct(s.percentOfUsed)} | ${fmt(s.estimatedTokens)} | ${fmtBytes(s.bytes)} | ${s.itemCount} |`,
    );
  }
  const top = report.sources
    .flatMap((s) => s.items.map((item) => ({ ...item, source: s.label })))
    .sort((a, b) => b.estimatedTokens - a.estimatedTokens)
    .slice(0, 10);
  if (top.length) {
    out.push('', '**Largest items**', '', '| Item | Source | Scaled | Used % |', '|---|---|---:|---:|');
    for (const item of top)
      out.push(
        `| ${item.label.replaceAll('|', '\\|')} | ${item.source} | ${fmt(item.scaledTokens)} | ${fmtPct(item.percentOfUsed)} |`,
      );
  }
  if (report.duplicates.extraReads > 0) {
    out.push(
      '',
      `**Duplicated reads:** ${report.duplicates.extraReads} extra reads repeat ${fmt(report.duplicates.repeatedEstimatedTokens)} estimated tokens.`,
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
