/**
 * The calibration's small pure steps (core/calibrate.ts runs them, through the walk in
 * calibration-walk.ts): whether a growth is plausible for its estimate, how a call's measured
 * growth is shared among the items it added, the runtime measured as what a prompt holds beyond
 * what the server sees, why the runtime may have changed since the previous call (the switch
 * that makes it be measured again), and the hidden reasoning a call produced. Each is tested on
 * its own (test/node/calibration-steps.test.ts).
 */
import { SOURCE_IDS, type SourceId } from '../../shared/sources';
import { apportion } from './apportion';
import type { Item, ModelCall, ReasoningPolicy, RuntimeBound } from './types';

/** Hidden reasoning below this is not told apart from the estimates' own error. */
export const MIN_HIDDEN = 64;
/** Visible reasoning below this is not weighed (received or not). */
export const MIN_REASONING = 48;

/** What the calibration expects of a provider until its counts say otherwise. */
export const DEFAULT_POLICY: ReasoningPolicy = {
  keepsHidden: true,
  dropsAtTurn: false,
  receives: true,
  reasoningTurnOnly: false,
};

/**
 * The calls that get a number — `?call=N`, `--call N`, the picker and the timeline all count
 * these: the session's model calls that measured a prompt (compactions, and calls that failed
 * or were stopped before the provider counted anything, have none). Call N is the N-th of them.
 */
export const numberedCalls = (calls: readonly ModelCall[]): ModelCall[] =>
  calls.filter((c) => !c.compaction && c.prompt !== null);

/** Growth this far from the estimate is not the new items' cost. */
export function plausible(measured: number, estimated: number): boolean {
  return measured >= 0 && measured >= estimated / 2 - 64 && measured <= estimated * 2 + 64;
}

export const emptyBySource = (): Record<SourceId, number> =>
  Object.fromEntries(SOURCE_IDS.map((id) => [id, 0])) as Record<SourceId, number>;

/** Whether an item is in the form the view holds at `at` (a pruned output's two forms). */
export const isInForm = (item: Item, at: number): boolean =>
  (item.from === undefined || item.from < at) && (item.until === undefined || item.until >= at);

export const sumTokens = (items: readonly Item[]): number => items.reduce((n, i) => n + i.tokens, 0);

/** What each item is assigned, and on what basis. */
export type Assignment = { item: Item; tokens: number; basis: 'measured' | 'estimated' };

/** Items share `total` by their estimates (nothing below zero). */
export function shareByEstimate(items: readonly Item[], total: number, basis: 'measured' | 'estimated'): Assignment[] {
  const parts = apportion(
    Math.max(0, total),
    items.map((i) => i.tokens),
  );
  return items.map((item, k) => ({ item, tokens: parts[k]!, basis }));
}

/**
 * The runtime measured as what the prompt holds beyond what is seen (`left`), the new items at
 * their estimates — or, when they alone outweigh what is left, shrunk to fit it and the runtime 0.
 */
export function runtimeBeyond(items: readonly Item[], left: number): { overhead: number; assigned: Assignment[] } {
  const estimated = sumTokens(items);
  if (left >= estimated)
    return { overhead: left - estimated, assigned: shareByEstimate(items, estimated, 'estimated') };
  return { overhead: 0, assigned: shareByEstimate(items, left, 'estimated') };
}

/** How a call's growth (`share`, what it measured beyond everything carried) went to its new items. */
export interface GrowthShare {
  assigned: Assignment[];
  /** What nothing explains, added by this call (may be negative). */
  unexplained: number;
  basis: 'measured' | 'estimated';
  /** Whether the call shows what nothing explains (the timeline's event). */
  unexplainedEvent: boolean;
}

/**
 * A call's measured growth shared among the items it added: by their estimates where the growth
 * is plausible for them; an image takes what the rest does not explain; growth below the
 * estimate shrinks them; growth beyond any reading leaves them at their estimates, the rest
 * unexplained — never inside them. `unexplainedBefore` < 0 (the prompts fell earlier by what
 * nothing explained): a growth beyond the estimate undoes that fall first.
 */
export function shareGrowth(added: readonly Item[], growth: number, unexplainedBefore: number): GrowthShare {
  const estimated = sumTokens(added);
  if (added.length === 0)
    return { assigned: [], unexplained: growth, basis: 'estimated', unexplainedEvent: growth !== 0 };
  let share = growth;
  let unexplained = 0;
  if (!plausible(share, estimated) && unexplainedBefore < 0 && share > estimated) {
    const rebound = Math.min(share - estimated, -unexplainedBefore);
    unexplained += rebound;
    share -= rebound;
  }
  const unexplainedEvent = unexplained !== 0;
  const measured = (assigned: Assignment[]): GrowthShare => ({
    assigned,
    unexplained,
    basis: 'measured',
    unexplainedEvent,
  });
  const rough = added.some((i) => i.rough);
  if (plausible(share, estimated) || (rough && share >= 0)) return measured(shareByEstimate(added, share, 'measured'));
  const vision = added.reduce((n, i) => n + (i.vision ?? 0), 0);
  // An image: the provider charged what the rest does not explain.
  if (vision > 0 && share > estimated - vision) return measured(shareWithImages(added, share));
  // Less than half the estimate (an estimator that overcounts this text): the measured growth, shrunk.
  if (share > 0 && share < estimated) return measured(shareByEstimate(added, share, 'measured'));
  return {
    assigned: shareByEstimate(added, estimated, 'estimated'),
    unexplained: unexplained + share - estimated,
    basis: 'estimated',
    unexplainedEvent: true,
  };
}

/** Images take what the other items (at their estimates) leave of the growth. */
function shareWithImages(items: readonly Item[], total: number): Assignment[] {
  const text = items.filter((i) => !i.vision);
  const images = items.filter((i) => i.vision);
  const textTokens = sumTokens(text);
  const parts = apportion(
    total - textTokens,
    images.map((i) => i.tokens),
  );
  return [
    ...shareByEstimate(text, textTokens, 'estimated'),
    ...images.map((item, k) => ({ item, tokens: parts[k]!, basis: 'measured' as const })),
  ];
}

/**
 * Why the runtime may have changed since the previous call — the switch that has it measured
 * again: another agent, model, tool set or system prompt by the rows, or a file the runtime puts
 * in every request changed on disk between the calls; null when nothing says so.
 */
export function runtimeSwitch(
  previousKey: string | null,
  call: Pick<ModelCall, 'runtime' | 'time'>,
  previousTime: number,
  changes: readonly { at: number; what: string; reason?: string }[],
): string | null {
  if (previousKey === null) return null;
  if (call.runtime !== previousKey) {
    const [agent, model, asked] = JSON.parse(call.runtime) as [unknown, unknown, unknown];
    const [agent0, model0] = JSON.parse(previousKey) as [unknown, unknown, unknown];
    if (agent !== agent0) return 'another agent';
    if (model !== model0) return 'another model';
    return asked ? ASKED_TOOLS : DEFAULT_TOOLS;
  }
  const changed = changes.find((c) => c.at > previousTime && c.at <= call.time);
  return changed ? (changed.reason ?? `${changed.what}${ON_DISK}`) : null;
}

const ASKED_TOOLS = 'other tools or system prompt asked for';
const DEFAULT_TOOLS = 'tools or system prompt back to the defaults';
const ON_DISK = ' changed on disk';

/**
 * Whether the definitions recorded for an agent and model describe the runtime after this
 * switch: another agent or model, or the recorded definitions' own change — not tools or a
 * system prompt a user message asked for, nor a file changed on disk, which they do not show.
 */
export function describedByDefinitions(change: string): boolean {
  return change !== ASKED_TOOLS && change !== DEFAULT_TOOLS && !change.endsWith(ON_DISK);
}

/**
 * How far a re-measured runtime may be from what it is made of: the recorded definitions'
 * estimate within ±25 % (their parts, in the report's tokenizer, came within 11 % of every
 * recorded request — the Claude table the farthest); with nothing recorded, the runtime before
 * the switch within half to twice (+1,000) of it — another agent or model of the same runtime
 * changes its prompt and tools, not its kind (the public plan ↔ build switches move it by −300 to
 * +500, a model switch by up to +4,536 of 10,648).
 */
export const RUNTIME_TOLERANCE = {
  recorded: { low: 0.75, high: 1.25, slack: 0 },
  before: { low: 0.5, high: 2, slack: 1000 },
} as const;

/**
 * A re-measured runtime held to what it is made of: it stands when it agrees (within the
 * tolerance of its basis); else the runtime is what it is made of and the rest is unexplained —
 * never the runtime's, never reasoning.
 */
export function boundRuntime(measured: number, expected: number, basis: RuntimeBound['basis']): RuntimeBound {
  const tolerance = basis === 'recorded definitions' ? RUNTIME_TOLERANCE.recorded : RUNTIME_TOLERANCE.before;
  const low = Math.floor(expected * tolerance.low);
  const high = Math.ceil(expected * tolerance.high + tolerance.slack);
  const agrees = measured >= low && measured <= high;
  return { measured, expected, basis, low, high, unexplained: agrees ? 0 : measured - expected };
}

/**
 * What a call produced out of sight: its output and reasoning tokens beyond the estimates of
 * what it left — its reply, its visible reasoning, its tool calls' inputs.
 */
export function hiddenProduced(
  call: Pick<ModelCall, 'tokens' | 'segment' | 'produced'>,
  items: readonly Item[],
  copies: number | undefined,
): number {
  // Encrypted reasoning sent several times: counted as often as it is sent.
  if (copies && call.tokens) return Math.round(call.tokens.reasoning * copies);
  let visible = 0;
  for (const item of items) {
    // A pruned output has two forms of one call: its input counts once.
    if ((item.segment ?? 0) === call.segment && item.from === undefined) visible += item.produced ?? 0;
  }
  const hidden = call.produced - visible;
  // Below a quarter of what it produced, the difference is the estimates' own error.
  return hidden >= MIN_HIDDEN && hidden >= 0.25 * call.produced ? hidden : 0;
}
