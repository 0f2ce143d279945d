/** The CLI's human-readable report: totals, one row per source, top items, then the fine print. */
import Table from 'cli-table3';
import { fmt, fmtBytes, fmtDelta, fmtPct } from '../../shared/format';
import type { ContextReport, ItemContent } from '../../shared/wire';

const plain = { head: [], border: [] };
// No rule between body rows: a report is scanned down a column, not cell by cell.
const chars = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

export function renderReport(
  report: ContextReport,
  options: { items: number | 'all'; database?: string | null },
): string {
  const lines: string[] = [];
  lines.push(`Context report · workspace ${report.workspaceId} · session ${report.sessionId ?? '(none)'}`);
  if (options.database) lines.push(`Database: ${options.database}`);
  const { actual, estimate } = report;
  lines.push(
    actual
      ? `Actual:   ${fmt(actual.contextUsed)} / ${fmt(actual.contextSize)} tokens${actual.percent === null ? '' : ` (${actual.percent.toFixed(1)}% of the window)`} · ACP usage_update ${actual.recordedAt}`
      : 'Actual:   pending — no ACP usage reported for this session yet; estimates only',
  );
  lines.push(
    `Estimate: ${fmt(estimate.totalTokens)} tokens by ${estimate.method} · ${fmtBytes(estimate.totalBytes)} · ${fmt(estimate.itemCount)} items` +
      (estimate.scale === null ? '' : ` · scale ×${estimate.scale.toFixed(2)}`),
  );
  const calibration = report.calibration;
  if (calibration?.mode === 'measured') {
    lines.push(
      `Measured: ${fmt(calibration.reference?.promptTokens ?? null)} tokens at model call ${calibration.reference?.call ?? '—'} of ${calibration.calls}` +
        ` · OpenCode's own system prompt and tool schemas ${fmt(calibration.runtimeOverhead)} tokens` +
        (calibration.unattributed.tokens === 0 ? '' : ` · unattributed ${fmt(calibration.unattributed.tokens)}`),
    );
  }
  const cache = report.providerTokens;
  if (cache?.cacheReadSharePercent !== null && cache?.cacheReadSharePercent !== undefined) {
    lines.push(
      `Cache:    ${cache.cacheReadSharePercent.toFixed(1)}% of the last prompt read from cache (prompt ${fmt(cache.promptTokens ?? null)}: input ${fmt(cache.input)}, cache read ${fmt(cache.cacheRead)}` +
        (cache.cacheWrite === null ? ')' : `, cache write ${fmt(cache.cacheWrite)})`),
    );
  }
  lines.push('');

  const sources = new Table({
    head: ['Source', 'Tokens', 'Used %', 'Basis', 'Estimated', 'Bytes', 'Items'],
    style: plain,
    chars,
    colAligns: ['left', 'right', 'right', 'left', 'right', 'right', 'right'],
  });
  for (const s of report.sources) {
    sources.push([
      s.label,
      fmt(s.scaledTokens),
      fmtPct(s.percentOfUsed),
      s.basis ?? '',
      fmt(s.estimatedTokens),
      fmtBytes(s.bytes),
      fmt(s.itemCount),
    ]);
  }
  // What no source holds, a row for each reason (hidden reasoning the provider kept, unexplained…).
  for (const row of actual ? (report.remainder ?? []) : []) {
    sources.push([
      row.label,
      fmt(row.tokens),
      fmtPct(row.percentOfUsed),
      row.kind === 'hidden_reasoning' ? 'measured' : '',
      '',
      '',
      '',
    ]);
  }
  sources.push([
    'Total',
    fmt(actual?.contextUsed ?? null),
    actual ? '100.0%' : '—',
    '',
    fmt(estimate.totalTokens),
    fmtBytes(estimate.totalBytes),
    fmt(estimate.itemCount),
  ]);
  lines.push(sources.toString(), '');

  for (const s of report.sources) {
    if (s.itemCount === 0) continue;
    const shown = options.items === 'all' ? s.items : s.items.slice(0, options.items);
    const table = new Table({
      head: ['Item', 'Tokens', 'Used %', 'Estimated', 'Bytes'],
      style: plain,
      chars,
      colAligns: ['left', 'right', 'right', 'right', 'right'],
      colWidths: [64, null, null, null, null],
      wordWrap: true,
    });
    for (const item of shown) {
      const dup =
        item.duplicate && item.duplicate.ordinal > 1
          ? ` [read again: ${item.duplicate.ordinal} of ${item.duplicate.reads}]`
          : '';
      table.push([
        item.label + dup,
        fmt(item.scaledTokens),
        fmtPct(item.percentOfUsed),
        fmt(item.estimatedTokens),
        fmtBytes(item.bytes),
      ]);
    }
    const hidden = s.itemCount - shown.length;
    lines.push(`${s.label} — top ${shown.length} of ${s.itemCount}`, table.toString());
    if (hidden > 0) lines.push(`  … ${hidden} more item${hidden === 1 ? '' : 's'} (--items all to list them)`);
    lines.push('');
  }

  const pending = report.pending;
  if (pending && pending.itemCount > 0) {
    lines.push(
      `${pending.label} — not in the total yet: ${fmt(pending.itemCount)} item${pending.itemCount === 1 ? '' : 's'}, ≈${fmt(pending.estimatedTokens)} estimated tokens`,
    );
    for (const item of pending.items.slice(0, options.items === 'all' ? undefined : options.items))
      lines.push(`  + ${item.label} (≈${fmt(item.estimatedTokens)})`);
    lines.push('');
  }

  const d = report.duplicates;
  if (d.extraReads > 0) {
    lines.push(
      `Duplicated reads: ${d.files} file${d.files === 1 ? '' : 's'} read more than once; ${d.extraReads} extra read${d.extraReads === 1 ? '' : 's'} repeat ${fmt(d.repeatedEstimatedTokens)} estimated tokens` +
        (d.repeatedScaledTokens === null ? '' : ` (${fmt(d.repeatedScaledTokens)} scaled)`),
      '',
    );
  }
  if (report.suggestions.length) {
    lines.push('Suggestions:');
    for (const s of report.suggestions)
      lines.push(`  ${s.severity === 'warning' ? '!' : '-'} ${s.title}`, `    ${s.detail}`);
    lines.push('');
  }
  if (report.excluded.length) {
    lines.push('Not in context:');
    for (const e of report.excluded)
      lines.push(
        `  - ${e.label}: ${fmtBytes(e.bytes)}${e.count === undefined ? '' : `, ${fmt(e.count)}`} — ${e.reason}`,
      );
    lines.push('');
  }
  lines.push('Notes:', ...report.notes.map((note) => `  - ${note}`));
  if (report.warnings.length)
    lines.push('', `Warnings (${report.warnings.length}):`, ...report.warnings.map((w) => `  ! ${w}`));
  return `${lines.join('\n')}\n`;
}

/** How the context grew: one row per measured model call, its prompt and its sources. */
export function renderTimeline(report: ContextReport): string {
  const points = report.timeline ?? [];
  const lines = [`How the context grew · workspace ${report.workspaceId} · session ${report.sessionId ?? '(none)'}`];
  if (points.length === 0) {
    lines.push('', 'No model call of this session recorded its prompt size: there is no timeline to draw.');
    return `${lines.join('\n')}\n`;
  }
  const ids = report.sources.map((s) => s.id).filter((id) => points.some((p) => (p.bySource[id] ?? 0) > 0));
  const short = new Map(report.sources.map((s) => [s.id, s.label.split(/[ /&]/)[0]!]));
  const table = new Table({
    head: [
      'Call',
      'Time',
      'Prompt',
      'Change',
      'Runtime',
      ...ids.map((id) => short.get(id)!),
      'Added (largest)',
      'Events',
    ],
    style: plain,
    chars,
    colAligns: ['right', 'left', 'right', 'right', 'right', ...ids.map(() => 'right' as const), 'left', 'left'],
  });
  points.forEach((p, i) => {
    const change = i === 0 ? null : p.promptTokens - points[i - 1]!.promptTokens;
    table.push([
      p.call,
      p.at.slice(11, 19),
      fmt(p.promptTokens),
      change === null ? '' : fmtDelta(change),
      fmt(p.runtimeOverhead),
      ...ids.map((id) => fmt(p.bySource[id] ?? 0)),
      p.added[0] ? `${p.added[0].label.slice(0, 40)} (${fmt(p.added[0].tokens)})` : '',
      p.events.join(', '),
    ]);
  });
  lines.push(table.toString());
  const jumps = points
    .map((p, i) => ({ p, jump: i === 0 ? p.promptTokens : p.promptTokens - points[i - 1]!.promptTokens }))
    .sort((a, b) => b.jump - a.jump)
    .slice(0, 3);
  lines.push('', 'Biggest jumps:');
  for (const { p, jump } of jumps) {
    lines.push(
      `  call ${p.call}: ${fmtDelta(jump)} tokens — ${p.added.map((a) => `${a.label} (${fmt(a.tokens)})`).join('; ') || 'no new items'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** One page of an item: a header line, what was omitted, then the text itself. */
export function renderItemContent(content: ItemContent): string {
  const head = `${content.label} · page ${content.page + 1} of ${content.pageCount} (zero-based --page ${content.page}) · ${fmt(content.totalChars)} characters · ${content.snapshotId}`;
  const omitted = content.omissions.map((o) => `[omitted: ${o}]`);
  return `${[head, ...omitted, '', content.text].join('\n')}\n`;
}
