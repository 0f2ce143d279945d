/**
 * The runtime item at a measured call, as pure steps (calibration-walk.ts applies what they
 * decide): measured at the first call (firstRuntime), taken as measured before when a switch
 * goes back to an agent, model and tools met already (runtimeAtSwitch), and measured again at a
 * switch the rows show, held to what it is made of (remeasuredRuntime). Each returns the
 * runtime's new size, the costs it sets and the change to report; tested alone
 * (test/node/calibration-account.test.ts).
 */
import { boundRuntime, runtimeBeyond, runtimeSwitch, sumTokens, type Assignment } from './calibration-steps';
import type { Item, ModelCall, RuntimeChange } from './types';

/** A measured call: which it is, and its number among the measured calls. */
export interface NumberedCall {
  call: Pick<ModelCall, 'messageId' | 'runtime' | 'time'>;
  number: number;
}

/** The runtime after a step: its size, what the step set the new items at, and the change reported. */
export interface RuntimeStep {
  overhead: number;
  assigned: Assignment[];
  change: RuntimeChange;
}

/** The first call: the runtime is what the provider counted beyond everything the server can see. */
export function firstRuntime({ call, number }: NumberedCall, fresh: readonly Item[], prompt: number): RuntimeStep {
  const { overhead, assigned } = runtimeBeyond(fresh, prompt);
  return {
    overhead,
    assigned,
    change: { messageId: call.messageId, call: number, delta: overhead, reason: 'first call' },
  };
}

/** What the walk knows of the runtime before a call. */
export interface RuntimeBefore {
  /** The previous measured call's runtime key, and its time (null: none yet). */
  key: string | null;
  since: number;
  overhead: number;
  /** The runtime as measured for each combination of agent, model and tools met so far. */
  measured: Pick<ReadonlyMap<string, number>, 'get'>;
  changes: readonly { at: number; what: string; reason?: string }[];
}

/**
 * Whether the runtime switched since the previous call (runtimeSwitch: the rows' word for it);
 * a combination met before (back to the build agent, say) takes its runtime as measured then,
 * and is no switch to measure. Returns the switch still to measure (or null), or the runtime met
 * again.
 */
export function runtimeAtSwitch(
  before: RuntimeBefore,
  { call, number }: NumberedCall,
): { toMeasure: string | null } | { metAgain: { overhead: number; change: RuntimeChange } } {
  const change = runtimeSwitch(before.key, call, before.since, before.changes);
  const known = before.measured.get(call.runtime);
  if (change === null || known === undefined || call.runtime === before.key) return { toMeasure: change };
  return {
    metAgain: {
      overhead: known,
      change: {
        messageId: call.messageId,
        call: number,
        delta: known - before.overhead,
        reason: `${change}, as measured before`,
      },
    },
  };
}

/**
 * The runtime measured again at a switch the rows show, the new items at their estimates, and
 * held to what it is made of: the definitions recorded for the call's agent and model
 * (`recorded`), else the runtime before the switch. A measure that cannot agree leaves the
 * runtime at what it is made of and the difference unexplained (`unexplained`, booked).
 */
export function remeasuredRuntime(
  at: NumberedCall & { reason: string; before: number; recorded: number | null },
  added: readonly Item[],
  left: number,
): RuntimeStep & { unexplained: number | null } {
  const beyond = runtimeBeyond(added, left);
  const bound =
    at.recorded !== null
      ? boundRuntime(beyond.overhead, at.recorded, 'recorded definitions')
      : boundRuntime(beyond.overhead, at.before, 'the runtime before the switch');
  const agrees = bound.unexplained === 0;
  const overhead = agrees ? beyond.overhead : bound.expected;
  const booked = agrees ? 0 : left - sumTokens(added) - bound.expected;
  return {
    overhead,
    assigned: agrees
      ? beyond.assigned
      : added.map((item) => ({ item, tokens: item.tokens, basis: 'estimated' as const })),
    unexplained: agrees ? null : booked,
    change: {
      messageId: at.call.messageId,
      call: at.number,
      delta: overhead - at.before,
      reason: at.reason,
      bound: { ...bound, unexplained: booked },
    },
  };
}
