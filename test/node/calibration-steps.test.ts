/**
 * The calibration's pure steps one by one (core/calibration-steps.ts, the describing steps of
 * core/calibrate.ts, the policy's measure of fit in core/reasoning-policy.ts): each on the
 * smallest input that shows its rule. The whole walk is held to recorded sessions elsewhere
 * (ground-truth, public-exports, calibration tests).
 */
import { describe, expect, it } from 'vitest';
import { afterLastCall, leftBehind, measuredAt, referenceCall } from '../../src/node/core/calibrate';
import {
  boundRuntime,
  describedByDefinitions,
  hiddenProduced,
  isInForm,
  plausible,
  runtimeBeyond,
  runtimeSwitch,
  shareByEstimate,
  shareGrowth,
} from '../../src/node/core/calibration-steps';
import { judgeRule, misfit, policyPrefix } from '../../src/node/core/reasoning-policy';
import type { Item, ModelCall, PolicyVote } from '../../src/node/core/types';

const item = (key: string, tokens: number, extra: Partial<Item> = {}): Item =>
  ({ key, tokens, source: 'evidence', label: key, sourceRef: `ref/${key}`, bytes: tokens * 4, ...extra }) as Item;

const call = (over: Partial<ModelCall>): ModelCall =>
  ({
    message: 0,
    segment: 0,
    messageId: 'msg_0',
    time: 0,
    prompt: 100,
    produced: 0,
    runtime: JSON.stringify(['build', 'local/m', false]),
    compaction: false,
    family: 'openai',
    ...over,
  }) as ModelCall;

const total = (a: readonly { tokens: number }[]) => a.reduce((n, x) => n + x.tokens, 0);

describe('plausible growth', () => {
  it('is between half the estimate and twice it, with 64 tokens of slack, never negative', () => {
    expect(plausible(100, 100)).toBe(true);
    expect(plausible(-1, 0)).toBe(false);
    expect(plausible(0, 100)).toBe(true); // 100 / 2 - 64 = -14
    expect(plausible(400, 100)).toBe(false);
    expect(plausible(264, 100)).toBe(true);
    expect(plausible(265, 100)).toBe(false);
  });
});

describe('an item in its form', () => {
  it('holds from after `from` up to `until`', () => {
    expect(isInForm(item('a', 1, { from: 5 }), 5)).toBe(false);
    expect(isInForm(item('a', 1, { from: 5 }), 6)).toBe(true);
    expect(isInForm(item('a', 1, { until: 5 }), 5)).toBe(true);
    expect(isInForm(item('a', 1, { until: 5 }), 6)).toBe(false);
  });
});

describe('sharing a call’s growth', () => {
  it('by the estimates, to the token, when the growth is plausible for them', () => {
    const shared = shareGrowth([item('a', 100), item('b', 300)], 480, 0);
    expect(shared.basis).toBe('measured');
    expect(shared.assigned.map((a) => a.tokens)).toEqual([120, 360]);
    expect(shared.unexplained).toBe(0);
    expect(shared.unexplainedEvent).toBe(false);
  });

  it('leaves the items at their estimates and the rest unexplained when the growth is beyond any reading', () => {
    const shared = shareGrowth([item('a', 100)], 5000, 0);
    expect(shared).toMatchObject({ basis: 'estimated', unexplained: 4900, unexplainedEvent: true });
    expect(shared.assigned[0]!.tokens).toBe(100);
  });

  it('undoes an earlier unexplained fall first, then shares the rest', () => {
    const shared = shareGrowth([item('a', 100)], 400, -250);
    expect(shared.unexplained).toBe(250);
    expect(shared.assigned[0]).toMatchObject({ tokens: 150, basis: 'measured' });
    expect(shared.unexplainedEvent).toBe(true);
  });

  it('lets an image take what the text does not explain', () => {
    const shared = shareGrowth([item('text', 100), item('image', 50, { vision: 50 })], 1600, 0);
    expect(shared.basis).toBe('measured');
    expect(shared.assigned.map((a) => [a.item.key, a.tokens, a.basis])).toEqual([
      ['text', 100, 'estimated'],
      ['image', 1500, 'measured'],
    ]);
  });

  it('shrinks items an estimator overcounts (less than half their estimate, more than nothing)', () => {
    const shared = shareGrowth([item('a', 1000)], 300, 0);
    expect(shared.assigned[0]).toMatchObject({ tokens: 300, basis: 'measured' });
  });

  it('with no new item, the whole growth is unexplained', () => {
    expect(shareGrowth([], 70, 0)).toMatchObject({ assigned: [], unexplained: 70, unexplainedEvent: true });
    expect(shareGrowth([], 0, 0)).toMatchObject({ unexplained: 0, unexplainedEvent: false });
  });

  it('never shares below zero', () => {
    expect(total(shareByEstimate([item('a', 5), item('b', 5)], -10, 'measured'))).toBe(0);
  });
});

describe('the runtime beyond what the server sees', () => {
  it('is the prompt less the new items at their estimates', () => {
    const measured = runtimeBeyond([item('a', 300), item('b', 200)], 7000);
    expect(measured.overhead).toBe(6500);
    expect(measured.assigned.map((a) => a.tokens)).toEqual([300, 200]);
  });

  it('is 0 when the items alone outweigh the prompt, which they then share', () => {
    const measured = runtimeBeyond([item('a', 300), item('b', 300)], 400);
    expect(measured.overhead).toBe(0);
    expect(total(measured.assigned)).toBe(400);
  });
});

describe('a runtime switch', () => {
  const key = (agent: string, model: string, asked = false) => JSON.stringify([agent, model, asked]);
  it('names what the rows say changed, and a file changed on disk between the calls', () => {
    const before = key('build', 'a/m');
    expect(runtimeSwitch(null, call({ runtime: key('plan', 'a/m') }), 0, [])).toBeNull();
    expect(runtimeSwitch(before, call({ runtime: before, time: 10 }), 5, [])).toBeNull();
    expect(runtimeSwitch(before, call({ runtime: key('plan', 'a/m') }), 0, [])).toBe('another agent');
    expect(runtimeSwitch(before, call({ runtime: key('build', 'b/m') }), 0, [])).toBe('another model');
    expect(runtimeSwitch(before, call({ runtime: key('build', 'a/m', true) }), 0, [])).toBe(
      'other tools or system prompt asked for',
    );
    expect(runtimeSwitch(key('build', 'a/m', true), call({ runtime: before }), 0, [])).toBe(
      'tools or system prompt back to the defaults',
    );
    const changes = [{ at: 7, what: 'instructions (AGENTS.md)' }];
    expect(runtimeSwitch(before, call({ runtime: before, time: 10 }), 5, changes)).toBe(
      'instructions (AGENTS.md) changed on disk',
    );
    expect(runtimeSwitch(before, call({ runtime: before, time: 10 }), 8, changes)).toBeNull();
  });
});

describe('hidden reasoning a call produced', () => {
  it('is what it produced beyond what it left visible, when that is more than noise', () => {
    const left = [item('reply', 10, { produced: 100 }), item('other segment', 10, { produced: 50, segment: 1 })];
    expect(hiddenProduced(call({ produced: 500 }), left, undefined)).toBe(400);
    expect(hiddenProduced(call({ produced: 150 }), left, undefined)).toBe(0); // 50: below 64
    expect(hiddenProduced(call({ produced: 1000 }), [item('reply', 10, { produced: 800 })], undefined)).toBe(0); // < 25 %
  });

  it('counts encrypted reasoning as often as it is sent', () => {
    const tokens = { input: 1, output: 1, reasoning: 300, cacheRead: 0, cacheWrite: 0 };
    expect(hiddenProduced(call({ produced: 10, tokens }), [], 2)).toBe(600);
  });
});

describe('describing the reference call', () => {
  it('is the call whose prompt is the total, else the last measured one; as of a call, that one', () => {
    const calls = [call({ prompt: 100, messageId: 'a' }), call({ prompt: 200, messageId: 'b' })];
    const usage = (used: number) => ({ contextUsed: used, contextSize: null, recordedAt: 0 });
    expect(referenceCall(null, calls, usage(100))?.messageId).toBe('a');
    expect(referenceCall(null, calls, usage(999))?.messageId).toBe('b');
    expect(referenceCall(calls[0]!, calls, usage(200))?.messageId).toBe('a');
    expect(referenceCall(null, [], null)).toBeNull();
  });

  it('splits the view into what that call measured and what came after it', () => {
    const a = item('a', 10);
    const b = item('b', 20);
    const state = {
      view: new Map([['a', a]]),
      cal: new Map([['a', 12]]),
      basis: new Map([['a', 'measured' as const]]),
    };
    const described = measuredAt(state, [a, b]);
    expect([...described.measured]).toEqual([['a', 12]]);
    expect([...described.measuredBasis]).toEqual([['a', 'measured']]);
    expect(described.pending).toEqual([b]);
  });

  it('says what left the view since, and why', () => {
    const state = {
      view: new Map([
        ['a', item('a', 10)],
        ['b', item('b', 20)],
        ['c', item('c', 30)],
      ]),
      cal: new Map([['a', 11]]),
    };
    const pruned = item('a#pruned', 1);
    expect(leftBehind(state, [pruned, item('c', 30)], () => false)).toEqual({ items: 2, tokens: 31, reason: 'both' });
    expect(leftBehind(state, [pruned, item('b', 20), item('c', 30)], () => false)).toEqual({
      items: 1,
      tokens: 11,
      reason: 'pruned',
    });
    expect(leftBehind(state, [item('a', 1), item('b', 1), item('c', 1)], () => false).reason).toBeNull();
    expect(leftBehind(state, [item('c', 1)], (key) => key !== 'c').items).toBe(0);
  });

  it('shares a gap after the last call among what came since, by its estimates where plausible', () => {
    const after = afterLastCall(300, [item('x', 100), item('y', 200)]);
    expect(after.tokens).toBe(300);
    expect([...after.shares]).toEqual([
      ['x', 100],
      ['y', 200],
    ]);
    expect(after.unexplained).toBe(0);
    expect(afterLastCall(5000, [item('x', 100)])).toMatchObject({ tokens: 100, unexplained: 4900 });
    expect(afterLastCall(-50, [item('x', 100)])).toMatchObject({ tokens: 0, unexplained: -50 });
  });
});

describe('the reasoning policy’s measure of fit', () => {
  it('is the distance of each call’s growth from its estimate, after the scale clean calls show', () => {
    expect(misfit([])).toBe(0);
    const clean = [1, 2, 3].map((call) => ({ call, share: 200, estimate: 100, clean: true }));
    // The tokenizer counts half of what the provider does: no misfit once scaled.
    expect(misfit(clean)).toBe(0);
    expect(misfit([...clean, { call: 4, share: 200, estimate: 200, clean: false }])).toBeCloseTo(200 / 264);
  });

  it('is weighed on the first 300 measured main calls', () => {
    const calls = Array.from({ length: 700 }, (_, i) => call({ message: i, prompt: i % 2 ? null : 10 }));
    // Only calls that measured a prompt are numbered: the 300th of them is message 598's.
    expect(policyPrefix(calls)).toEqual({ message: 598, call: 300 });
    expect(policyPrefix(calls.slice(0, 10))).toEqual({ message: Infinity, call: Infinity });
  });
});

describe('a re-measured runtime held to what it is made of', () => {
  it('stands within ±25 % of the recorded definitions, else keeps them and leaves the rest unexplained', () => {
    expect(boundRuntime(7_000, 6_570, 'recorded definitions')).toMatchObject({
      low: 4_927,
      high: 8_213,
      unexplained: 0,
    });
    expect(boundRuntime(8_214, 6_570, 'recorded definitions').unexplained).toBe(8_214 - 6_570);
    expect(boundRuntime(4_926, 6_570, 'recorded definitions').unexplained).toBe(4_926 - 6_570);
  });

  it('with nothing recorded, stands within half to twice (+1,000) the runtime before the switch', () => {
    // silent-panda under a rule that keeps every turn's reasoning: the switch left 3,327 of 16,106.
    expect(boundRuntime(3_327, 16_106, 'the runtime before the switch')).toMatchObject({
      low: 8_053,
      high: 33_212,
      unexplained: 3_327 - 16_106,
    });
    expect(boundRuntime(15_820, 16_106, 'the runtime before the switch').unexplained).toBe(0);
    expect(boundRuntime(15_184, 10_648, 'the runtime before the switch').unexplained).toBe(0);
  });

  it('is held to the recorded definitions only where they describe the switch', () => {
    expect(describedByDefinitions('another agent')).toBe(true);
    expect(describedByDefinitions('another model')).toBe(true);
    expect(describedByDefinitions('tools added: investibook_context_report')).toBe(true);
    expect(describedByDefinitions('other tools or system prompt asked for')).toBe(false);
    expect(describedByDefinitions('tools or system prompt back to the defaults')).toBe(false);
    expect(describedByDefinitions('AGENTS.md changed on disk')).toBe(false);
  });
});

describe('the counts against a provider’s rule', () => {
  const vote = (favours: PolicyVote['favours'], question: PolicyVote['question'] = 'turn', call = 1): PolicyVote => ({
    call,
    question,
    stake: 1_000,
    ruleResidual: favours === 'other' ? 1_000 : 0,
    otherResidual: favours === 'other' ? 0 : 1_000,
    favours,
  });

  it('overturn it only overwhelmingly: three calls against it and none for it', () => {
    const against = [1, 2, 3].map((n) => vote('other', 'turn', n));
    expect(judgeRule(against, ['turn'])).toEqual({ overturned: ['turn'], contradicted: [] });
    // One call for the rule keeps it, said as contradicted.
    expect(judgeRule([...against, vote('rule', 'turn', 4)], ['turn'])).toEqual({
      overturned: [],
      contradicted: ['turn'],
    });
    // Two against: contradicted, kept.
    expect(judgeRule(against.slice(0, 2), ['turn'])).toEqual({ overturned: [], contradicted: ['turn'] });
    // Too close to tell, or for the rule: confirmed (nothing said against it).
    expect(judgeRule([vote('neither'), vote('rule')], ['turn'])).toEqual({ overturned: [], contradicted: [] });
  });

  it('judge each question the rule answers on its own votes', () => {
    const votes = [1, 2, 3].map((n) => vote('other', 'reasoning', n));
    expect(judgeRule(votes, ['turn', 'reasoning'])).toEqual({ overturned: ['reasoning'], contradicted: [] });
    // A question the rule leaves open is the counts' already: never judged.
    expect(judgeRule(votes, ['turn'])).toEqual({ overturned: [], contradicted: [] });
  });
});
