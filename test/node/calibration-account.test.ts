/**
 * The calibration's decisions at a measured call, one step at a time (core/calibration-account.ts,
 * core/calibration-runtime.ts): the questions a call puts, the policy's account of its growth,
 * the votes on the provider's rule, the closest account the rule leaves open, the account the
 * call is given, and the runtime measured, met again or re-measured — each on
 * the smallest input that shows its rule. The whole walk is held to recorded sessions elsewhere
 * (ground-truth, public-exports, calibration tests; npm run report-snapshots).
 */
import { describe, expect, it } from 'vitest';
import {
  callQuestions,
  chooseAccount,
  closestAccount,
  policyAccount,
  REASONING_AT_STAKE,
  residualOf,
  ruleVotes,
  type CallQuestions,
  type ChoiceAt,
  type Growth,
} from '../../src/node/core/calibration-account';
import { firstRuntime, remeasuredRuntime, runtimeAtSwitch } from '../../src/node/core/calibration-runtime';
import { DEFAULT_POLICY } from '../../src/node/core/calibration-steps';
import type { Item, PolicyQuestion, ReasoningPolicy } from '../../src/node/core/types';

const quiet = { previousHidden: null, carriedHidden: 0, newUserMessage: false, oldReasoning: 0, reasoningTokens: 0 };
const DROPS: ReasoningPolicy = { ...DEFAULT_POLICY, dropsAtTurn: true };
const growth = (over: Partial<Growth> = {}): Growth => ({
  prompt: 10_000,
  overhead: 4_000,
  carried: 3_000,
  unexplained: 0,
  estimate: 1_000,
  previousHidden: 0,
  ...over,
});
const none = new Set<PolicyQuestion>();

describe('callQuestions: what a call asks of the reasoning policy', () => {
  it('asks nothing of a call with no reasoning about', () => {
    expect(callQuestions(quiet)).toEqual({
      canAdd: false,
      newTurn: false,
      carriedHidden: 0,
      oldReasoning: 0,
      weighsOld: false,
      reasoningTokens: 0,
      weighsReasoning: false,
    });
  });

  it('asks whether the previous call’s hidden reasoning was added only when there is enough of it in view', () => {
    expect(callQuestions({ ...quiet, previousHidden: 63 }).canAdd).toBe(false);
    expect(callQuestions({ ...quiet, previousHidden: 64 }).canAdd).toBe(true);
    // Its message out of view (compacted away): nothing to add.
    expect(callQuestions({ ...quiet, previousHidden: null }).canAdd).toBe(false);
  });

  it('asks about a new turn only at a user message with hidden reasoning the provider may drop', () => {
    expect(callQuestions({ ...quiet, newUserMessage: true }).newTurn).toBe(false);
    expect(callQuestions({ ...quiet, newUserMessage: true, carriedHidden: 1 }).newTurn).toBe(true);
    expect(callQuestions({ ...quiet, newUserMessage: true, previousHidden: 100 }).newTurn).toBe(true);
    expect(callQuestions({ ...quiet, carriedHidden: 100 }).newTurn).toBe(false);
  });

  it('weighs visible reasoning from 48 tokens on, new or carried', () => {
    expect(callQuestions({ ...quiet, reasoningTokens: 47 }).weighsReasoning).toBe(false);
    expect(callQuestions({ ...quiet, reasoningTokens: 48 }).weighsReasoning).toBe(true);
    expect(callQuestions({ ...quiet, oldReasoning: 48 }).weighsOld).toBe(true);
  });
});

describe('policyAccount: the account a policy gives', () => {
  const asked: CallQuestions = { ...callQuestions(quiet), canAdd: true, newTurn: true, weighsOld: true };

  it('keeps and adds hidden reasoning, counts what is received, by default', () => {
    expect(policyAccount(DEFAULT_POLICY, asked)).toEqual({
      keep: true,
      add: true,
      received: true,
      dropReasoning: false,
    });
  });

  it('drops hidden reasoning at a new turn, and adds none, when the policy drops it there', () => {
    expect(policyAccount(DROPS, asked)).toMatchObject({ keep: false, add: false });
    expect(policyAccount(DROPS, { ...asked, newTurn: false })).toMatchObject({ keep: true, add: true });
  });

  it('drops earlier turns’ visible reasoning only when the policy keeps the current turn’s alone', () => {
    expect(policyAccount({ ...DEFAULT_POLICY, reasoningTurnOnly: true }, asked).dropReasoning).toBe(true);
    expect(
      policyAccount({ ...DEFAULT_POLICY, reasoningTurnOnly: true }, { ...asked, weighsOld: false }).dropReasoning,
    ).toBe(false);
  });
});

describe('residualOf: what an account leaves of the growth', () => {
  it('is the growth beyond the runtime, what is carried and the new items’ estimate', () => {
    const q = callQuestions(quiet);
    expect(residualOf(growth(), q)(policyAccount(DEFAULT_POLICY, q))).toBe(10_000 - 4_000 - 3_000 - 1_000);
  });

  it('takes hidden reasoning kept or added out, and reasoning dropped or not received back', () => {
    const q = callQuestions({
      ...quiet,
      carriedHidden: 300,
      previousHidden: 200,
      oldReasoning: 100,
      reasoningTokens: 50,
    });
    const r = residualOf(growth({ previousHidden: 200 }), q);
    const base = 2_000;
    expect(r({ keep: true, add: true, received: true, dropReasoning: false })).toBe(base - 500);
    expect(r({ keep: false, add: false, received: true, dropReasoning: false })).toBe(base);
    expect(r({ keep: false, add: false, received: false, dropReasoning: true })).toBe(base + 100 + 50);
  });
});

describe('ruleVotes: the counts on the questions the rule answers', () => {
  const q: CallQuestions = { ...callQuestions({ ...quiet, reasoningTokens: 1_000 }) };
  const at = {
    call: 3,
    policy: DEFAULT_POLICY,
    fixed: new Set<PolicyQuestion>(['reasoning']),
    previousHidden: 0,
    turnHidden: 0,
  };

  it('favours the rule when its account leaves the growth explained', () => {
    const votes = ruleVotes(q, policyAccount(DEFAULT_POLICY, q), () => 10, at);
    expect(votes).toEqual([
      { call: 3, question: 'reasoning', stake: 1_000, ruleResidual: 10, otherResidual: 1_010, favours: 'rule' },
    ]);
  });

  it('favours the other answer when the rule leaves about the stake unexplained', () => {
    const [vote] = ruleVotes(q, policyAccount(DEFAULT_POLICY, q), () => -990, at);
    expect(vote).toMatchObject({ otherResidual: 10, favours: 'other' });
  });

  it('does not vote below the stake that tests a rule, nor on a question the rule does not answer', () => {
    const small = { ...q, reasoningTokens: REASONING_AT_STAKE - 1 };
    expect(ruleVotes(small, policyAccount(DEFAULT_POLICY, small), () => 0, at)).toEqual([]);
    expect(ruleVotes(q, policyAccount(DEFAULT_POLICY, q), () => 0, { ...at, fixed: none })).toEqual([]);
  });
});

describe('closestAccount and chooseAccount: the account a call is given', () => {
  const q = callQuestions({ ...quiet, reasoningTokens: 1_000 });
  const choice = (over: Partial<ChoiceAt>): ChoiceAt => ({
    policy: DEFAULT_POLICY,
    fixed: none,
    q,
    growth: growth({ estimate: 2_000 }),
    rough: false,
    runtimeChanged: false,
    shrunk: false,
    vote: { call: 2, turnHidden: 0 },
    ...over,
  });

  it('finds the open account that leaves least', () => {
    const residual = (a: { received: boolean }) => (a.received ? -1_000 : 0);
    const expected = policyAccount(DEFAULT_POLICY, q);
    expect(closestAccount(q, expected, residual, DEFAULT_POLICY, none).received).toBe(false);
    // The rule answers it: the counts cannot.
    expect(closestAccount(q, expected, residual, DEFAULT_POLICY, new Set(['reasoning'])).received).toBe(true);
  });

  it('keeps the policy’s account when it explains the growth within what the estimates may be off by', () => {
    // Growth 3,000 against an estimate of 2,000 (with the reasoning counted): 1,000 left, within 2 × (64 + 0.15 × 2,000).
    const made = chooseAccount(choice({ growth: growth({ estimate: 2_000, prompt: 10_000 }) }));
    expect(made.account.received).toBe(true);
    expect(made.fit).toEqual({ call: 2, share: 3_000, estimate: 2_000, clean: false });
  });

  it('turns the reasoning uncounted when only that explains the growth', () => {
    // Growth 1,000: the new items without their 1,000 tokens of reasoning.
    const made = chooseAccount(choice({ growth: growth({ estimate: 2_000, prompt: 8_000 }) }));
    expect(made.account.received).toBe(false);
  });

  it('holds to the policy at a runtime switch, and keeps neither fit nor vote there', () => {
    const made = chooseAccount(choice({ growth: growth({ estimate: 2_000, prompt: 8_000 }), runtimeChanged: true }));
    expect(made).toEqual({ account: policyAccount(DEFAULT_POLICY, q), fit: null, votes: [] });
  });

  it('keeps no fit for rough estimates, and no votes after a prune or compaction', () => {
    const fixed = new Set<PolicyQuestion>(['reasoning']);
    expect(chooseAccount(choice({ rough: true })).fit).toBeNull();
    expect(chooseAccount(choice({ fixed })).votes).toHaveLength(1);
    expect(chooseAccount(choice({ fixed, shrunk: true })).votes).toEqual([]);
  });
});

describe('the runtime at a call (core/calibration-runtime.ts)', () => {
  const item = (key: string, tokens: number): Item =>
    ({ key, tokens, source: 'evidence', label: key, sourceRef: `ref/${key}`, bytes: tokens * 4 }) as Item;
  const BUILD = JSON.stringify(['build', 'local/m', false]);
  const PLAN = JSON.stringify(['plan', 'local/m', false]);
  const at = (runtime: string, time = 10) => ({ call: { messageId: 'msg_2', runtime, time }, number: 2 });

  it('is measured at the first call as what the prompt holds beyond what the server sees', () => {
    const step = firstRuntime(at(BUILD), [item('a', 300), item('b', 100)], 5_000);
    expect(step.overhead).toBe(4_600);
    expect(step.assigned.map((a) => a.tokens)).toEqual([300, 100]);
    expect(step.change).toEqual({ messageId: 'msg_2', call: 2, delta: 4_600, reason: 'first call' });
  });

  it('is taken as measured before when a switch goes back to an agent met already', () => {
    const before = { key: PLAN, since: 0, overhead: 5_000, measured: new Map([[BUILD, 4_000]]), changes: [] };
    expect(runtimeAtSwitch(before, at(BUILD))).toEqual({
      metAgain: {
        overhead: 4_000,
        change: { messageId: 'msg_2', call: 2, delta: -1_000, reason: 'another agent, as measured before' },
      },
    });
    // A new agent is a switch to measure; the same one, none.
    expect(runtimeAtSwitch({ ...before, measured: new Map() }, at(BUILD))).toEqual({ toMeasure: 'another agent' });
    expect(runtimeAtSwitch({ ...before, key: BUILD }, at(BUILD))).toEqual({ toMeasure: null });
  });

  it('measured again stands when it agrees with what it is made of, else stays that and books the rest unexplained', () => {
    const added = [item('a', 200)];
    const agrees = remeasuredRuntime(
      { ...at(PLAN), reason: 'another agent', before: 4_000, recorded: 4_400 },
      added,
      4_700,
    );
    expect(agrees).toMatchObject({
      overhead: 4_500,
      unexplained: null,
      change: { delta: 500, reason: 'another agent' },
    });
    const far = remeasuredRuntime(
      { ...at(PLAN), reason: 'another agent', before: 4_000, recorded: 4_000 },
      added,
      9_200,
    );
    expect(far.overhead).toBe(4_000);
    expect(far.unexplained).toBe(9_200 - 200 - 4_000);
    expect(far.assigned).toEqual([{ item: added[0], tokens: 200, basis: 'estimated' }]);
    expect(far.change.bound).toMatchObject({ basis: 'recorded definitions', measured: 9_000, unexplained: 5_000 });
  });
});
