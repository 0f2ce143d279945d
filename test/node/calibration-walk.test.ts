/**
 * The calibration walk's steps one by one (core/calibration-view.ts, core/calibration-call.ts,
 * the fold of core/calibration-walk.ts): each `(state, …) → state` on the smallest session that
 * shows what it decides, and that it leaves the state it was given as it was. The whole walk is
 * held to recorded sessions elsewhere (ground-truth, public-exports, calibration tests, and the
 * byte-identical `npm run report-snapshots`).
 */
import { describe, expect, it } from 'vitest';
import {
  applyCallAccount,
  billCall,
  closeCall,
  keepSnapshot,
  openCall,
  recordPoint,
  runtimeAtCall,
  shareCallGrowth,
} from '../../src/node/core/calibration-call';
import {
  startWalk,
  walkContext,
  windowSteps,
  type Measuring,
  type WalkState,
} from '../../src/node/core/calibration-state';
import {
  addItem,
  addItems,
  addSegments,
  applyPrunes,
  assignAll,
  assignCost,
  enterMessage,
  excludeReasoning,
  removeItem,
} from '../../src/node/core/calibration-view';
import { walk, walkEvents } from '../../src/node/core/calibration-walk';
import type { CalibrationInput, Item, ModelCall } from '../../src/node/core/types';

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
    tokens: null,
    cost: null,
    model: 'local/m',
    runtime: JSON.stringify(['build', 'local/m', false]),
    compaction: false,
    family: 'openai',
    ...over,
  }) as ModelCall;

/** A session of these messages' items; a message listed in `restarts` restarts the window to its order. */
function input(
  items: Item[][],
  options: { users?: number[]; restarts?: Record<number, number[]>; calls?: ModelCall[]; always?: Item[] } = {},
): CalibrationInput {
  const messages = items.map((_, i) => ({
    id: `msg_${i}`,
    userTurn: options.users?.includes(i) ?? false,
    lastActivity: i,
  }));
  return {
    session: {
      messages,
      calls: options.calls ?? [],
      window: () => {
        const window = {
          order: [] as number[],
          append(index: number) {
            const restart = options.restarts?.[index];
            if (restart) window.order = restart;
            else window.order.push(index);
            return restart !== undefined;
          },
        };
        return window;
      },
    },
    items,
    alwaysLoaded: options.always ?? [],
    usage: null,
  };
}

const start = (given: CalibrationInput, rules: Parameters<typeof startWalk>[1] = {}) =>
  startWalk(walkContext(given), rules);

/** A state with messages entered and their items in view, as the fold leaves it after them. */
function entered(given: CalibrationInput, upTo: number, rules: Parameters<typeof startWalk>[1] = {}): WalkState {
  let s = start(given, rules);
  for (let i = 0; i <= upTo; i++) s = addSegments(enterMessage(s, i), i, Infinity);
  return s;
}

describe('the window, message by message', () => {
  it('shares each order with the one before, and restarts it at a compaction', () => {
    const { window } = windowSteps(input([[], [], [], []], { restarts: { 2: [0, 2] } }));
    expect(window.map((w) => [w.restarted, w.order.toArray()])).toEqual([
      [false, [0]],
      [false, [0, 1]],
      [true, [0, 2]],
      [false, [0, 2, 3]],
    ]);
  });
});

describe('the view steps', () => {
  it('adds an item once, marked new since the last call, leaving the given state as it was', () => {
    const a = item('a', 10);
    const before = start(input([[a]]));
    const after = addItem(before, a);
    expect([...after.view.keys()]).toEqual(['a']);
    expect([...after.addedSinceCall]).toEqual(['a']);
    expect(addItem(after, item('a', 99)).view.get('a')!.tokens).toBe(10);
    expect(before.view.size).toBe(0);
  });

  it('sets an item cost and keeps the sums: per source, in all, and the counted reasoning', () => {
    const r = item('r', 10, { reasoning: true });
    const s = assignCost(addItem(start(input([[r]])), r), r, 40, 'measured');
    expect(s.cal.get('r')).toBe(40);
    expect(s.basis.get('r')).toBe('measured');
    expect(s.calTotal).toBe(40);
    expect(s.bySource.evidence).toBe(40);
    expect(s.reasoningCal).toBe(40);
    expect(assignCost(s, r, 25, 'estimated').reasoningCal).toBe(25);
  });

  it('sets many costs in one pass as the costs set one by one would, the given state untouched', () => {
    const [a, r, x] = [item('a', 10), item('r', 5, { reasoning: true }), item('x', 7, { source: 'conversation' })];
    const base = [a, r, x].reduce(addItem, start(input([[a, r, x]]), { billing: true }));
    // The same key twice: the second sees the first's cost, as a fold does.
    const assigned = [
      { item: a, tokens: 30, basis: 'measured' as const },
      { item: r, tokens: 8, basis: 'estimated' as const },
      { item: a, tokens: 12, basis: 'estimated' as const },
      { item: x, tokens: 4, basis: 'measured' as const },
    ];
    const batched = assignAll(base, assigned);
    const folded = assigned.reduce((s, c) => assignCost(s, c.item, c.tokens, c.basis), base);
    const facts = (s: WalkState) => ({
      cal: [...s.cal],
      basis: [...s.basis],
      bySource: s.bySource,
      calTotal: s.calTotal,
      reasoningCal: s.reasoningCal,
      bills: s.bills.toArray(),
    });
    expect(facts(batched)).toEqual(facts(folded));
    expect(batched.calTotal).toBe(24);
    expect(base.cal.size).toBe(0);
    expect(assignAll(base, [])).toBe(base);
  });

  it('brings many items in at once as adding them one by one would', () => {
    const [a, r] = [item('a', 10), item('r', 5, { reasoning: true })];
    const base = addItem(start(input([[a, r]])), a);
    const batched = addItems(base, [a, r, r]);
    const folded = [a, r, r].reduce(addItem, base);
    expect([...batched.view.keys()]).toEqual([...folded.view.keys()]);
    expect([...batched.addedSinceCall]).toEqual(['a', 'r']);
    expect([...batched.reasoningInView]).toEqual(['r']);
    expect(addItems(base, [a])).toBe(base);
    expect(base.view.size).toBe(1);
  });

  it('takes an item out of view with its cost, and bills its leaving only while billing', () => {
    const a = item('a', 10);
    const view = (billing: boolean) => assignCost(addItem(start(input([[a]]), { billing }), a), a, 30, 'measured');
    const gone = removeItem(view(true), 'a');
    expect(gone.view.has('a')).toBe(false);
    expect(gone.cal.has('a')).toBe(false);
    expect(gone.calTotal).toBe(0);
    expect(gone.bySource.evidence).toBe(0);
    expect(gone.bills.toArray().map((b) => b.kind)).toEqual(['settle', 'leave']);
    expect(removeItem(view(false), 'a').bills.size).toBe(0);
  });

  it('excludes reasoning the provider does not count from the counted sum, once', () => {
    const r = item('r', 10, { reasoning: true });
    const s = assignCost(addItem(start(input([[r]])), r), r, 40, 'measured');
    const out = excludeReasoning(s, 'r', 'notReceived');
    expect(out.reasoningCal).toBe(0);
    expect([...out.notReceived]).toEqual(['r']);
    expect(excludeReasoning(out, 'r', 'droppedAtTurn')).toBe(out);
  });

  it('brings a message in segment by segment, each item in the form it has now', () => {
    const given = input([[item('s0', 1), item('s1', 1, { segment: 1 }), item('later', 1, { from: 5 })]]);
    const s = enterMessage(start(given), 0);
    expect([...addSegments(s, 0, 1).view.keys()]).toEqual(['s0']);
    expect([...addSegments(s, 0, Infinity).view.keys()]).toEqual(['s0', 's1']);
    // Out of the window: only how far the message went is kept.
    expect(addSegments(start(given), 0, Infinity).view.size).toBe(0);
  });

  it('at a compaction, drops what the window no longer holds and brings back what it holds again', () => {
    const given = input([[item('a', 1)], [item('b', 1)], [item('summary', 1)]], { restarts: { 2: [0, 2] } });
    const s = enterMessage(entered(given, 1), 2);
    expect(s.compactedSinceCall).toBe(true);
    expect([...s.view.keys()]).toEqual(['a']);
    expect(s.order.toArray()).toEqual([0, 2]);
    expect([...s.inWindow].sort()).toEqual([0, 2]);
  });

  it('applies the prunes before a time: a whole output gives way to its placeholder', () => {
    const full = item('out', 500, { until: 10 });
    const placeholder = item('out:cleared', 5, { from: 10 });
    const s = entered(input([[full, placeholder]]), 0);
    expect([...s.view.keys()]).toEqual(['out']);
    const early = applyPrunes(s, 10);
    expect(early.prunedSinceCall).toBe(false);
    const pruned = applyPrunes(s, 11);
    expect([...pruned.view.keys()]).toEqual(['out:cleared']);
    expect(pruned.prunedSinceCall).toBe(true);
    expect(pruned.time).toBe(11);
  });
});

describe('a measured call, step by step', () => {
  const a = item('a', 30);
  const b = item('b', 20);
  const first = call({ prompt: 100, message: 0 });

  it('opens the first call on the whole view, and a later one on what is new since', () => {
    const s = entered(input([[a], [b]]), 0);
    const opened = openCall(s, first);
    expect(opened.callNumber).toBe(1);
    expect(opened.current).toMatchObject({ first: true, prompt: 100, events: [] });
    expect(opened.current.fresh.map((i) => i.key)).toEqual(['a']);
    const later = openCall(
      addSegments(enterMessage(closeCall({ ...opened, overhead: 50 }, first), 1), 1, Infinity),
      first,
    );
    expect(later.current.first).toBe(false);
    expect(later.current.fresh.map((i) => i.key)).toEqual(['b']);
  });

  it('after a compaction, drops the hidden reasoning and the unexplained, and says so', () => {
    const s = { ...entered(input([[a]]), 0), overhead: 10, compactedSinceCall: true, unexplained: 7 };
    const opened = openCall({ ...s, hidden: [{ call: 1, messageId: 'm', tokens: 300 }] }, first);
    expect(opened.hidden).toEqual([]);
    expect(opened.unexplained).toBe(0);
    expect(opened.current.events).toEqual(['compaction']);
    expect(opened.current.hiddenBefore).toBe(0);
  });

  it('measures the runtime at the first call as what the prompt holds beyond the view', () => {
    const s = runtimeAtCall(openCall(entered(input([[a, b]]), 0), first), first);
    expect(s.overhead).toBe(50);
    expect(s.calTotal).toBe(50);
    expect(s.runtimeChanges.toArray()).toEqual([expect.objectContaining({ delta: 50, reason: 'first call' })]);
    expect(s.current.added.map((i) => i.key)).toEqual(['a', 'b']);
  });

  it('takes a runtime met before as it was measured then', () => {
    const build = JSON.stringify(['build', 'local/m', false]);
    const plan = JSON.stringify(['plan', 'local/m', false]);
    const opened = openCall(
      {
        ...entered(input([[a]]), 0),
        overhead: 80,
        runtimeKey: plan,
        overheads: startWalk(walkContext(input([[]]))).overheads.set(build, 50),
      },
      first,
    );
    const s = runtimeAtCall({ ...opened, callNumber: 2 }, first);
    expect(s.overhead).toBe(50);
    expect(s.current.events).toEqual(['overhead_change']);
    expect(s.current.change).toBeNull();
  });

  /** A later call opened on `fresh`, with a runtime of 50 and `carried` in view already. */
  function later(fresh: Item[], prompt: number): Measuring {
    const given = input([[a], fresh]);
    let s: WalkState = { ...entered(given, 0), overhead: 50, runtimeKey: first.runtime };
    s = closeCall(openCall(assignCost(s, a, 30, 'measured'), first), first);
    s = addSegments(enterMessage(s, 1), 1, Infinity);
    const at = call({ prompt, message: 1, time: 1 });
    return runtimeAtCall(openCall(s, at), at);
  }

  it('shares a later call growth among its new items by their estimates', () => {
    const c = item('c', 40);
    const d = item('d', 10);
    const s = later([c, d], 50 + 30 + 100);
    const applied = applyCallAccount({
      ...s,
      current: { ...s.current, account: { keep: true, add: false, dropReasoning: false, received: true } },
    });
    const shared = shareCallGrowth(applied, call({ prompt: 180, message: 1 }));
    expect(shared.cal.get('c')).toBe(80);
    expect(shared.cal.get('d')).toBe(20);
    expect(shared.unexplained).toBe(0);
    expect(shared.calTotal + shared.overhead!).toBe(180);
  });

  it('applies an account that adds the previous call hidden reasoning and does not receive the visible', () => {
    const r = item('r', 60, { reasoning: true });
    const s = later([r], 200);
    const withPrevious = { ...s, previous: { call: first, number: 1, hidden: 120 } };
    const applied = applyCallAccount({
      ...withPrevious,
      current: {
        ...s.current,
        reasoning: [r],
        account: { keep: true, add: true, dropReasoning: false, received: false },
      },
    });
    expect(applied.hidden).toEqual([{ call: 1, messageId: 'msg_0', tokens: 120 }]);
    expect(applied.current.events).toEqual(['hidden_reasoning']);
    expect([...applied.notReceived]).toEqual(['r']);
    expect(applied.current.added).toEqual([]);
    expect(applied.cal.get('r')).toBe(0);
  });

  it('bills a call only while the walk bills', () => {
    const opened = runtimeAtCall(openCall(entered(input([[a]]), 0, { billing: true }), first), first);
    const billed = billCall(opened, first);
    expect(billed.bills.last()).toMatchObject({
      kind: 'call',
      prompt: { total: 100, runtime: 70, runtimeFresh: true },
    });
    expect(billCall({ ...opened, billing: false }, first).bills).toBe(opened.bills);
  });

  it('records the call on the timeline and keeps its runtime for a switch back', () => {
    const s = recordPoint(runtimeAtCall(openCall(entered(input([[a]]), 0), first), first), first);
    expect(s.timeline.toArray()).toEqual([
      expect.objectContaining({
        call: 1,
        promptTokens: 100,
        runtimeOverhead: 70,
        added: [expect.objectContaining({ key: 'a', tokens: 30 })],
      }),
    ]);
    expect(s.overheads.get(first.runtime)).toBe(70);
    expect(s.runtimeKey).toBe(first.runtime);
  });

  it('keeps the state at the reference call only, and stops billing there as of an earlier call', () => {
    const given = { ...input([[a]]), asOfCall: 1 };
    const at = (reference: ModelCall | null) =>
      keepSnapshot(runtimeAtCall(openCall(entered(given, 0, { billing: true, reference }), first), first), first);
    expect(at(null).snapshot).toBeNull();
    const kept = at(first);
    expect(kept.snapshot).toMatchObject({ overhead: 70, ordered: [a], history: [] });
    expect(kept.billing).toBe(false);
  });

  it('closes the call: it is the previous one now, and nothing is new since', () => {
    const produced = call({ prompt: 100, produced: 400 });
    const s = closeCall(openCall({ ...entered(input([[a]], { users: [0] }), 0), overhead: 1 }, produced), produced);
    expect(s.previous).toEqual({ call: produced, number: 1, hidden: 400 });
    expect(s.turnStart).toBe(1);
    expect(s.current).toBeNull();
    expect(s.addedSinceCall.size).toBe(0);
    expect(s.userSinceCall).toBe(false);
  });
});

describe('the walk as a fold', () => {
  it('meets each message, its calls, its end, and the session end (not when walked to a prefix)', () => {
    const calls = [call({ message: 1 }), call({ message: 1, segment: 1 })];
    const kinds = (until: number) => [...walkEvents(3, calls, until)].map((e) => e.kind);
    expect(kinds(Infinity)).toEqual([
      'message',
      'messageEnd',
      'message',
      'call',
      'call',
      'messageEnd',
      'message',
      'messageEnd',
      'end',
    ]);
    expect(kinds(0)).toEqual(['message', 'messageEnd']);
  });

  it('gives the same state for the same input, whatever was walked before on the same context', () => {
    const calls = [call({ message: 1, prompt: 100, time: 1 }), call({ message: 2, prompt: 180, time: 2 })];
    const given = input([[item('u', 10)], [item('x', 30)], [item('y', 40)]], { users: [0], calls });
    const context = walkContext(given);
    const once = walk(context, { billing: true }, calls);
    const again = walk(context, { billing: true }, calls);
    expect(again.timeline.toArray()).toEqual(once.timeline.toArray());
    expect(again.bills.toArray()).toEqual(once.bills.toArray());
    expect(once.timeline.toArray().map((p) => p.promptTokens)).toEqual([100, 180]);
  });
});
