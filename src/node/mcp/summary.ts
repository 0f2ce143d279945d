/**
 * The context report as the agent reads it through MCP: a compact text (a few hundred tokens,
 * not the report's thousands — the answer lands in the agent's own context) and the same figures
 * as structured content, with its schema. Every sentence comes from the report's words, made
 * once (src/shared/report-text.ts), so the agent reads what the CLI and the web print:
 * the verdict, the sources by size with the remainder rows, the largest items, the files read
 * more than once, the suggestions by what they free with each change, the calls left before
 * OpenCode compacts, and the session's cost with what the cache saved. Pure.
 */
import * as z from 'zod/mini';
import { fmt, fmtPct } from '../../shared/format';
import {
  costCells,
  costRows,
  fmtCost,
  folderLines,
  itemPercent,
  itemTokens,
  largestItems,
  partLabel,
  repeatMark,
  runtimeChangeText,
  runtimeFigures,
  type ReportFigures,
} from '../../shared/report-figures';
import { reportText, type ReportText } from '../../shared/report-text';
import { changeSchema, freesSchema, TOTAL_SOURCES, type ContextReport } from '../../shared/wire';

/** Items listed by default, largest first, across every source. */
export const SUMMARY_ITEMS = 8;

const nullableNumber = z.nullable(z.number());

export const contextSummarySchema = z.object({
  workspaceId: z.string(),
  sessionId: z.nullable(z.string()),
  generatedAt: z.string(),
  /** The report's total; null while there is none (every figure is then an estimate). */
  context: z.nullable(
    z.object({
      used: z.int(),
      size: z.nullable(z.int()),
      percent: nullableNumber,
      recordedAt: z.string(),
      /** 'acp': the agent's last usage_update; 'provider': the last model call's prompt (no ACP total). */
      source: z.optional(z.enum(TOTAL_SOURCES)),
    }),
  ),
  estimatesOnly: z.boolean(),
  /** The verdict's sentences, in the order the CLI prints them. */
  verdict: z.array(z.string()),
  /** Sources and remainder rows with tokens, largest first: their tokens add up to `context.used`. */
  sources: z.array(
    z.object({
      id: z.string(),
      label: z.string(),
      tokens: z.int(),
      percentOfUsed: nullableNumber,
      /** Null for a remainder row (hidden reasoning, unexplained, …). */
      itemCount: z.nullable(z.int()),
      /** What the row cost over the session (the web's Cost column); absent where the calls were not priced. */
      cost: z.optional(z.number()),
      /** Its items summed by folder, in words (`folderLines`), where two or more share one. */
      folders: z.optional(z.array(z.string())),
    }),
  ),
  /**
   * OpenCode's own prompt and tools: one item of its source's row (`source`), in the parts its
   * recorded definitions name (null: one measured block), and each change the rows show, with why.
   */
  runtime: z.nullable(
    z.object({
      source: z.string(),
      tokens: z.int(),
      percentOfUsed: nullableNumber,
      parts: z.nullable(z.array(z.object({ kind: z.string(), label: z.string(), tokens: z.int() }))),
      changes: z.array(z.string()),
    }),
  ),
  /** Labels of the sources with nothing in context. */
  empty: z.array(z.string()),
  largestItems: z.array(
    z.object({
      label: z.string(),
      source: z.string(),
      sourceLabel: z.string(),
      tokens: z.int(),
      percentOfUsed: nullableNumber,
      path: z.optional(z.string()),
      /** "read again: 2 of 2": the same content is in context more than once. */
      repeat: z.optional(z.string()),
    }),
  ),
  repeatedReads: z.object({
    files: z.int(),
    extraReads: z.int(),
    repeatedTokens: z.int(),
    reads: z.array(z.object({ label: z.string(), path: z.optional(z.string()), reads: z.int() })),
  }),
  /** By what they free from the next call on (then what they avoid; those that do not pay back last) (the verdict's "What to do" is the first). */
  suggestions: z.array(
    z.object({
      kind: z.string(),
      severity: z.string(),
      title: z.string(),
      detail: z.string(),
      frees: freesSchema,
      /** `frees` in words, as every view prints it. */
      freesText: z.string(),
      change: z.optional(changeSchema),
    }),
  ),
  /** Model calls until OpenCode compacts by itself at the recent growth (null: `callsLeftBecause`). */
  callsLeft: z.nullable(z.int()),
  callsLeftBecause: z.optional(z.string()),
  cost: z.nullable(
    z.object({
      currency: z.string(),
      total: nullableNumber,
      calls: z.int(),
      rows: z.array(z.object({ id: z.string(), label: z.string(), amount: nullableNumber, percent: nullableNumber })),
      /** What the cache saved over the priced calls (null: not priced). */
      cacheSaved: nullableNumber,
    }),
  ),
  warnings: z.array(z.string()),
});
export type ContextSummary = z.infer<typeof contextSummarySchema>;

export function contextSummary(report: ContextReport, items = SUMMARY_ITEMS): ContextSummary {
  const text = reportText(report);
  const { figures } = text;
  const actual = report.actual;
  return {
    workspaceId: report.workspaceId,
    sessionId: report.sessionId,
    generatedAt: report.generatedAt,
    context: actual
      ? {
          used: actual.contextUsed,
          size: actual.contextSize,
          percent: actual.percent,
          recordedAt: actual.recordedAt,
          source: actual.source,
        }
      : null,
    estimatesOnly: figures.estimatesOnly,
    verdict: verdictSentences(text),
    sources: sourceSummaries(report, figures),
    runtime: runtimeSummary(report),
    empty: figures.empty.filter((row) => row.source).map((row) => row.label),
    largestItems: largestItems(report, items)
      .filter(({ item }) => itemTokens(item, figures.estimatesOnly) > 0)
      .map(({ item, source }) => ({
        label: item.label,
        source: source.id,
        sourceLabel: source.label,
        tokens: itemTokens(item, figures.estimatesOnly),
        percentOfUsed: itemPercent(item, figures),
        ...(item.path ? { path: item.path } : {}),
        ...(repeatMark(item) ? { repeat: repeatMark(item)! } : {}),
      })),
    repeatedReads: repeatedReads(report, figures.estimatesOnly),
    suggestions: report.suggestions.map((s, index) => ({
      kind: s.kind,
      severity: s.severity,
      title: s.title,
      detail: text.suggestions[index]!.detail,
      frees: s.frees,
      freesText: text.suggestions[index]!.frees,
      ...(s.change ? { change: s.change } : {}),
    })),
    callsLeft: report.verdict?.headroom?.callsLeft ?? null,
    ...(report.verdict?.headroom?.callsLeftBecause
      ? { callsLeftBecause: report.verdict.headroom.callsLeftBecause }
      : {}),
    cost: costSummary(report),
    warnings: report.warnings,
  };
}

/** The verdict's sentences, as the CLI prints them; the first suggestion's change is in the list (once). */
function verdictSentences(text: ReportText): string[] {
  const { lead, action, facts } = text.verdict;
  const what = action
    ? `What to do: ${action.title}.${action.frees ? ` ${action.frees}.` : ''}${action.change ? ' The change: suggestion 1 below.' : ''}`
    : null;
  return [...lead, ...(what ? [what] : []), ...facts];
}

function sourceSummaries(report: ContextReport, figures: ReportFigures): ContextSummary['sources'] {
  const cells = costCells(report);
  return figures.rows.map((row) => ({
    id: row.key,
    label: row.label,
    tokens: row.tokens,
    percentOfUsed: row.percentOfUsed,
    itemCount: row.source ? row.source.itemCount : null,
    ...(cells?.byKey.has(row.key) ? { cost: cells.byKey.get(row.key)! } : {}),
    ...(row.source?.folders?.length ? { folders: folderLines(row.source) } : {}),
  }));
}

function runtimeSummary(report: ContextReport): ContextSummary['runtime'] {
  const runtime = runtimeFigures(report);
  return (
    runtime && {
      source: runtime.sourceId,
      tokens: runtime.tokens,
      percentOfUsed: runtime.percentOfUsed,
      parts: runtime.parts && runtime.parts.map((p) => ({ kind: p.kind, label: partLabel(p), tokens: p.tokens })),
      changes: runtime.changes.map(runtimeChangeText),
    }
  );
}

/** The files read again, once each: the live read that repeats an earlier one names how often. */
function repeatedReads(report: ContextReport, estimatesOnly: boolean): ContextSummary['repeatedReads'] {
  const reads = new Map<string, { label: string; path?: string; reads: number }>();
  for (const item of report.sources.flatMap((source) => source.items)) {
    if (!item.duplicate || item.duplicate.ordinal < 2) continue;
    const key = item.path ?? item.label;
    const seen = reads.get(key);
    if (!seen || seen.reads < item.duplicate.reads)
      reads.set(key, { label: item.label, ...(item.path ? { path: item.path } : {}), reads: item.duplicate.reads });
  }
  const d = report.duplicates;
  return {
    files: d.files,
    extraReads: d.extraReads,
    repeatedTokens:
      estimatesOnly || d.repeatedScaledTokens === null ? d.repeatedEstimatedTokens : d.repeatedScaledTokens,
    reads: [...reads.values()],
  };
}

function costSummary(report: ContextReport): ContextSummary['cost'] {
  const costs = costRows(report);
  if (!report.cost || !costs) return null;
  return {
    currency: report.cost.currency,
    total: report.cost.total,
    calls: report.cost.calls,
    rows: costs.rows.map((r) => ({ id: r.id, label: r.label, amount: r.amount, percent: r.percent })),
    cacheSaved: report.cost.cacheSavings?.amount ?? null,
  };
}

/** The runtime item under its source's line: "  of which OpenCode's own prompt and tools 5,941 (17.5%): …". */
function runtimeLines(runtime: NonNullable<ContextSummary['runtime']>): string[] {
  const parts = runtime.parts ? `: ${runtime.parts.map((p) => `${p.label} ${fmt(p.tokens)}`).join('; ')}` : '';
  return [
    `  of which OpenCode’s own prompt and tools ${fmt(runtime.tokens)} (${fmtPct(runtime.percentOfUsed)})${parts}`,
    ...runtime.changes.map((c) => `  ${c}`),
  ];
}

/** The summary as the agent reads it: a few short blocks, each sentence as every view words it (report-text.ts). */
export function summaryText(report: ContextReport, summary: ContextSummary = contextSummary(report)): string {
  const text = reportText(report);
  const lines = [
    ...headLines(summary),
    ...(summary.verdict.length ? ['', ...summary.verdict] : []),
    '',
    ...sourceLines(summary),
    ...(text.empty ? [text.empty] : []),
    ...largestLines(summary),
    '',
    ...(text.duplicates
      ? [text.duplicates, ...summary.repeatedReads.reads.map((r) => `- ${r.label}: read ${r.reads} times`)]
      : ['Read more than once: nothing.']),
    '',
    ...suggestionLines(text),
    // The CLI's headline of its cost table; each source's cost is on its line above, and what
    // cost money with nothing in context now (compaction calls) is told here.
    ...(text.cost ? ['', text.cost.headline, ...(text.cost.outside ? [text.cost.outside] : [])] : []),
    ...(summary.warnings.length
      ? ['', `Warnings (${summary.warnings.length}):`, ...summary.warnings.slice(0, 3).map((w) => `- ${w}`)]
      : []),
  ];
  return `${lines.join('\n')}\n`;
}

function headLines(summary: ContextSummary): string[] {
  const c = summary.context;
  return [
    summary.sessionId === null
      ? `Context report · workspace ${summary.workspaceId} · no session yet: only what every request carries (instructions, the skill catalog) is counted`
      : `Context report · workspace ${summary.workspaceId} · session ${summary.sessionId}`,
    c
      ? `Context: ${fmt(c.used)} / ${fmt(c.size)} tokens${c.percent === null ? '' : ` (${fmtPct(c.percent)} of the window)`}, ${c.source === 'provider' ? `the last model call's prompt as the provider counted it (${c.recordedAt}): no agent total was recorded for this session` : `as the agent last reported it (${c.recordedAt}); what the turn in progress added since is not in it yet`}.`
      : 'Context: no usage reported for this session yet — every figure below is an estimate.',
  ];
}

function sourceLines(summary: ContextSummary): string[] {
  const approx = summary.estimatesOnly ? '≈' : '';
  const currency = summary.cost?.currency ?? 'USD';
  const priced = summary.sources.some((row) => row.cost !== undefined);
  const lines = [
    `Sources (tokens, Used % — the share of the used context${summary.estimatesOnly ? ', estimated' : ''}${priced ? ', cost over the session' : ''}):`,
  ];
  const runtime = summary.runtime;
  for (const row of summary.sources) {
    const items = row.itemCount === null ? '' : `, ${fmt(row.itemCount)} item${row.itemCount === 1 ? '' : 's'}`;
    const cost = row.cost === undefined ? '' : `, ${fmtCost(row.cost, currency)}`;
    lines.push(`- ${row.label}: ${approx}${fmt(row.tokens)} (${fmtPct(row.percentOfUsed)})${items}${cost}`);
    for (const folder of row.folders ?? []) lines.push(`  - ${folder}`);
    if (runtime && row.id === runtime.source) lines.push(...runtimeLines(runtime));
  }
  if (summary.sources.length === 0) lines.push('- nothing yet');
  return lines;
}

function largestLines(summary: ContextSummary): string[] {
  if (!summary.largestItems.length) return [];
  const approx = summary.estimatesOnly ? '≈' : '';
  return [
    '',
    'Largest items (tokens, Used %):',
    ...summary.largestItems.map(
      (item, index) =>
        `${index + 1}. ${item.label}${item.repeat ? ` (${item.repeat})` : ''} — ${approx}${fmt(item.tokens)} tokens (${fmtPct(item.percentOfUsed)}), ${item.sourceLabel}`,
    ),
  ];
}

/** Title, what it frees and the change: the why (`detail`) is in the structured content. */
function suggestionLines(text: ReportText): string[] {
  if (!text.suggestions.length) return ['Suggestions: none.'];
  return [
    'Suggestions (by what they free, largest first):',
    ...text.suggestions.flatMap((s, index) => [
      `${index + 1}. ${s.warning ? '(!) ' : ''}${s.title}. ${s.frees}.`,
      ...(s.change ? [`   ${s.change.lead}: ${s.change.text}`] : []),
    ]),
  ];
}
