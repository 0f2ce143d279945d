/**
 * How many model calls remain before the runtime compacts by itself, at the recent growth of
 * the measured prompt: the growth per call over the last few measured calls (a fall — a
 * compaction or a pruning — is left out, it is no growth), against the auto-compaction point.
 * Null with the reason in words when it cannot be said. Pure.
 */
import { fmt } from '../../shared/format';
import type { ContextWindow } from '../../shared/wire';

/** The rate is taken over at most this many steps from one measured call to the next. */
export const GROWTH_STEPS = 5;

export interface CallsLeft {
  callsLeft: number | null;
  /** What the rate was taken over: tokens per call, over how many calls, from which to which. */
  basis?: { perCall: number; calls: number; fromCall: number; toCall: number };
  because?: string;
}

export function callsLeft(
  timeline: readonly { call: number; promptTokens: number; events: readonly string[] }[],
  window: ContextWindow | null,
  used: number,
  runtimeName: string,
): CallsLeft {
  if (!window || window.autoCompactAt === null)
    return {
      callsLeft: null,
      because:
        window?.basis === 'unknown' || !window
          ? `${runtimeName}'s auto-compaction point is not known for this model, so the calls left cannot be counted`
          : `auto-compaction is off (compaction.auto is false): ${runtimeName} will not compact by itself`,
    };
  if (timeline.length < 2)
    return {
      callsLeft: null,
      because: `${timeline.length === 0 ? 'no model call was' : 'only one model call was'} measured: a growth rate needs two`,
    };
  // Newest first: each step from one measured call to the next, a fall left out.
  let grown = 0;
  let calls = 0;
  let steps = 0;
  let fromCall = timeline.at(-1)!.call;
  const toCall = fromCall;
  for (let i = timeline.length - 1; i > 0 && steps < GROWTH_STEPS; i--) {
    const now = timeline[i]!;
    const before = timeline[i - 1]!;
    const delta = now.promptTokens - before.promptTokens;
    if (delta < 0 || now.events.includes('compaction') || now.events.includes('pruning')) continue;
    grown += delta;
    calls += now.call - before.call;
    steps++;
    fromCall = before.call;
  }
  if (steps === 0 || grown <= 0 || calls <= 0)
    return {
      callsLeft: null,
      because:
        steps === 0
          ? 'the prompt only fell between the recent measured calls (compaction or pruning): no growth to go by'
          : `the prompt did not grow over the last ${fmt(calls)} measured call${calls === 1 ? '' : 's'}`,
    };
  const perCall = grown / calls;
  const left = window.autoCompactAt - used;
  return {
    callsLeft: left <= 0 ? 0 : Math.floor(left / perCall),
    basis: { perCall: Math.max(1, Math.round(perCall)), calls, fromCall, toCall },
  };
}
