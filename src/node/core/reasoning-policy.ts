/**
 * Which reasoning policy the calibration applies: the one input step of the walk that says what
 * the provider does with reasoning (keeps a call's hidden reasoning, drops it at a new user
 * message, receives the visible reasoning sent back, only for the current turn). Today it is
 * chosen by the counts: the walk under the expected policy, then the other answers to the
 * questions the session's calls put, the one that fits the measured growth clearly better kept.
 */
import { DEFAULT_POLICY } from './calibration-steps';
import { Walk, type Fit } from './calibration-walk';
import { CostLedger, type Prices } from './costs';
import type { CalibrationInput, ModelCall } from './types';

/**
 * The walk under the reasoning policy the session's counts support best. Which questions arise
 * (hidden reasoning produced, kept across a new user message, visible reasoning sent back) is
 * seen in a first walk; each combination of answers is then walked, and the one whose calls'
 * growth its new items' estimates follow most closely — after one scale for the whole session,
 * as a tokenizer that is not the provider's would need — is kept. Ties keep the expected policy.
 */
export function bestWalk(
  input: CalibrationInput,
  calls: readonly ModelCall[],
  reference: ModelCall | null,
  prices: Prices | null,
): Walk {
  const ledger = () => new CostLedger(prices);
  const first = new Walk(input, DEFAULT_POLICY, reference, ledger());
  first.run(calls);
  const { hidden, turn, reasoning, reasoningTurn } = first.asks;
  if (!hidden && !turn && !reasoning && !reasoningTurn) return first;
  // The other policies are weighed on the first POLICY_CALLS measured calls: a provider's policy
  // shows in them as well as in all (a session's thousandth call asks nothing its hundredth did
  // not), and a long session is not walked once per policy.
  const { message: until, call: upTo } = policyPrefix(calls);
  const prefix = (walk: Walk) => walk.fits.filter((f) => f.call <= upTo);
  let best = first;
  let bestError = misfit(prefix(first));
  const answers = (asked: boolean, expected: boolean) => (asked ? [expected, !expected] : [expected]);
  for (const keepsHidden of answers(hidden, true)) {
    for (const dropsAtTurn of answers(turn, false)) {
      for (const receives of answers(reasoning, true)) {
        for (const reasoningTurnOnly of answers(reasoningTurn, false)) {
          const policy = { keepsHidden, dropsAtTurn, receives, reasoningTurnOnly };
          if (keepsHidden && !dropsAtTurn && receives && !reasoningTurnOnly) continue;
          const walk = new Walk(input, policy, reference);
          walk.run(calls, until);
          const error = misfit(prefix(walk));
          // Another policy must fit clearly better than the expected one.
          if (error < bestError * 0.8) {
            best = walk;
            bestError = error;
          }
        }
      }
    }
  }
  if (best === first) return first;
  // Chosen (on the prefix, or without the ledger): walked whole.
  const chosen = new Walk(input, best.policy, reference, ledger());
  chosen.run(calls);
  return chosen;
}

/** Measured calls that weigh a reasoning policy. */
const POLICY_CALLS = 300;

/** Where the POLICY_CALLS-th measured main call is: its message and number (all of them when fewer). */
export function policyPrefix(calls: readonly ModelCall[]): { message: number; call: number } {
  let number = 0;
  let measured = 0;
  for (const call of calls) {
    if (call.compaction) continue;
    number++;
    if (call.prompt !== null && ++measured === POLICY_CALLS) return { message: call.message, call: number };
  }
  return { message: Number.POSITIVE_INFINITY, call: Number.POSITIVE_INFINITY };
}

/**
 * How far a walk's growth is from its estimates, after the scale that calls no policy question
 * touches show (a tokenizer that is not the provider's); 1 when too few such calls tell.
 */
export function misfit(fits: readonly Fit[]): number {
  if (fits.length === 0) return 0;
  const ratios = fits
    .filter((f) => f.clean && f.estimate > 0)
    .map((f) => f.share / f.estimate)
    .sort((a, b) => a - b);
  const scale = ratios.length >= 3 ? ratios[Math.floor(ratios.length / 2)]! : 1;
  return fits.reduce((n, f) => n + Math.abs(f.share - scale * f.estimate) / (f.estimate + 64), 0);
}
