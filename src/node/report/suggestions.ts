/**
 * Suggestions from the report's own figures, never guesses: the same content read again, one
 * item dominating the used context, pruned outputs, a nearly full window, and skills loaded but
 * never named since. Pure.
 */
import { fmt, fmtBytes } from '../../shared/format';
import type { Suggestion } from '../../shared/wire';
import type { Contribution, Omissions } from './attribute';
import type { DuplicateMark, ReportInput } from './build-report';
import { itemId, percentOfWindow, round2, sum } from './figures';

/** One item above this share of the used context is worth a look. */
export const LARGE_ITEM_PERCENT = 20;
/** Above this share of the window, compaction is near. */
export const NEAR_COMPACTION_PERCENT = 80;

export interface SuggestFacts {
  input: ReportInput;
  contributions: Contribution[];
  duplicates: Map<Contribution, DuplicateMark>;
  scaledById: Map<Contribution, number>;
  omissions: Omissions;
  used: number | null;
}

/** Advice from the figures at hand: repeated reads, one dominant item, pruning, a full window, idle skills. */
export function suggest({ input, contributions, duplicates, scaledById, omissions, used }: SuggestFacts): Suggestion[] {
  const out: Suggestion[] = [];
  const tokensOf = (c: Contribution) =>
    used === null ? `≈${fmt(c.tokens)} estimated tokens` : `≈${fmt(scaledById.get(c) ?? 0)} tokens`;

  const groups = new Map<string, Contribution[]>();
  for (const [c] of duplicates) {
    const group = groups.get(c.readKey!);
    if (group) group.push(c);
    else groups.set(c.readKey!, [c]);
  }
  for (const group of groups.values()) {
    const extra = group.slice(1);
    const repeated = sum(extra.map((c) => c.tokens));
    const repeatedScaled = used === null ? null : sum(extra.map((c) => scaledById.get(c) ?? 0));
    const what = group[0]!.path ?? group[0]!.label;
    out.push({
      kind: 'duplicate_read',
      severity: 'warning',
      title: `${what} is in context ${group.length} times`,
      detail: `The same content was read ${group.length} times; the ${extra.length === 1 ? 'extra read repeats' : `${extra.length} extra reads repeat`} ≈${fmt(repeated)} estimated tokens${repeatedScaled === null ? '' : ` (≈${fmt(repeatedScaled)} of the used context)`}. Ask the agent to refer to the earlier read instead of reading again.`,
      itemIds: group.map((c) => itemId(c.sourceRef)),
      figures: {
        reads: group.length,
        repeatedEstimatedTokens: repeated,
        ...(repeatedScaled === null ? {} : { repeatedScaledTokens: repeatedScaled }),
      },
    });
  }

  if (used !== null && used > 0) {
    for (const c of contributions) {
      const share = ((scaledById.get(c) ?? 0) / used) * 100;
      if (share <= LARGE_ITEM_PERCENT) continue;
      out.push({
        kind: 'large_item',
        severity: 'warning',
        title: `${c.label} is ${share.toFixed(1)}% of the used context`,
        detail: `One item holds ${tokensOf(c)} of ${fmt(used)}. If only part of it is needed, a narrower read (a range, a grep) keeps the rest out.`,
        itemIds: [itemId(c.sourceRef)],
        figures: { percentOfUsed: round2(share), scaledTokens: scaledById.get(c) ?? 0, estimatedTokens: c.tokens },
      });
    }
  }

  if (omissions.prunedOutputs.count > 0) {
    out.push({
      kind: 'pruned_outputs',
      severity: 'info',
      title: `${omissions.prunedOutputs.count} tool output${omissions.prunedOutputs.count === 1 ? ' was' : 's were'} pruned`,
      detail: `OpenCode cleared ${fmtBytes(omissions.prunedOutputs.bytes)} of old tool output to make room; the model now sees a placeholder. If the agent needs that output again it has to re-run the tool.`,
      itemIds: [],
      figures: { count: omissions.prunedOutputs.count, bytes: omissions.prunedOutputs.bytes },
    });
  }

  const usage = input.usage;
  const windowPercent = usage ? percentOfWindow(usage) : null;
  if (usage && windowPercent !== null && windowPercent >= NEAR_COMPACTION_PERCENT) {
    out.push({
      kind: 'near_compaction',
      severity: 'warning',
      title: `The context window is ${windowPercent.toFixed(1)}% full: compaction is near`,
      detail: `${fmt(usage.contextUsed)} of ${fmt(usage.contextSize)} tokens are used. When the window fills, OpenCode compacts the history into a summary and the details above leave the context.`,
      itemIds: [],
      figures: { percent: windowPercent, contextUsed: usage.contextUsed, contextSize: usage.contextSize ?? 0 },
    });
  }

  // A skill loaded and then never named again by anyone: its body may be dead weight.
  const lastMention = new Map<string, number>();
  input.messages.forEach(({ analysis }, index) => analysis.mentions.forEach((name) => lastMention.set(name, index)));
  const latestLoad = new Map<string, { load: Contribution; index: number; count: number }>();
  input.messages.forEach(({ analysis }, index) => {
    for (const load of analysis.contributions.filter((c) => c.readKey?.startsWith('skill:'))) {
      const name = load.readKey!.slice('skill:'.length);
      latestLoad.set(name, { load, index, count: (latestLoad.get(name)?.count ?? 0) + 1 });
    }
  });
  for (const [name, { load, index, count }] of latestLoad) {
    const laterMessages = input.messages.length - index - 1;
    if (laterMessages === 0 || (lastMention.get(name) ?? -1) > index) continue;
    out.push({
      kind: 'unused_skill',
      severity: 'info',
      title: `Skill ${name} was loaded but not referenced since`,
      detail: `${count > 1 ? `Its latest of ${count} loads` : 'Loading it'} put ${tokensOf(load)} in context; no later message names it in ${laterMessages} message${laterMessages === 1 ? '' : 's'}.`,
      itemIds: [itemId(load.sourceRef)],
      figures: {
        estimatedTokens: load.tokens,
        loads: count,
        laterMessages,
        ...(used === null ? {} : { scaledTokens: scaledById.get(load) ?? 0 }),
      },
    });
  }
  return out;
}
