/**
 * Suggestions from the report's own figures, never guesses, ordered by what acting on each frees
 * from every later model call (largest first: `suggestions[0]` is the verdict's action): the same
 * content read again and one item dominating the context (read-advice.ts), the tools never
 * called and skills loaded but never used (unused-advice.ts), and two notices that free nothing
 * themselves — a nearly full window, pruned outputs. Each with its change. Pure.
 */
import { fmt, fmtBytes } from '../../shared/format';
import type { Frees, Suggestion } from '../../shared/wire';
import type { Counted, Item, ReportInput, SuggestionDraft } from './types';
import type { DuplicateMark } from './duplicates';
import { percentOf, percentOfWindow } from './figures';
import { duplicateReads, largeItems } from './read-advice';
import { unusedSkills, unusedTools } from './unused-advice';

export { LARGE_ITEM_PERCENT } from './read-advice';

/** Above this share of the window, compaction is near. */
export const NEAR_COMPACTION_PERCENT = 80;

export interface SuggestFacts {
  input: ReportInput;
  counted: readonly Counted[];
  duplicates: Map<Item, DuplicateMark>;
  used: number | null;
}

export function suggest(facts: SuggestFacts): Suggestion[] {
  const { input, used } = facts;
  const drafts: SuggestionDraft[] = [
    ...duplicateReads(facts),
    ...largeItems(facts),
    ...unusedTools(input),
    ...unusedSkills(input, facts.counted),
    ...notices(input),
  ];
  const cost = input.calibration.cost;
  // Money per call only where the calls were priced: at what a carried token cost in the latest one.
  const rate = cost && cost.total !== null ? cost.perCallRate : null;
  const out = drafts.map(({ tokens, upTo, change, ...rest }): Suggestion => {
    const frees: Frees = {
      tokens,
      percentOfUsed: percentOf(tokens, used),
      ...(upTo ? { upTo: true } : {}),
      ...(rate !== null && tokens > 0 ? { costPerCall: Math.round(tokens * rate * 1e6) / 1e6 } : {}),
    };
    return { ...rest, frees, ...(change ? { change } : {}) };
  });
  // The one order every view leads with: what it frees, largest first (stable: ties keep the kinds' order).
  return out.sort((a, b) => b.frees.tokens - a.frees.tokens);
}

/** What frees nothing by itself but is worth knowing: the window nearly full, outputs pruned. */
function notices(input: ReportInput): SuggestionDraft[] {
  const out: SuggestionDraft[] = [];
  const usage = input.usage;
  const windowPercent = usage ? percentOfWindow(usage) : null;
  if (usage && windowPercent !== null && windowPercent >= NEAR_COMPACTION_PERCENT) {
    out.push({
      kind: 'near_compaction',
      severity: 'warning',
      title: `The context window is ${windowPercent.toFixed(1)}% full: compaction is near`,
      detail: `${fmt(usage.contextUsed)} of ${fmt(usage.contextSize)} tokens are used. When the window fills, ${input.runtime.name} compacts the history into a summary and the details above leave the context.`,
      itemIds: [],
      figures: { percent: windowPercent, contextUsed: usage.contextUsed, contextSize: usage.contextSize ?? 0 },
      tokens: 0,
    });
  }
  const pruned = input.omissions.prunedOutputs;
  if (pruned.count > 0) {
    out.push({
      kind: 'pruned_outputs',
      severity: 'info',
      title: `${pruned.count} tool output${pruned.count === 1 ? ' was' : 's were'} pruned`,
      detail: `${input.runtime.name} cleared ${fmtBytes(pruned.bytes)} of old tool output to make room; the model now sees a placeholder. If the agent needs that output again it has to re-run the tool.`,
      itemIds: [],
      figures: { count: pruned.count, bytes: pruned.bytes },
      tokens: 0,
    });
  }
  return out;
}
