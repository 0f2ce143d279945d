/**
 * Suggestions from the report's own figures, never guesses (contract §7): each says what its
 * change takes out of the prompt the runtime would send next (`frees`; 0 for a change that
 * only prevents later growth, which goes to `avoids`), what it costs once and when it pays
 * back (price.ts). The changes that free what is already there — compact, a new session, a
 * revert (history-advice.ts) —, the configuration (unused-advice.ts), the same content read
 * again and one large item (read-advice.ts), and two notices. Ordered by what they free, then
 * what they avoid, those that will not pay back last: `suggestions[0]` is the verdict's action.
 * A report as of an earlier call, or of a session with no live agent, offers no live change. Pure.
 */
import { fmt, fmtBytes } from '../../shared/format';
import type { Change, Frees, Suggestion } from '../../shared/wire';
import type { Counted, Item, ReportInput, SuggestionDraft } from './types';
import type { DuplicateMark } from './duplicates';
import { callsLeft } from './calls-left';
import { percentOf, percentOfWindow } from './figures';
import { historyChanges } from './history-advice';
import { priceOf, type PriceFacts } from './price';
import { duplicateReads, largeItems } from './read-advice';
import { unusedSkills, unusedTools } from './unused-advice';

export { LARGE_ITEM_PERCENT } from './read-advice';

/** Above this share of the window, compaction is near. */
export const NEAR_COMPACTION_PERCENT = 80;

/**
 * The agent routes that make a change on the live agent (server/agent-routes.ts), by change kind.
 * No revert: OpenCode 1.18.33's ACP agent has no way to revert a session (its serve API's
 * revert is not reachable through ACP), so a revert stays advice to make by hand.
 */
export const LIVE_ROUTES: Partial<Record<Change['kind'], string>> = { compact: 'compact', new_session: 'new-session' };

export interface SuggestFacts {
  input: ReportInput;
  counted: readonly Counted[];
  duplicates: Map<Item, DuplicateMark>;
  used: number | null;
}

export function suggest(facts: SuggestFacts): Suggestion[] {
  const { input, used } = facts;
  const drafts: SuggestionDraft[] = [
    ...historyChanges(facts),
    ...duplicateReads(facts),
    ...largeItems(facts),
    ...unusedTools(input),
    ...unusedSkills(input, facts.counted),
    ...notices(input),
  ];
  const cost = input.calibration.cost;
  // Money per call only where the calls were priced: at what a carried token cost in the latest one.
  const rate = cost && cost.total !== null ? cost.perCallRate : null;
  const priceFacts = priceFactsOf(input, used, rate);
  const out = drafts.map(({ tokens, upTo, estimate, once, horizon, change, ...rest }): Suggestion => {
    const frees: Frees = {
      tokens,
      percentOfUsed: percentOf(tokens, used),
      ...(upTo ? { upTo: true } : {}),
      ...(estimate ? { estimate: true } : {}),
      ...(rate !== null && tokens > 0 ? { costPerCall: Math.round(tokens * rate * 1e6) / 1e6 } : {}),
    };
    const priced = priceOf({ tokens, once, horizon }, priceFacts);
    const note = change ? readOnlyNote(change, input) : '';
    return {
      ...rest,
      detail: note ? `${rest.detail} ${note}` : rest.detail,
      frees,
      ...priced,
      ...(change ? { change: offered(change, input) } : {}),
    };
  });
  // The one order every view leads with (stable: ties keep the kinds' order).
  const lasts = (s: Suggestion) => (s.paysBack === false ? 1 : 0);
  return out.sort(
    (a, b) =>
      lasts(a) - lasts(b) || b.frees.tokens - a.frees.tokens || (b.avoids?.tokens ?? 0) - (a.avoids?.tokens ?? 0),
  );
}

function priceFactsOf(input: ReportInput, used: number | null, rate: number | null): PriceFacts {
  const asOf = input.asOf?.call;
  const timeline =
    asOf === undefined ? input.calibration.timeline : input.calibration.timeline.filter((p) => p.call <= asOf);
  const left = used === null ? null : callsLeft(timeline, input.window, used, input.runtime.name).callsLeft;
  return {
    prices: input.calibration.cost?.prices ?? null,
    perCallRate: rate,
    callsSoFar: timeline.length,
    callsLeft: left,
  };
}

/** Whether this report can make a change on the live agent: the latest call of a session an ACP agent runs. */
const isLive = (input: ReportInput): boolean =>
  !input.asOf && input.usage !== null && input.usage.source !== 'provider' && !input.parentSessionId;

/** The change as this report can offer it: on the live agent, with the route that makes it. */
function offered(change: Change, input: ReportInput): Change {
  const route = LIVE_ROUTES[change.kind];
  if (!isLive(input) || !route || !input.sessionId) return change;
  if (input.runtime.advice?.byHand?.notLive.includes(change.kind)) return change;
  return {
    ...change,
    request: {
      method: 'POST',
      path: `/api/workspace/${encodeURIComponent(input.workspaceId)}/agent/${route}`,
      body: {
        sessionId: input.sessionId,
        ...(change.kind === 'revert' && change.messageId ? { messageId: change.messageId } : {}),
        ...(change.kind === 'new_session' ? { text: change.text } : {}),
      },
    },
  };
}

/**
 * What a read-only report says of a change (its text stays as it is, to copy): as of an earlier
 * call, that the figures are what it would have done then; with no live agent (an import), how
 * to make it in one's own OpenCode.
 */
function readOnlyNote(change: Change, input: ReportInput): string {
  if (input.asOf)
    return `As of call ${fmt(input.asOf.call)}: this is what the change would have done then; the session has moved on since, so nothing here is offered to do now.`;
  const byHand = input.runtime.advice?.byHand;
  if (isLive(input)) return byHand?.notLive.includes(change.kind) ? (byHand.own[change.kind] ?? '') : '';
  return byHand ? (byHand.own[change.kind] ?? '') : (OWN_RUNTIME[change.kind] ?? '');
}

/** For a session with no live agent here: how to make the change in one's own OpenCode. */
const OWN_RUNTIME: Partial<Record<Change['kind'], string>> = {
  compact: 'No live agent here: in your own OpenCode, open this session and type /compact.',
  new_session: 'No live agent here: in your own OpenCode, type /new and send the hand-off as the first message.',
  revert:
    'No live agent here: in your own OpenCode, open this session and revert to that message (/undo reverts the latest message; the session timeline reverts to an earlier one).',
};

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
