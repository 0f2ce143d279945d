/**
 * Changes that free what is already in the history — the only ones that do: content stays in
 * the prompt until a compaction, a revert or a new session removes it (contract §7). Each
 * figure is now minus the prompt the runtime would send next with the change made, built
 * through its own request view (`ReportInput.next`): the messages it keeps carry their items,
 * the rest leaves, with the hidden reasoning their calls kept; what the change adds (the
 * summary, the compaction request, the hand-off) is counted back in. Pure.
 */
import { fmt } from '../../shared/format';
import { chars4Estimator } from './estimate';
import { itemId, percentOf, sum } from './figures';
import type { Counted, ReportInput, SuggestionDraft } from './types';

const estimateChars = (text: string): number => chars4Estimator.count(text);
/** One item above this share of the used context is worth a revert. */
const LARGE_ITEM_PERCENT = 20;

/** Without an earlier summary to go by: a summary of OpenCode's five-section template, estimated. */
export const SUMMARY_FALLBACK = 2_000;
/** Below this share of the used context, what a history change frees is not worth its loss. */
const WORTH_PERCENT = 10;

interface HistoryFacts {
  input: ReportInput;
  counted: readonly Counted[];
  used: number | null;
}

/** Tokens of each message in view (its items' figures), and the hidden reasoning by the message that kept it. */
function messageTokens({ input, counted }: HistoryFacts) {
  const byMessage = new Map<string, number>();
  const estimates = new Map<string, number>();
  for (const c of counted) {
    const id = c.item.messageId;
    if (!id) continue;
    byMessage.set(id, (byMessage.get(id) ?? 0) + (c.scaled ?? c.item.tokens));
    estimates.set(id, (estimates.get(id) ?? 0) + c.item.tokens);
  }
  const hidden = input.calibration.mode === 'measured' ? input.calibration.hidden.calls : [];
  const dropped = (kept: ReadonlySet<string>) =>
    sum([...byMessage].filter(([id]) => !kept.has(id)).map(([, t]) => t)) +
    sum(hidden.filter((h) => !kept.has(h.messageId)).map((h) => h.tokens));
  const keptTokens = (kept: ReadonlySet<string>) => sum([...kept].map((id) => byMessage.get(id) ?? 0));
  return { dropped, keptTokens, estimateOf: (id: string) => estimates.get(id) ?? 0 };
}

export function historyChanges(facts: HistoryFacts): SuggestionDraft[] {
  const { input, used } = facts;
  const next = input.next;
  if (!next || used === null || used <= 0 || next.messages.length === 0) return [];
  const worth = (tokens: number) => (percentOf(tokens, used) ?? 0) >= WORTH_PERCENT;
  return [compactNow(facts), newSession(facts), revertRead(facts)].filter(
    (d): d is SuggestionDraft => d !== null && worth(d.tokens),
  );
}

/** The summary's size: the session's own earlier summaries (their mean), else the template's estimate. */
function summaryEstimate(
  summaries: readonly number[],
  fallback?: { tokens: number; basis: string },
): { tokens: number; basis: string } {
  if (summaries.length === 0 && fallback) return fallback;
  if (summaries.length === 0)
    return {
      tokens: SUMMARY_FALLBACK,
      basis: `no earlier summary in this session to go by: ≈${fmt(SUMMARY_FALLBACK)} tokens for a summary of OpenCode's five-section template`,
    };
  const tokens = Math.round(sum([...summaries]) / summaries.length);
  return {
    tokens,
    basis: `the summary estimated at ${fmt(tokens)} tokens, ${summaries.length === 1 ? "the size of this session's earlier summary" : `the mean of this session's ${summaries.length} earlier summaries`}`,
  };
}

function compactNow(facts: HistoryFacts): SuggestionDraft | null {
  const { input, used } = facts;
  const next = input.next!;
  const tokens = messageTokens(facts);
  const preserve = next.preserveRecent(input.window?.usable ?? null);
  const view = next.afterCompaction(tokens.estimateOf, preserve);
  const kept = new Set(view.kept);
  // A runtime whose summary nothing bounds before its first one gets no figure until then.
  if (next.summaries.length === 0 && next.summaryFallback === null) return null;
  const summary = summaryEstimate(next.summaries, next.summaryFallback ?? undefined);
  const request = estimateChars(next.compactionRequestText);
  const frees = tokens.dropped(kept) - summary.tokens - request;
  if (frees <= 0) return null;
  const history = sum(next.messages.map((m) => tokens.keptTokens(new Set([m.id]))));
  const tail = tokens.keptTokens(kept);
  const name = input.runtime.name;
  return {
    kind: 'compact_now',
    severity: 'info',
    title: 'Compact the session now',
    detail: `The next call carries ${fmt(used! - frees)} tokens instead of ${fmt(used!)}: ${name} summarises the history and keeps ${view.tailStartId ? `its latest turns (${fmt(tail)} tokens, up to its ${fmt(preserve)}-token budget for recent turns)` : 'no turn of it verbatim'}; everything older leaves the prompt. ${capitalise(summary.basis)}. The details of what leaves are gone for the agent: it keeps what the summary says.`,
    itemIds: [],
    figures: { summaryTokens: summary.tokens, keptTokens: tail, preserveRecent: preserve },
    tokens: frees,
    estimate: true,
    horizon: 'history',
    once: {
      uncached: summary.tokens + request + tail,
      call: { input: history, output: summary.tokens },
      basis: `the summary call reads the ${fmt(history)}-token history uncached and writes the summary; the next call reads the summary and the kept turns uncached`,
    },
    change: {
      kind: 'compact',
      text: `Compact the session now (${name}'s summarize; /compact in its own interface).`,
    },
  };
}

function newSession(facts: HistoryFacts): SuggestionDraft | null {
  const { input, counted, used } = facts;
  const tokens = messageTokens(facts);
  const handOff = handOffText(input, counted);
  const handOffTokens = estimateChars(handOff);
  const frees = tokens.dropped(new Set(input.next!.afterNewSession?.().kept ?? [])) - handOffTokens;
  if (frees <= 0) return null;
  return {
    kind: 'new_session',
    severity: 'info',
    title: 'Start a new session with a hand-off',
    detail: `The next call carries ${fmt(used! - frees)} tokens instead of ${fmt(used!)}: ${input.runtime.name}'s own prompt, the instructions and the hand-off (what was found, the files that matter).`,
    itemIds: [],
    figures: { handOffTokens },
    tokens: frees,
    horizon: 'history',
    once: {
      uncached: handOffTokens,
      basis: 'only the hand-off is new: the runtime prompt and instructions before it stay cached',
    },
    change: { kind: 'new_session', text: handOff },
  };
}

/**
 * Revert to before the turn that brought the largest item in, when that item is at least half of
 * what the revert drops (else it would throw away more work than the read it removes).
 */
function revertRead(facts: HistoryFacts): SuggestionDraft | null {
  const { input, counted, used } = facts;
  const next = input.next!;
  const large = counted
    .filter((c) => c.item.messageId && c.scaled !== null && (percentOf(c.scaled, used) ?? 0) > LARGE_ITEM_PERCENT)
    .sort((a, b) => b.scaled! - a.scaled!)[0];
  if (!large) return null;
  const at = next.messages.findIndex((m) => m.id === large.item.messageId);
  let turn = at;
  while (turn > 0 && next.messages[turn]!.role !== 'user') turn--;
  const target = next.messages[turn];
  const view = target && next.afterRevert(target.id);
  // A revert to before a compaction brings its history back: not a change that frees.
  const inView = new Set(next.messages.map((m) => m.id));
  if (!view || !view.kept.every((id) => inView.has(id))) return null;
  const tokens = messageTokens(facts);
  const frees = tokens.dropped(new Set(view.kept));
  if (large.scaled! * 2 < frees) return null;
  const lostMessages = next.messages.length - turn;
  const lost = frees - large.scaled!;
  return {
    kind: 'revert_read',
    severity: 'info',
    title: `Revert to before ${large.item.label}`,
    detail: `The next call carries ${fmt(used! - frees)} tokens instead of ${fmt(used!)}: ${input.runtime.name} drops the history from the message that asked for it on: ${fmt(lostMessages)} message${lostMessages === 1 ? '' : 's'}, the read and ${fmt(lost)} tokens of later work (replies, tool results), and undoes the file changes made since. Ask again with a narrower read.`,
    itemIds: [itemId(large.item.sourceRef)],
    figures: { lostMessages, lostTokens: lost, itemTokens: large.scaled! },
    tokens: frees,
    horizon: 'history',
    once: { uncached: 0, basis: 'the prompt before the reverted message stays cached' },
    change: {
      kind: 'revert',
      messageId: target.id,
      text: `Revert the session to before message ${target.id} (the turn that read ${large.item.path ?? large.item.label}).`,
    },
  };
}

/** What a new session starts with: what was found so far and the files that matter, by name. */
export function handOffText(input: ReportInput, counted: readonly Counted[]): string {
  const files = new Map<string, number>();
  for (const c of counted)
    if (c.item.path && c.item.messageId)
      files.set(c.item.path, Math.max(files.get(c.item.path) ?? 0, c.scaled ?? c.item.tokens));
  const named = [...files]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(
      ([path, t]) =>
        `- ${path}${t > 2_000 ? ` (large: ${fmt(t)} tokens — search it, read only the lines you need)` : ''}`,
    );
  const found = input.latestReply ? clip(input.latestReply, 1_500) : null;
  return [
    `This continues an earlier session${input.sessionId ? ` (${input.sessionId})` : ''} in this workspace.`,
    ...(found ? ['', 'What was found so far (the last reply there):', found] : []),
    ...(named.length ? ['', 'The files that mattered (read them again only as needed):', ...named] : []),
    '',
    'Carry on from there.',
  ].join('\n');
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max).trimEnd()}…`);
const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
