/** The CLI's human-readable report: totals, one row per source, top items, then the fine print. */
import { totalSourceSentence, totalSourceShort } from '../../shared/total-source';
import Table from 'cli-table3';
import { fitWidths, tableWidth } from './fit-columns';
import { fmt, fmtBytes, fmtDelta, fmtPct } from '../../shared/format';
import {
  biggestJumps,
  costRows,
  coverageText,
  fmtCost,
  jumpText,
  numbersInText,
  partLabel,
  reportFigures,
  runtimeChangeText,
  runtimeFigures,
  timelineCoverage,
  type RuntimeFigures,
} from '../../shared/report-figures';
import {
  reportText,
  runtimeTitle,
  sourceItems,
  subagentText,
  type ChangeText,
  type ReportText,
  type SourceItemsText,
} from '../../shared/report-text';
import type { ContextReport, ItemContent, ReportItem, TimelinePoint } from '../../shared/wire';

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

type Options = { items: number | 'all'; database?: string | null; width?: number | null };

export function renderReport(report: ContextReport, options: Options): string {
  const width = options.width === undefined ? 100 : options.width;
  const text = reportText(report);
  const lines = [
    ...headerLines(report, text, options.database ?? null),
    ...verdictBlock(text),
    '',
    ...sourceTable(text, width),
    '',
    ...sourceItems(report, options.items).flatMap((section) => itemSection(section, report, width)),
    ...block(text.remainders),
    ...pendingBlock(text, options.items),
    ...costTable(report, text, width),
    ...(text.jumps.length ? ['Biggest jumps:', ...text.jumps.map((j) => `  ${j}`), ''] : []),
    ...(text.duplicates ? [text.duplicates, ''] : []),
    ...suggestionsBlock(text),
    ...(text.excluded.length ? ['Not in context:', ...text.excluded.map((e) => `  - ${e.label}${e.rest}`), ''] : []),
    'How the numbers were made:',
    ...methodLines(report).map((line) => `  - ${line}`),
    '',
    'Notes:',
    ...text.notes.map((note) => `  - ${note}`),
    ...(text.warnings.length
      ? ['', `Warnings (${text.warnings.length}):`, ...text.warnings.map((w) => `  ! ${w}`)]
      : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** Lines, then a blank line; nothing where there are none. */
const block = (lines: string[]): string[] => (lines.length ? [...lines, ''] : []);

/** Which report this is: the workspace and session, where it came from, the context's total. */
function headerLines(report: ContextReport, text: ReportText, database: string | null): string[] {
  const lines = [
    `Context report · workspace ${report.workspaceId} · session ${report.sessionId ?? '(none)'} · ${runtimeTitle(report)}`,
  ];
  if (database) lines.push(`Database: ${database}`);
  const { origin, actual } = report;
  // The file the report came from: given to --export, or kept by the import (contract §8).
  if (origin)
    lines.push(
      `${origin.files?.length ? `From ${origin.files.join(', ')}` : 'Imported'} (${origin.kind})${origin.directory ? `, ran in ${origin.directory}` : ''}: no agent, its model calls' own counts`,
    );
  if (report.parentSessionId)
    lines.push(
      `A subagent's session, made by a task call of session ${report.parentSessionId} (its report: --session ${report.parentSessionId})`,
    );
  lines.push(
    actual
      ? `Context: ${fmt(actual.contextUsed)}${actual.contextSize === null ? '' : ` / ${fmt(actual.contextSize)}`} tokens${actual.percent === null ? '' : ` (${fmtPct(actual.percent)} of the window)`} · ${totalSourceShort(report)}${report.asOf ? '' : ` at ${utcStamp(actual.recordedAt)}`}`
      : `Context: no usage reported for this session yet — ≈${fmt(text.figures.total.tokens)} estimated tokens`,
  );
  if (report.asOf)
    lines.push(
      `As of model call ${report.asOf.call} of ${report.asOf.of} (${utcStamp(report.asOf.at)}): the context then, read-only`,
    );
  return lines;
}

/** The verdict: where the context went, what to do (with its change to copy), the room and cost. */
function verdictBlock(text: ReportText): string[] {
  const { lead, action, facts } = text.verdict;
  if (!lead.length && !action && !facts.length) return [];
  const lines = ['', ...lead.map((line) => `  ${line}`)];
  if (action) {
    lines.push(
      `  What to do: ${action.title}.${action.frees ? ` ${action.frees}.` : ''}${action.detail ? ` ${action.detail}` : ''}`,
    );
    if (action.change) lines.push(...changeLines(action.change, '    '));
  }
  return [...lines, ...facts.map((line) => `  ${line}`)];
}

/** One row per source and remainder row, largest first; the Total is the sum of each column. */
function sourceTable(text: ReportText, width: number | null): string[] {
  const cells = (r: ReportText['total']) => [r.label, r.tokens, r.percent, r.estimated, r.bytes, r.items];
  const table = fitted(
    ['Source', 'Tokens', 'Used %', 'Estimated', 'Bytes', 'Items'],
    [...text.sourceRows, text.total].map(cells),
    ['left', 'right', 'right', 'right', 'right', 'right'],
    [0],
    width,
    [4, 3],
  );
  return [table, ...(text.empty ? [text.empty] : [])];
}

/** A source's items: its folders, its table, what is not listed, and each item's details. */
function itemSection(section: SourceItemsText, report: ContextReport, width: number | null): string[] {
  const table = fitted(
    ['Item', 'Tokens', 'Used %', 'Estimated', 'Bytes'],
    section.rows.map((r) => [r.label + (r.repeat ? ` [${r.repeat}]` : ''), r.tokens, r.percent, r.estimated, r.bytes]),
    ['left', 'right', 'right', 'right', 'right'],
    [0],
    width,
    [4, 3],
  );
  const { hidden } = section;
  return [
    section.heading,
    ...(section.folders.length ? ['  By folder:', ...section.folders.map((line) => `    ${line}`)] : []),
    table,
    ...(hidden > 0 ? [`  … ${hidden} more item${hidden === 1 ? '' : 's'} (--items all to list them)`] : []),
    ...section.details.flatMap((item) => itemDetails(item, report, width)),
    '',
  ];
}

/** What was added since the last measured call: not in the total yet. */
function pendingBlock(text: ReportText, items: number | 'all'): string[] {
  if (!text.pending) return [];
  const listed = text.pending.items.slice(0, items === 'all' ? undefined : items);
  return [text.pending.line, ...listed.map((item) => `  + ${item}`), ''];
}

/** The suggestions, numbered: title, what each frees, why, and its change to copy. */
function suggestionsBlock(text: ReportText): string[] {
  if (!text.suggestions.length) return [];
  return [
    'Suggestions (by what they free, largest first):',
    ...text.suggestions.flatMap((s, index) => [
      `  ${index + 1}. ${s.warning ? '! ' : ''}${s.title}`,
      `     ${s.frees}.`,
      `     ${s.detail}`,
      ...(s.change ? changeLines(s.change, '     ') : []),
    ]),
    '',
  ];
}

/** A change as the terminal shows it: what to do with it, then its text as it is, to copy. */
function changeLines(change: ChangeText, indent: string): string[] {
  return [`${indent}${change.lead}:`, ...change.text.split('\n').map((line) => `${indent}  ${line}`)];
}

/** Under a source's table: the runtime item in parts (or why it is one block), a task call's subagent. */
function itemDetails(item: ReportItem, report: ContextReport, width: number | null): string[] {
  const runtime = item.runtime ? runtimeFigures(report) : null;
  const out = runtime ? runtimeLines(item, runtime, width) : [];
  const sub = subagentText(item);
  if (sub) out.push(`  ${sub}${item.subagent!.stored ? `. Its report: --session ${item.subagent!.sessionId}` : ''}`);
  return out;
}

/** The runtime item: its parts as a table (or why it is one block), then how it changed between calls. */
function runtimeLines(item: ReportItem, runtime: RuntimeFigures, width: number | null): string[] {
  const out: string[] = [];
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
  return [...out, ...runtime.changes.map((change) => `  ${runtimeChangeText(change)}.`)];
}

/** What each source cost over the session: money, billed tokens, from the cache, no longer in context. */
function costTable(report: ContextReport, text: ReportText, width: number | null): string[] {
  const table = costRows(report);
  const cost = report.cost;
  if (!table || !cost || !text.cost) return [];
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
  const { headline, saved, outside } = text.cost;
  return [
    headline,
    out,
    ...(saved ? [`  ${saved}.`] : []),
    ...(outside ? [`  ${outside}`] : []),
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
        ` · ${runtimeTitle(report)}'s own system prompt and tool schemas ${fmt(calibration.runtimeOverhead)} tokens` +
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
