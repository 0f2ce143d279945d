/**
 * The calibration's decisions at a measured call, as pure steps over what the walk knows then
 * (calibration-walk.ts keeps that state and applies what these decide): which questions of the
 * reasoning policy the call puts (callQuestions), the account the policy gives of its growth
 * (policyAccount), how the counts vote on the questions the provider's rule answers (ruleVotes),
 * the account that leaves least of the growth among those the rule leaves open (closestAccount),
 * and which account the call is given (chooseAccount). Each is a function of plain data in,
 * plain data out, tested alone (test/node/calibration-account.test.ts).
 */
import { MIN_HIDDEN, MIN_REASONING } from './calibration-steps';
import type { PolicyQuestion, PolicyVote, ReasoningPolicy } from './types';

/** Reasoning at stake at a call below this does not test a provider's rule (the estimates' own error). */
export const REASONING_AT_STAKE = 500;

/** What a call's counts are weighed on: which questions it puts, and the reasoning at stake in each. */
export interface CallQuestions {
  canAdd: boolean;
  newTurn: boolean;
  carriedHidden: number;
  /** Visible reasoning of earlier turns the policy may drop at this user message. */
  oldReasoning: number;
  weighsOld: boolean;
  reasoningTokens: number;
  weighsReasoning: boolean;
}

/** An account of a call's growth: what of the reasoning before it the prompt holds. */
export interface Account {
  /** Hidden reasoning kept from before: all of it, or none (dropped at a new user message). */
  keep: boolean;
  /** Visible reasoning of earlier turns dropped at this new user message. */
  dropReasoning: boolean;
  /** The previous call's hidden reasoning added to this prompt. */
  add: boolean;
  /** The visible reasoning this call sees for the first time is counted. */
  received: boolean;
}

/** What the walk knows at a call that bears on the questions it puts. */
export interface QuestionsAt {
  /** Hidden reasoning the previous call produced, when its message is still in view (else null). */
  previousHidden: number | null;
  /** Hidden reasoning carried from earlier calls. */
  carriedHidden: number;
  /** A user message since the previous call. */
  newUserMessage: boolean;
  /** Visible reasoning of earlier turns still counted (carriedReasoning in the walk). */
  oldReasoning: number;
  /** Visible reasoning this call sees for the first time. */
  reasoningTokens: number;
}

/** The questions this call puts, and the reasoning at stake in each. */
export function callQuestions(at: QuestionsAt): CallQuestions {
  const canAdd = at.previousHidden !== null && at.previousHidden >= MIN_HIDDEN;
  return {
    canAdd,
    // A new user message, with hidden reasoning the provider may drop there (kept, or the last call's).
    newTurn: at.newUserMessage && (at.carriedHidden > 0 || canAdd),
    carriedHidden: at.carriedHidden,
    oldReasoning: at.oldReasoning,
    weighsOld: at.oldReasoning >= MIN_REASONING,
    reasoningTokens: at.reasoningTokens,
    weighsReasoning: at.reasoningTokens >= MIN_REASONING,
  };
}

/** The account a policy gives of a call that puts these questions. */
export function policyAccount(policy: ReasoningPolicy, q: CallQuestions): Account {
  const drops = q.newTurn && policy.dropsAtTurn;
  return {
    keep: !drops,
    add: q.canAdd && policy.keepsHidden && !drops,
    received: policy.receives,
    dropReasoning: q.weighsOld && policy.reasoningTurnOnly,
  };
}

/** What an account leaves of the call's growth beyond its new items' estimates. */
export type Residual = (account: Account) => number;

/** The call's growth, and what it is weighed against. */
export interface Growth {
  prompt: number;
  overhead: number;
  /** Σ of what the items carried from before cost. */
  carried: number;
  unexplained: number;
  /** The new items' estimate. */
  estimate: number;
  /** Hidden reasoning the previous call produced (0 when none). */
  previousHidden: number;
}

/** What each account leaves of the growth (see Residual). */
export function residualOf(g: Growth, q: CallQuestions): Residual {
  return (account) => {
    const hidden = (account.keep ? q.carriedHidden : 0) + (account.add ? g.previousHidden : 0);
    const share =
      g.prompt - g.overhead - g.carried - hidden - g.unexplained + (account.dropReasoning ? q.oldReasoning : 0);
    return share - (g.estimate - (account.received ? 0 : q.reasoningTokens));
  };
}

/** What the votes weigh beyond the questions: the rule, the call, and the reasoning this turn hid. */
export interface VoteAt {
  call: number;
  policy: ReasoningPolicy;
  /** Questions the provider's rule answers. */
  fixed: ReadonlySet<PolicyQuestion>;
  previousHidden: number;
  /** Hidden reasoning of this turn's calls, carried. */
  turnHidden: number;
}

/**
 * The call's counts on each question the rule answers, with enough reasoning at stake — the
 * reasoning the two answers differ by (at a user message, what this turn produced) —: an
 * answer is favoured when it leaves less than half the stake of the growth unexplained and the
 * other more than half the stake beyond it. (Each answer moves the growth by the stake, so the
 * other answer's residual is the rule's ± the stake.)
 */
export function ruleVotes(q: CallQuestions, expected: Account, residual: Residual, at: VoteAt): PolicyVote[] {
  const { policy } = at;
  const previousHidden = q.canAdd && policy.keepsHidden ? at.previousHidden : 0;
  const stakes: Record<PolicyQuestion, number> = {
    turn: q.newTurn ? at.turnHidden + previousHidden : 0,
    hidden: q.canAdd && expected.keep ? at.previousHidden : 0,
    reasoning: q.weighsReasoning ? q.reasoningTokens : 0,
    reasoningTurn: q.weighsOld ? q.oldReasoning : 0,
  };
  // Whether the rule's answer has the stake in the prompt (the other then leaves it out).
  const keeps: Record<PolicyQuestion, boolean> = {
    turn: !policy.dropsAtTurn,
    hidden: policy.keepsHidden,
    reasoning: policy.receives,
    reasoningTurn: !policy.reasoningTurnOnly,
  };
  const ruleResidual = residual(expected);
  const votes: PolicyVote[] = [];
  for (const question of at.fixed) {
    const stake = stakes[question];
    if (stake < REASONING_AT_STAKE) continue;
    const otherResidual = keeps[question] ? ruleResidual + stake : ruleResidual - stake;
    const [r, o] = [Math.abs(ruleResidual), Math.abs(otherResidual)];
    const favours =
      r - o > stake / 2 && o < stake / 2 ? 'other' : o - r > stake / 2 && r < stake / 2 ? 'rule' : 'neither';
    votes.push({ call: at.call, question, stake, ruleResidual, otherResidual, favours });
  }
  return votes;
}

/** Of the accounts the questions the rule leaves open allow, the one that leaves least of the growth. */
export function closestAccount(
  q: CallQuestions,
  expected: Account,
  residual: Residual,
  policy: ReasoningPolicy,
  fixed: ReadonlySet<PolicyQuestion>,
): Account {
  const open = (question: PolicyQuestion, asked: boolean) => asked && !fixed.has(question);
  const drops = q.newTurn && policy.dropsAtTurn;
  const keeps = open('turn', q.newTurn) ? [true, false] : [expected.keep];
  const adds = open('hidden', q.canAdd) && !(drops && fixed.has('turn')) ? [true, false] : [expected.add];
  const receives = open('reasoning', q.weighsReasoning) ? [true, false] : [expected.received];
  const dropsReasoning = open('reasoningTurn', q.weighsOld) ? [false, true] : [expected.dropReasoning];
  let best = expected;
  let bestResidual = Math.abs(residual(expected));
  for (const keep of keeps)
    for (const add of adds)
      for (const received of receives)
        for (const dropReasoning of dropsReasoning) {
          const option = { keep, add, received, dropReasoning };
          const r = Math.abs(residual(option));
          if (r < bestResidual) {
            best = option;
            bestResidual = r;
          }
        }
  return best;
}

/** One call's growth against its new items' estimate (for choosing the session's policy). */
export interface Fit {
  /** The call's number (main calls, 1-based). */
  call: number;
  share: number;
  estimate: number;
  clean: boolean;
}

/** A call as chooseAccount weighs it. */
export interface ChoiceAt {
  policy: ReasoningPolicy;
  fixed: ReadonlySet<PolicyQuestion>;
  q: CallQuestions;
  growth: Growth;
  /** Whether any new item's estimate is rough. */
  rough: boolean;
  /** The runtime switched at this call: its growth is the runtime's, the policy's account stands. */
  runtimeChanged: boolean;
  /** Pruned or compacted since the last call: what left needs terms of its own, the counts test no rule. */
  shrunk: boolean;
  vote: Omit<VoteAt, 'policy' | 'fixed' | 'previousHidden'>;
}

/**
 * Which account of this call's growth the counts support best: the previous call's hidden
 * reasoning kept or not, what was kept dropped at a new user message or not, the visible
 * reasoning counted or not. Each choice away from the expected one must earn its place by
 * explaining clearly more of the growth — and none may answer a question the provider's rule
 * answers (`fixed`): there the counts only vote. Also what the call shows of the tokenizer
 * (its fit) and its votes.
 */
export function chooseAccount(at: ChoiceAt): { account: Account; fit: Fit | null; votes: PolicyVote[] } {
  const { q, growth, policy, fixed } = at;
  const expected = policyAccount(policy, q);
  if (at.runtimeChanged) return { account: expected, fit: null, votes: [] };
  const residual = residualOf(growth, q);
  const expectedResidual = residual(expected);
  const expectedEstimate = growth.estimate - (expected.received ? 0 : q.reasoningTokens);
  const fit = at.rough
    ? null
    : {
        call: at.vote.call,
        share: expectedResidual + expectedEstimate,
        estimate: expectedEstimate,
        // A call no question of the policy touches shows how far the tokenizer is from the provider's.
        clean: !q.canAdd && !q.newTurn && !q.weighsReasoning && !q.weighsOld,
      };
  const votes = at.shrunk
    ? []
    : ruleVotes(q, expected, residual, { ...at.vote, policy, fixed, previousHidden: growth.previousHidden });
  // The session's policy holds unless this call's counts refute it beyond doubt: another
  // account explains all but a quarter of what it leaves, and what it leaves is far more than
  // the estimates could be off by (DeepSeek, for one, returns the reasoning of some calls only).
  const uncertainty = 64 + (at.rough ? 0.35 : 0.15) * growth.estimate;
  if (Math.abs(expectedResidual) <= 2 * uncertainty) return { account: expected, fit, votes };
  const best = closestAccount(q, expected, residual, policy, fixed);
  return { account: Math.abs(residual(best)) <= Math.abs(expectedResidual) / 4 ? best : expected, fit, votes };
}
