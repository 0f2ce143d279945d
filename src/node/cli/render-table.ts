/** The CLI's human-readable report: totals, one row per source, top items, then the fine print. */
import { totalSourceSentence, totalSourceShort } from '../../shared/total-source';
import Table from 'cli-table3';
import { fitWidths, tableWidth } from './fit-columns';
import { fmt, fmtBytes, fmtDelta, fmtPct } from '../../shared/format';
import {
  biggestJumps,
  costHeadline,
  costRows,
  coverageText,
  fmtCost,
  itemPercent,
  itemTokens,
  jumpText,
  numbersInText,
  partLabel,
  repeatMark,
  reportFigures,
  runtimeChangeText,
  runtimeFigures,
  timelineCoverage,
  verdictLines,
  folderLines,
} from '../../shared/report-figures';
import { cacheSavingsText, changeLead, suggestionFrees } from '../../shared/advice-text';
import type { Change, ContextReport, ItemContent, ReportItem, TimelinePoint } from '../../shared/wire';

const plain = { head: [], border: [] };
// No rule between body rows: a report is scanned down a column, not cell by cell.
const chars = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

type Align = 'left' | 'right';

/**
 * A table within `width` columns (null: --wide, every cell whole): the text columns `text`
 * narrowed, their cells cut with an ellipsis (fit-columns.ts); where that is not enough, the
 * columns in `optional` leave in that order, and a line under the table says which.
 */
function fitted(
  head: string[],
  rows: string[][],
  aligns: Align[],
  text: number[],
  width: number | null,
  optional: number[] = [],
): string {
  let keep = head.map((_, i) => i);
  const pick = <T>(values: readonly T[]) => keep.map((i) => values[i]!);
  const widthsOf = () =>
    fitWidths(
      [pick(head), ...rows.map(pick)],
      keep.flatMap((i, at) => (text.includes(i) ? [at] : [])),
      width,
    );
  for (const drop of optional) {
    const widths = widthsOf();
    if (width === null || !widths || tableWidth(widths) <= width) break;
    keep = keep.filter((i) => i !== drop);
  }
  const colWidths = widthsOf();
  const table = new Table({
    head: pick(head),
    style: plain,
    chars,
    colAligns: pick(aligns),
    ...(colWidths ? { colWidths } : {}),
  });
  table.push(...rows.map(pick));
  const left = head.filter((_, i) => !keep.includes(i)).map((h) => h.replace(/\n/g, ' '));
  return left.length
    ? `${table.toString()}\n(${left.join(', ')}: left out to fit ${width} columns; --wide shows every column)`
    : table.toString();
}

export function renderReport(
  report: ContextReport,
  options: { items: number | 'all'; database?: string | null; width?: number | null },
): string {
  const width = options.width === undefined ? 100 : options.width;
  const lines: string[] = [];
  lines.push(`Context report · workspace ${report.workspaceId} · session ${report.sessionId ?? '(none)'}`);
  if (options.database) lines.push(`Database: ${options.database}`);
  const { origin } = report;
  // The file the report came from: given to --export, or kept by the import (contract §8).
  if (origin)
    lines.push(
      `${origin.files?.length ? `From ${origin.files.join(', ')}` : 'Imported'} (${origin.kind})${origin.directory ? `, ran in ${origin.directory}` : ''}: no agent, its model calls' own counts`,
    );
  if (report.parentSessionId)
    lines.push(
      `A subagent's session, made by a task call of session ${report.parentSessionId} (its report: --session ${report.parentSessionId})`,
    );
  const { actual } = report;
  const figures = reportFigures(report);
  const approx = figures.estimatesOnly ? '≈' : '';
  lines.push(
    actual
      ? `Context: ${fmt(actual.contextUsed)}${actual.contextSize === null ? '' : ` / ${fmt(actual.contextSize)}`} tokens${actual.percent === null ? '' : ` (${fmtPct(actual.percent)} of the window)`} · ${totalSourceShort(report)}${report.asOf ? '' : ` at ${utcStamp(actual.recordedAt)}`}`
      : `Context: no usage reported for this session yet — ≈${fmt(figures.total.tokens)} estimated tokens`,
  );
  if (report.asOf)
    lines.push(
      `As of model call ${report.asOf.call} of ${report.asOf.of} (${utcStamp(report.asOf.at)}): the context then, read-only`,
    );
  const verdict = verdictLines(report);
  if (verdict) {
    lines.push('');
    for (const line of [verdict.biggest, verdict.item]) if (line) lines.push(`  ${line}`);
    if (verdict.action) {
      const a = verdict.action;
      lines.push(`  What to do: ${a.title}.${a.frees ? ` ${a.frees}.` : ''}${a.detail ? ` ${a.detail}` : ''}`);
      if (a.change) lines.push(...changeLines(a.change, '    '));
    }
    for (const line of [verdict.headroom, verdict.cache, verdict.cost]) if (line) lines.push(`  ${line}`);
  }
  lines.push('');

  // One row per source and remainder row, largest first; the Total is the sum of each column.
  const sourceRows: string[][] = [];
  for (const row of figures.rows) {
    const s = row.source;
    sourceRows.push([
      row.label,
      `${approx}${fmt(row.tokens)}`,
      fmtPct(row.percentOfUsed),
      s ? fmt(s.estimatedTokens) : '',
      s ? fmtBytes(s.bytes) : '',
      s ? fmt(s.itemCount) : '',
    ]);
  }
  const { total } = figures;
  sourceRows.push([
    'Total',
    `${approx}${fmt(total.tokens)}`,
    actual ? fmtPct(100) : fmtPct(total.tokens > 0 ? 100 : null),
    fmt(total.estimatedTokens),
    fmtBytes(total.bytes),
    fmt(total.itemCount),
  ]);
  lines.push(
    fitted(
      ['Source', 'Tokens', 'Used %', 'Estimated', 'Bytes', 'Items'],
      sourceRows,
      ['left', 'right', 'right', 'right', 'right', 'right'],
      [0],
      width,
      [4, 3],
    ),
  );
  if (figures.empty.length) lines.push(`Nothing in context from: ${figures.empty.map((r) => r.label).join(', ')}.`);
  lines.push('');

  for (const row of figures.rows) {
    const s = row.source;
    if (!s || s.itemCount === 0) continue;
    const shown = options.items === 'all' ? s.items : s.items.slice(0, options.items);
    const itemRows = shown.map((item) => {
      const mark = repeatMark(item);
      return [
        item.label + (mark ? ` [${mark}]` : ''),
        `${approx}${fmt(itemTokens(item, figures.estimatesOnly))}`,
        fmtPct(itemPercent(item, figures)),
        fmt(item.estimatedTokens),
        fmtBytes(item.bytes),
      ];
    });
    const table = fitted(
      ['Item', 'Tokens', 'Used %', 'Estimated', 'Bytes'],
      itemRows,
      ['left', 'right', 'right', 'right', 'right'],
      [0],
      width,
      [4, 3],
    );
    const hidden = s.itemCount - shown.length;
    lines.push(`${s.label} — top ${shown.length} of ${s.itemCount}`);
    const folders = folderLines(s);
    if (folders.length) lines.push('  By folder:', ...folders.map((line) => `    ${line}`));
    lines.push(table);
    if (hidden > 0) lines.push(`  … ${hidden} more item${hidden === 1 ? '' : 's'} (--items all to list them)`);
    for (const item of shown) lines.push(...itemDetails(item, report, width));
    lines.push('');
  }
  for (const row of figures.rows) {
    if (row.remainder) lines.push(`${row.label}: ${fmt(row.tokens)} tokens — ${numbersInText(row.remainder.reason)}`);
  }
  if (figures.rows.some((r) => r.remainder)) lines.push('');

  const pending = report.pending;
  if (pending && pending.itemCount > 0) {
    lines.push(
      `${pending.label} — not in the total yet: ${fmt(pending.itemCount)} item${pending.itemCount === 1 ? '' : 's'}, ≈${fmt(pending.estimatedTokens)} estimated tokens`,
    );
    for (const item of pending.items.slice(0, options.items === 'all' ? undefined : options.items))
      lines.push(`  + ${item.label} (≈${fmt(item.estimatedTokens)})`);
    lines.push('');
  }

  lines.push(...costTable(report, width));

  const jumps = biggestJumps(report.timeline ?? []);
  if (jumps.length) {
    lines.push('Biggest jumps:', ...jumps.map((j) => `  ${jumpText(j)}`), '');
  }

  const d = report.duplicates;
  if (d.extraReads > 0) {
    const repeated =
      figures.estimatesOnly || d.repeatedScaledTokens === null
        ? `≈${fmt(d.repeatedEstimatedTokens)}`
        : fmt(d.repeatedScaledTokens);
    lines.push(
      `Duplicated reads: ${d.files} file${d.files === 1 ? '' : 's'} read more than once; ${d.extraReads} extra read${d.extraReads === 1 ? '' : 's'} repeat ${repeated} tokens`,
      '',
    );
  }
  if (report.suggestions.length) {
    lines.push('Suggestions (by what they free, largest first):');
    report.suggestions.forEach((s, index) => {
      lines.push(
        `  ${index + 1}. ${s.severity === 'warning' ? '! ' : ''}${s.title}`,
        `     ${suggestionFrees(report, s.frees, s)}.`,
        `     ${numbersInText(s.detail)}`,
        ...(s.change ? changeLines(s.change, '     ') : []),
      );
    });
    lines.push('');
  }
  if (report.excluded.length) {
    lines.push('Not in context:');
    for (const e of report.excluded)
      lines.push(
        `  - ${e.label}: ${fmtBytes(e.bytes)}${e.count === undefined ? '' : `, ${fmt(e.count)}`} — ${numbersInText(e.reason)}`,
      );
    lines.push('');
  }
  lines.push('How the numbers were made:', ...methodLines(report).map((line) => `  - ${line}`));
  lines.push('', 'Notes:', ...report.notes.map((note) => `  - ${numbersInText(note)}`));
  if (report.warnings.length)
    lines.push('', `Warnings (${report.warnings.length}):`, ...report.warnings.map((w) => `  ! ${w}`));
  return `${lines.join('\n')}\n`;
}

/** A change as the terminal shows it: what to do with it, then its text as it is, to copy. */
function changeLines(change: Change, indent: string): string[] {
  return [`${indent}${changeLead(change)}:`, ...change.text.split('\n').map((line) => `${indent}  ${line}`)];
}

/** Under a source's table: the runtime item in parts (or why it is one block), a task call's subagent. */
function itemDetails(item: ReportItem, report: ContextReport, width: number | null): string[] {
  const out: string[] = [];
  const runtime = item.runtime ? runtimeFigures(report) : null;
  if (runtime) {
    if (!runtime.parts) {
      if (runtime.oneBlockBecause) out.push(`  ${item.label}: one measured block — ${runtime.oneBlockBecause}`);
    } else {
      const table = fitted(
        ['Part', 'Tokens', 'Used %', 'Estimated'],
        runtime.parts.map((part) => [
          partLabel(part),
          fmt(part.tokens),
          fmtPct(part.percentOfUsed),
          fmt(part.estimatedTokens),
        ]),
        ['left', 'right', 'right', 'right'],
        [0],
        width,
        [3],
      );
      out.push(
        `  ${item.label}, part of ${runtime.sourceLabel}, in ${runtime.parts.length} parts${runtime.recordedFor ? ` (${runtime.recordedFor})` : ''}:`,
        table,
      );
    }
    for (const change of runtime.changes) out.push(`  ${runtimeChangeText(change)}.`);
  }
  const sub = item.subagent;
  if (sub) {
    const who = sub.agent ? `the ${sub.agent} subagent` : 'a subagent';
    if (!sub.stored) out.push(`  ${item.label}: handed to ${who}, whose session ${sub.sessionId} is not stored here`);
    else {
      const total =
        typeof sub.total === 'number'
          ? `reached ${fmt(sub.total)} tokens in ${fmt(sub.calls ?? 0)} call${sub.calls === 1 ? '' : 's'}`
          : 'has no measured call';
      const largest = sub.largest?.length
        ? `; largest: ${sub.largest.map((l) => `${l.label} ${fmt(l.tokens)}`).join(', ')}`
        : '';
      out.push(
        `  ${item.label}: handed to ${who}; its session ${total}${largest}. Its report: --session ${sub.sessionId}`,
      );
    }
  }
  return out;
}

/** What each source cost over the session: money, billed tokens, from the cache, no longer in context. */
function costTable(report: ContextReport, width: number | null): string[] {
  const table = costRows(report);
  const cost = report.cost;
  if (!table || !cost) return [];
  const money = (amount: number | null) => (amount === null ? '—' : fmtCost(amount, cost.currency));
  const out = fitted(
    ['Source or row', 'Cost', 'Share', 'Billed\ntokens', 'From\ncache', 'Output', 'No longer\nin context'],
    [...table.rows, table.total].map((row) => [
      row.label,
      money(row.amount),
      row.percent === null ? '' : fmtPct(row.percent),
      fmt(row.inputTokens),
      row.inputTokens > 0 ? fmtPct(Math.round((row.cacheReadTokens / row.inputTokens) * 1000) / 10) : '',
      fmt(row.outputTokens),
      row.leftAmount ? money(row.leftAmount) : '',
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
    [0],
    width,
    [5, 4, 3],
  );
  const saved = cacheSavingsText(report);
  return [
    costHeadline(report)!,
    out,
    ...(saved ? [`  ${saved}.`] : []),
    ...cost.notes.map((n) => `  - ${numbersInText(n)}`),
    '',
  ];
}

/** The methods behind the figures: the fine print, after the figures themselves. */
function methodLines(report: ContextReport): string[] {
  const { estimate, calibration } = report;
  const runtime = report.sources.flatMap((s) => s.items).filter((i) => i.runtime).length;
  const lines = [
    `Estimate: ${fmt(estimate.totalTokens)} tokens by ${estimate.method} · ${fmtBytes(estimate.totalBytes)} · ${fmt(estimate.itemCount)} items` +
      (estimate.scale === null ? '' : ` · the agent's total is ${estimate.scale.toFixed(2)} times the estimate`) +
      (runtime
        ? ` (the table's Estimated column also holds the runtime item, measured: it has no text to estimate)`
        : ''),
  ];
  if (calibration?.mode === 'measured') {
    lines.push(
      `Measured: ${fmt(calibration.reference?.promptTokens ?? null)} tokens at model call ${calibration.reference?.call ?? '—'} of ${calibration.calls}` +
        ` · OpenCode's own system prompt and tool schemas ${fmt(calibration.runtimeOverhead)} tokens` +
        (calibration.unattributed.tokens === 0 ? '' : ` · unattributed ${fmt(calibration.unattributed.tokens)}`),
    );
  }
  const basis = report.sources.filter((s) => s.basis).map((s) => `${s.label} ${s.basis}`);
  if (basis.length) lines.push(`Basis: ${basis.join(', ')}`);
  const p = report.providerTokens;
  if (p && p.cacheReadSharePercent !== null) {
    lines.push(
      `Provider counts of the last call: prompt ${fmt(p.promptTokens ?? null)} (input ${fmt(p.input)}, cache read ${fmt(p.cacheRead)}` +
        (p.cacheWrite === null ? ')' : `, cache write ${fmt(p.cacheWrite)})`) +
        ` · ${fmtPct(p.cacheReadSharePercent)} read from cache`,
    );
  }
  const source = totalSourceSentence(report);
  if (source) lines.push(source);
  return lines;
}

/** "2026-11-29 12:00:00 UTC". */
const utcStamp = (iso: string): string => {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : `${at.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
};

/** How the context grew: one row per measured model call, its prompt and its sources. */
export function renderTimeline(report: ContextReport, width: number | null = 100): string {
  const points = report.timeline ?? [];
  const lines = [`How the context grew · workspace ${report.workspaceId} · session ${report.sessionId ?? '(none)'}`];
  if (points.length === 0) {
    lines.push('', 'No model call of this session recorded its prompt size: there is no timeline to draw.');
    return `${lines.join('\n')}\n`;
  }
  // The report's one order (by size), as in the table and the web.
  const ids = reportFigures(report)
    .rows.filter((r) => r.source)
    .map((r) => r.key)
    .filter((id) => points.some((p) => (p.bySource[id] ?? 0) > 0));
  const short = new Map(report.sources.map((s) => [s.id, s.label.split(/[ /&]/)[0]!]));
  const change = (i: number) => (i === 0 ? '' : fmtDelta(points[i]!.promptTokens - points[i - 1]!.promptTokens));
  type Column = { head: string; align: Align; text?: true; cell: (p: TimelinePoint, i: number) => string };
  const columns: Column[] = [
    { head: 'Call', align: 'right', cell: (p) => String(p.call) },
    { head: 'Time', align: 'left', cell: (p) => p.at.slice(11, 19) },
    { head: 'Prompt', align: 'right', cell: (p) => fmt(p.promptTokens) },
    { head: 'Change', align: 'right', cell: (_p, i) => change(i) },
    { head: 'Runtime', align: 'right', cell: (p) => fmt(p.runtimeOverhead) },
    ...ids.map((id): Column => ({ head: short.get(id)!, align: 'right', cell: (p) => fmt(p.bySource[id] ?? 0) })),
    {
      head: 'Added (largest)',
      align: 'left',
      text: true,
      cell: (p) => (p.added[0] ? `${p.added[0].label} (${fmt(p.added[0].tokens)})` : ''),
    },
    ...(points.some((p) => p.events.length)
      ? [{ head: 'Events', align: 'left', text: true, cell: (p) => p.events.join(', ') } satisfies Column]
      : []),
  ];
  // When the terminal is too narrow for them all, the smallest sources' columns leave first, then
  // the runtime's and the time's.
  const optional = [...ids.map((_, i) => 5 + i).reverse(), 4, 1];
  lines.push(
    fitted(
      columns.map((c) => c.head),
      points.map((p, i) => columns.map((c) => c.cell(p, i))),
      columns.map((c) => c.align),
      columns.flatMap((c, i) => (c.text ? [i] : [])),
      width,
      optional,
    ),
  );
  const coverage = timelineCoverage(report);
  if (coverage && (coverage.uncounted || coverage.sampled)) lines.push(`(${coverageText(coverage)})`);
  const jumps = biggestJumps(points);
  if (jumps.length) lines.push('', 'Biggest jumps:', ...jumps.map((j) => `  ${jumpText(j)}`));
  return `${lines.join('\n')}\n`;
}

/** One page of an item: a header line, what was omitted, then the text itself. */
export function renderItemContent(content: ItemContent): string {
  const head = `${content.label} · page ${content.page + 1} of ${content.pageCount} (zero-based --page ${content.page}) · ${fmt(content.totalChars)} characters · ${content.snapshotId}`;
  const omitted = content.omissions.map((o) => `[omitted: ${o}]`);
  return `${[head, ...omitted, '', content.text].join('\n')}\n`;
}
