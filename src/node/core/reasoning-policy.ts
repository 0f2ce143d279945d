/**
 * Which reasoning policy the calibration applies: the one input step of the walk that says what
 * the provider does with reasoning (keeps a call's hidden reasoning, drops it at a new user
 * message, receives the visible reasoning sent back, only for the current turn). The provider's
 * documented rule (provider-rules.ts) answers what it answers; the counts decide only what it
 * leaves open — the walk under the rule, then the other answers to the open questions the
 * session's calls put, the one that fits the measured growth clearly better kept — and they
 * overturn the rule only when they contradict it overwhelmingly (`judgeRule`).
 */
import { DEFAULT_POLICY, numberedCalls } from './calibration-steps';
import type { Fit } from './calibration-account';
import { walk, walkContext, type WalkContext, type WalkState } from './calibration-walk';
import { sessionRule } from './provider-rules';
import type { CalibrationInput, ModelCall, PolicyQuestion, PolicyVote, ReasoningPolicy, RuleJudgement } from './types';

/** The policy's field each question asks about, and the questions a rule answers. */
const FIELDS: [PolicyQuestion, 'keepsHidden' | 'dropsAtTurn' | 'receives' | 'reasoningTurnOnly'][] = [
  ['hidden', 'keepsHidden'],
  ['turn', 'dropsAtTurn'],
  ['reasoning', 'receives'],
  ['reasoningTurn', 'reasoningTurnOnly'],
];

/**
 * Overwhelming: at least this many calls, each with REASONING_AT_STAKE tokens of reasoning at
 * stake, whose counts favour the other answer by more than half that reasoning — and not one
 * that favours the rule's.
 */
export const OVERWHELMING_VOTES = 3;

/** How the counts stood to the rule, per question: overturned (overwhelming), contradicted (kept), else confirmed or untested. */
export function judgeRule(
  votes: readonly PolicyVote[],
  answered: readonly PolicyQuestion[],
): Pick<RuleJudgement, 'overturned' | 'contradicted'> {
  const overturned: PolicyQuestion[] = [];
  const contradicted: PolicyQuestion[] = [];
  for (const question of answered) {
    const against = votes.filter((v) => v.question === question && v.favours === 'other').length;
    const forRule = votes.filter((v) => v.question === question && v.favours === 'rule').length;
    if (against >= OVERWHELMING_VOTES && forRule === 0) overturned.push(question);
    else if (against > 0) contradicted.push(question);
  }
  return { overturned, contradicted };
}

/**
 * The walk under the provider's rule and the policy the counts support for what it leaves open,
 * and how the counts stood to the rule. A rule the counts overturn is walked once more, with the
 * overturned answers flipped.
 */
export function bestWalk(
  input: CalibrationInput,
  calls: readonly ModelCall[],
  reference: ModelCall | null,
): { walk: WalkState; judgement: RuleJudgement } {
  const { rule, model, others } = sessionRule(
    calls.filter((c) => !c.compaction && c.prompt !== null).map((c) => c.model),
  );
  const answered = FIELDS.filter(([, field]) => rule.answers[field] !== undefined).map(([q]) => q);
  const fixed = new Set(answered);
  const expected: ReasoningPolicy = { ...DEFAULT_POLICY, ...rule.answers };
  // The input indexed once, for every policy walked.
  const context = walkContext(input);
  const walked = searchOpen(context, calls, reference, expected, fixed);
  const votes = walked.votes.toArray();
  const { overturned, contradicted } = judgeRule(votes, answered);
  const judgement = { rule, model, others, votes, overturned, contradicted };
  if (overturned.length === 0) return { walk: walked, judgement };
  const policy = { ...walked.rules.policy };
  for (const [question, field] of FIELDS) if (overturned.includes(question)) policy[field] = !policy[field];
  return { walk: walk(context, { policy, reference, billing: true, fixed }, calls), judgement };
}

/**
 * The walk under the policy the session's counts support best on the questions the rule leaves
 * open. Which questions arise (hidden reasoning produced, kept across a new user message,
 * visible reasoning sent back) is seen in a first walk; each combination of answers to the open
 * ones is then walked, and the one whose calls' growth its new items' estimates follow most
 * closely — after one scale for the whole session, as a tokenizer that is not the provider's
 * would need — is kept. Ties keep the expected policy.
 */
function searchOpen(
  context: WalkContext,
  calls: readonly ModelCall[],
  reference: ModelCall | null,
  expected: ReasoningPolicy,
  fixed: ReadonlySet<PolicyQuestion>,
): WalkState {
  const first = walk(context, { policy: expected, reference, billing: true, fixed }, calls);
  const asked = (q: PolicyQuestion) => first.asks[q] && !fixed.has(q);
  if (!asked('hidden') && !asked('turn') && !asked('reasoning') && !asked('reasoningTurn')) return first;
  // The other policies are weighed on the first POLICY_CALLS measured calls: a provider's policy
  // shows in them as well as in all (a session's thousandth call asks nothing its hundredth did
  // not), and a long session is not walked once per policy.
  const { message: until, call: upTo } = policyPrefix(calls);
  const prefix = (walked: WalkState) => walked.fits.toArray().filter((f) => f.call <= upTo);
  let best = first;
  let bestError = misfit(prefix(first));
  const answers = (q: PolicyQuestion, value: boolean) => (asked(q) ? [value, !value] : [value]);
  for (const keepsHidden of answers('hidden', expected.keepsHidden)) {
    for (const dropsAtTurn of answers('turn', expected.dropsAtTurn)) {
      for (const receives of answers('reasoning', expected.receives)) {
        for (const reasoningTurnOnly of answers('reasoningTurn', expected.reasoningTurnOnly)) {
          const policy = { ...expected, keepsHidden, dropsAtTurn, receives, reasoningTurnOnly };
          if (FIELDS.every(([, field]) => policy[field] === expected[field])) continue;
          const walked = walk(context, { policy, reference, billing: false, fixed }, calls, until);
          const error = misfit(prefix(walked));
          // Another policy must fit clearly better than the expected one.
          if (error < bestError * 0.8) {
            best = walked;
            bestError = error;
          }
        }
      }
    }
  }
  if (best === first) return first;
  // Chosen (on the prefix, or without billing): walked whole.
  return walk(context, { policy: best.rules.policy, reference, billing: true, fixed }, calls);
}

/** Measured calls that weigh a reasoning policy. */
const POLICY_CALLS = 300;

/** Where the POLICY_CALLS-th measured main call is: its message and number (all of them when fewer). */
export function policyPrefix(calls: readonly ModelCall[]): { message: number; call: number } {
  const numbered = numberedCalls(calls);
  const last = numbered[POLICY_CALLS - 1];
  if (last) return { message: last.message, call: POLICY_CALLS };
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
