/**
 * The report's words, made once: the verdict, the advice, the notes, the labels and every table
 * as rows of printed cells. The web view, the CLI table (src/node/cli/render-table.ts), the MCP
 * summary (src/node/mcp/summary.ts) and the Markdown export (src/chat/report/report-markdown.ts)
 * render this — each in its own layout (box-drawn tables, Markdown tables, a compact list) — and
 * none words a sentence of its own, so the four cannot drift apart (test/node/one-wording.test.ts).
 * Built on the shared figures (report-figures.ts) and advice words (advice-text.ts). Browser-safe
 * and pure.
 */
import { cacheSavingsText, CHANGE_HEADINGS, changeLead, suggestionFrees } from './advice-text';
import { fmt, fmtBytes, fmtPct } from './format';
import {
  biggestJumps,
  costHeadline,
  costOutsideText,
  folderLines,
  itemPercent,
  itemTokens,
  jumpText,
  largestItems,
  numbersInText,
  repeatMark,
  reportFigures,
  runtimeChangeText,
  runtimeFigures,
  verdictLines,
  type FigureRow,
  type ReportFigures,
} from './report-figures';
import type { Change, ContextReport, ReportItem, ReportSource } from './wire';

const plural = (n: number, word: string) => `${fmt(n)} ${word}${n === 1 ? '' : 's'}`;

/** A change to make: what to do with it (`lead`) and its text as it is, to copy. */
export interface ChangeText {
  kind: Change['kind'];
  /** What the change is: "Claude Code configuration", "Ask the agent". */
  heading: string;
  lead: string;
  text: string;
}

/** The runtime a report is about, in words ("OpenCode", "Claude Code"); a report that names none is OpenCode's (contract §10). */
export const runtimeTitle = (report: Pick<ContextReport, 'runtime'>): string => report.runtime?.title ?? 'OpenCode';

/**
 * What a change is, as its heading says: a configuration change is the configuration of the
 * report's runtime (`opencode_config` is the contract's kind for every runtime's: Claude Code's
 * is its settings' JSON), the other kinds by their own words.
 */
export function changeHeading(change: Pick<Change, 'kind'>, runtime: string): string {
  if (change.kind === 'opencode_config') return `${runtime} configuration`;
  return CHANGE_HEADINGS[change.kind] ?? change.kind;
}

/** One suggestion in words: its title, what it frees (with its price), why, and its change. */
export interface SuggestionText {
  title: string;
  warning: boolean;
  frees: string;
  detail: string;
  change: ChangeText | null;
}

/** A table row as printed cells: the label, then the figures (tokens with ≈ where estimated). */
export interface SourceRowText {
  key: string;
  label: string;
  tokens: string;
  percent: string;
  estimated: string;
  bytes: string;
  items: string;
}

export interface ItemRowText {
  label: string;
  /** "read again: 2 of 2" where the same content is in context more than once. */
  repeat: string | null;
  sourceLabel: string;
  tokens: string;
  percent: string;
  estimated: string;
  bytes: string;
}

export interface SourceItemsText {
  key: string;
  /** "Evidence — top 5 of 12". */
  heading: string;
  folders: string[];
  rows: ItemRowText[];
  /** How many items are not listed. */
  hidden: number;
  /** Under the table: the runtime item's parts or one-block reason, a task call's subagent. */
  details: ReportItem[];
}

/** Something not in context: its label (set apart by a view) and the rest of its sentence. */
export interface ExcludedText {
  label: string;
  /** " — 4.1 KB, 13 entries. Cached candidates, not enabled skills: never in the model context." */
  rest: string;
}

export interface ReportText {
  figures: ReportFigures;
  /** "≈" while every figure is an estimate. */
  approx: string;
  verdict: {
    /** Where the context went: the biggest source, the largest item. */
    lead: string[];
    /** What to do: the first suggestion. */
    action: SuggestionText | null;
    /** Its facts: the room left, the cache, the cost. */
    facts: string[];
  };
  sourceRows: SourceRowText[];
  total: SourceRowText;
  /** "Nothing in context from Skills, Memory." (the web's line, word for word) */
  empty: string | null;
  /** The remainder rows, each with its reason: "Hidden reasoning: 1,204 tokens — …". */
  remainders: string[];
  /** What was added after the last measured call, not in the total yet. */
  pending: { line: string; items: string[] } | null;
  /** The runtime item's changes between calls ("Changed at call 32: …"). */
  runtimeChanges: string[];
  jumps: string[];
  /** "Read more than once: 4 files — 4 extra reads repeat 2,313 tokens." */
  duplicates: string | null;
  suggestions: SuggestionText[];
  /** The session's cost: its headline, what the cache saved, what cost money with nothing in context now. */
  cost: { headline: string; saved: string | null; outside: string | null } | null;
  /** What is not in context, and why. */
  excluded: ExcludedText[];
  notes: string[];
  warnings: string[];
}

export function changeText(change: Change, runtime: string): ChangeText {
  return { kind: change.kind, heading: changeHeading(change, runtime), lead: changeLead(change), text: change.text };
}

function suggestionText(report: ContextReport, s: ContextReport['suggestions'][number]): SuggestionText {
  return {
    title: s.title,
    warning: s.severity === 'warning',
    frees: suggestionFrees(report, s.frees, s),
    detail: numbersInText(s.detail),
    change: s.change ? changeText(s.change, runtimeTitle(report)) : null,
  };
}

function verdictText(report: ContextReport): ReportText['verdict'] {
  const v = verdictLines(report);
  if (!v) return { lead: [], action: null, facts: [] };
  const present = (lines: (string | null)[]) => lines.filter((line): line is string => line !== null);
  const a = v.action;
  return {
    lead: present([v.biggest, v.item]),
    action: a && {
      title: a.title,
      warning: false,
      frees: a.frees ?? '',
      detail: a.detail,
      change: a.change ? changeText(a.change, runtimeTitle(report)) : null,
    },
    facts: present([v.headroom, v.cache, v.cost]),
  };
}

function sourceRows(figures: ReportFigures, approx: string, actual: boolean): Pick<ReportText, 'sourceRows' | 'total'> {
  const row = (r: FigureRow): SourceRowText => ({
    key: r.key,
    label: r.label,
    tokens: `${approx}${fmt(r.tokens)}`,
    percent: fmtPct(r.percentOfUsed),
    estimated: r.source ? fmt(r.source.estimatedTokens) : '',
    bytes: r.source ? fmtBytes(r.source.bytes) : '',
    items: r.source ? fmt(r.source.itemCount) : '',
  });
  const { total } = figures;
  return {
    sourceRows: figures.rows.map(row),
    total: {
      key: 'total',
      label: 'Total',
      tokens: `${approx}${fmt(total.tokens)}`,
      percent: actual ? fmtPct(100) : fmtPct(total.tokens > 0 ? 100 : null),
      estimated: fmt(total.estimatedTokens),
      bytes: fmtBytes(total.bytes),
      items: fmt(total.itemCount),
    },
  };
}

/** An item's row: its label and repeat mark, its source, its figures. */
export function itemRow(item: ReportItem, source: ReportSource, figures: ReportFigures): ItemRowText {
  return {
    label: item.label,
    repeat: repeatMark(item),
    sourceLabel: source.label,
    tokens: `${figures.estimatesOnly ? '≈' : ''}${fmt(itemTokens(item, figures.estimatesOnly))}`,
    percent: fmtPct(itemPercent(item, figures)),
    estimated: fmt(item.estimatedTokens),
    bytes: fmtBytes(item.bytes),
  };
}

/** Each source's items as rows, `limit` of them ('all': every one), with what is left out. */
export function sourceItems(report: ContextReport, limit: number | 'all'): SourceItemsText[] {
  const figures = reportFigures(report);
  return figures.rows.flatMap((row) => {
    const s = row.source;
    if (!s || s.itemCount === 0) return [];
    const shown = limit === 'all' ? s.items : s.items.slice(0, limit);
    return [
      {
        key: s.id,
        heading: `${s.label} — top ${shown.length} of ${s.itemCount}`,
        folders: folderLines(s),
        rows: shown.map((item) => itemRow(item, s, figures)),
        hidden: s.itemCount - shown.length,
        details: shown.filter((item) => item.runtime || item.subagent),
      },
    ];
  });
}

/** The largest items across every source (the web's and the Markdown export's list, the MCP's). */
export function largestItemRows(report: ContextReport, count: number): ItemRowText[] {
  const figures = reportFigures(report);
  return largestItems(report, count).map(({ item, source }) => itemRow(item, source, figures));
}

/** The web's footnote, word for word: "Read more than once: 4 files — 4 extra reads repeat 2,313 tokens." */
function duplicatesText(report: ContextReport, estimatesOnly: boolean): string | null {
  const d = report.duplicates;
  if (d.extraReads <= 0) return null;
  const repeated =
    estimatesOnly || d.repeatedScaledTokens === null
      ? `≈${fmt(d.repeatedEstimatedTokens)}`
      : fmt(d.repeatedScaledTokens);
  return `Read more than once: ${plural(d.files, 'file')} — ${plural(d.extraReads, 'extra read')} repeat${d.extraReads === 1 ? 's' : ''} ${repeated} tokens.`;
}

/** "Candidate skill cache" + " — 4.1 KB, 13 entries. Cached candidates, …" (the web's fine print). */
function excludedText(e: ContextReport['excluded'][number]): ExcludedText {
  const count = e.count === undefined ? '' : `, ${fmt(e.count)} ${e.count === 1 ? 'entry' : 'entries'}`;
  return { label: e.label, rest: ` — ${fmtBytes(e.bytes)}${count}. ${numbersInText(e.reason)}` };
}

function pendingText(report: ContextReport): ReportText['pending'] {
  const pending = report.pending;
  if (!pending || pending.itemCount === 0) return null;
  return {
    line: `${pending.label} — not in the total yet: ${plural(pending.itemCount, 'item')}, ≈${fmt(pending.estimatedTokens)} estimated tokens`,
    items: pending.items.map((item) => `${item.label} (≈${fmt(item.estimatedTokens)})`),
  };
}

function costText(report: ContextReport): ReportText['cost'] {
  const headline = costHeadline(report);
  if (!headline) return null;
  return { headline, saved: cacheSavingsText(report), outside: costOutsideText(report) };
}

/** The report's words, once, for every view. */
export function reportText(report: ContextReport): ReportText {
  const figures = reportFigures(report);
  const approx = figures.estimatesOnly ? '≈' : '';
  const empty = figures.empty.filter((row) => row.source);
  return {
    figures,
    approx,
    verdict: verdictText(report),
    ...sourceRows(figures, approx, report.actual !== null),
    empty: empty.length ? `Nothing in context from ${empty.map((r) => r.label).join(', ')}.` : null,
    remainders: figures.rows.flatMap((row) =>
      row.remainder ? [`${row.label}: ${fmt(row.tokens)} tokens — ${numbersInText(row.remainder.reason)}`] : [],
    ),
    pending: pendingText(report),
    runtimeChanges: (runtimeFigures(report)?.changes ?? []).map((change) => `${runtimeChangeText(change)}.`),
    jumps: biggestJumps(report.timeline ?? []).map(jumpText),
    duplicates: duplicatesText(report, figures.estimatesOnly),
    suggestions: report.suggestions.map((s) => suggestionText(report, s)),
    cost: costText(report),
    excluded: report.excluded.map(excludedText),
    notes: report.notes.map(numbersInText),
    warnings: report.warnings,
  };
}

/** A task call's subagent in words: whom it went to and what its session reached (or that it is not stored here). */
export function subagentText(item: ReportItem): string | null {
  const sub = item.subagent;
  if (!sub) return null;
  const who = sub.agent ? `the ${sub.agent} subagent` : 'a subagent';
  if (!sub.stored) return `${item.label}: handed to ${who}, whose session ${sub.sessionId} is not stored here`;
  const total =
    typeof sub.total === 'number'
      ? `reached ${fmt(sub.total)} tokens in ${plural(sub.calls ?? 0, 'call')}`
      : 'has no measured call';
  const largest = sub.largest?.length
    ? `; largest: ${sub.largest.map((l) => `${l.label} ${fmt(l.tokens)}`).join(', ')}`
    : '';
  return `${item.label}: handed to ${who}; its session ${total}${largest}`;
}

const present = (sentences: (string | null | undefined)[]): string[] =>
  sentences.filter((sentence): sentence is string => !!sentence);

/**
 * The sentences every view says, the compact MCP summary included: the verdict and its facts,
 * each suggestion's title and what it frees, the rows' labels, the empty sources, the repeated
 * reads, the cost's headline and what cost money with nothing in context now.
 */
export function sharedSentences(text: ReportText): string[] {
  const action = text.verdict.action;
  return present([
    ...text.verdict.lead,
    action?.title,
    action?.frees,
    ...text.verdict.facts,
    ...text.suggestions.flatMap((s) => [s.title, s.frees]),
    ...text.sourceRows.map((row) => row.label),
    text.empty,
    text.duplicates,
    text.cost?.headline,
    text.cost?.outside,
  ]);
}

/** Every sentence of the full report: the CLI and the Markdown export say each of these. */
export function fullSentences(text: ReportText): string[] {
  return present([
    ...sharedSentences(text),
    ...text.remainders,
    text.pending?.line,
    ...text.runtimeChanges,
    ...text.jumps,
    ...text.suggestions.flatMap((s) => [s.detail, s.change?.lead]),
    text.cost?.saved,
    ...text.excluded.map((e) => e.label + e.rest),
    ...text.notes,
  ]);
}
