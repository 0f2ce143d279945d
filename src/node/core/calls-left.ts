/**
 * How many model calls remain before the runtime compacts by itself, at a growth rate one small
 * turn does not swing: the median growth per call over every step since the session's last
 * compaction (a fall — a pruning — is left out, it is no growth), with the calls left at the
 * lower and upper quartile of those steps as the range. No figure from fewer than
 * MIN_CALLS measured calls since the compaction: a handful of calls says little of the rest.
 * Null with the reason in words when it cannot be said. Pure.
 */
import { fmt } from '../../shared/format';
import type { ContextWindow } from '../../shared/wire';

/** Fewer measured calls since the last compaction give no rate worth a figure. */
export const MIN_CALLS = 5;

export interface CallsLeft {
  callsLeft: number | null;
  /** The median growth per call, over how many steps, from which call to which, and the range. */
  basis?: { perCall: number; calls: number; fromCall: number; toCall: number; range?: { low: number; high: number } };
  because?: string;
}

type Point = { call: number; promptTokens: number; events: readonly string[] };

export function callsLeft(
  timeline: readonly Point[],
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
  const since = sinceCompaction(timeline);
  if (since.length < MIN_CALLS)
    return {
      callsLeft: null,
      because: `${since.length === 0 ? 'no model call was' : `only ${fmt(since.length)} model call${since.length === 1 ? ' was' : 's were'}`} measured${since.length === timeline.length ? '' : ' since the last compaction'}: a growth rate needs at least ${MIN_CALLS}`,
    };
  const steps = growthSteps(since);
  const median = quantile(steps, 0.5);
  if (steps.length === 0 || median <= 0)
    return {
      callsLeft: null,
      because: `the prompt did not grow in most of the ${fmt(since.length)} measured calls since ${since.length === timeline.length ? 'the start' : 'the last compaction'}`,
    };
  const left = Math.max(0, window.autoCompactAt - used);
  const at = (perCall: number) => (perCall <= 0 ? null : Math.floor(left / perCall));
  const high = at(quantile(steps, 0.25));
  const low = at(quantile(steps, 0.75));
  return {
    callsLeft: at(median),
    basis: {
      perCall: Math.max(1, Math.round(median)),
      calls: steps.length,
      fromCall: since[0]!.call,
      toCall: since.at(-1)!.call,
      ...(low !== null && high !== null ? { range: { low, high } } : {}),
    },
  };
}

/** The measured calls from the last compaction on (the compaction's first call starts them). */
function sinceCompaction(timeline: readonly Point[]): readonly Point[] {
  for (let i = timeline.length - 1; i >= 0; i--)
    if (timeline[i]!.events.includes('compaction')) return timeline.slice(i);
  return timeline;
}

/** Growth per call from one measured call to the next; a fall or a pruning is no growth and is left out. */
function growthSteps(points: readonly Point[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < points.length; i++) {
    const now = points[i]!;
    const before = points[i - 1]!;
    const delta = now.promptTokens - before.promptTokens;
    if (delta < 0 || now.events.includes('pruning')) continue;
    out.push(delta / Math.max(1, now.call - before.call));
  }
  return out;
}

/** The q-quantile by linear interpolation (sorted copy). */
function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}
