/**
 * core/persistent.ts: the walk's state stays readable as it was after every later step (the
 * calibration's purity rests on it), batched writes touch only what their own step made.
 */
import { describe, expect, it } from 'vitest';
import { closeEdit, Keys, newEdit, PList, PMap, PSet } from '../../src/node/core/persistent';

describe('persistent collections (the calibration walk’s state)', () => {
  it('a map keeps insertion order: set again keeps its place, deleted and set again goes last', () => {
    let m = PMap.empty<string, number>().set('a', 1).set('b', 2).set('c', 3);
    m = m.set('a', 10).delete('b').set('b', 20);
    expect([...m]).toEqual([
      ['a', 10],
      ['c', 3],
      ['b', 20],
    ]);
    expect(m.size).toBe(3);
  });

  it('a write leaves the map it was given as it was, across chunks', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `k${i}`);
    const before = keys.reduce((m, k, i) => m.set(k, i), PMap.empty<string, number>());
    const after = before.set('k500', -1).delete('k3').set('new', 7);
    expect(before.get('k500')).toBe(500);
    expect(before.has('k3')).toBe(true);
    expect(before.has('new')).toBe(false);
    expect(before.size).toBe(1000);
    expect(after.get('k500')).toBe(-1);
    expect(after.size).toBe(1000);
    expect([...after.keys()].at(-1)).toBe('new');
  });

  it('forEach visits what iteration yields, in the same order, in each mode', () => {
    const keys = new Keys<string>();
    const write = (m: PMap<string, number>) =>
      m.set('a', 1).set('b', 2).set('c', 3).set('a', 10).delete('b').set('b', 20).delete('c');
    for (const m of [write(PMap.empty<string, number>(keys)), write(PMap.empty<string, number>(keys, 'unordered'))]) {
      const visited: [string, number][] = [];
      m.forEach((value, key) => visited.push([key, value]));
      expect(visited).toEqual([...m]);
      expect(visited.map(([k]) => k).sort()).toEqual(['a', 'b']);
    }
  });

  it('writes under an open edit are batched; once closed, the result is never written again', () => {
    const start = PMap.empty<string, number>().set('a', 1);
    const edit = newEdit();
    const one = start.set('b', 2, edit);
    const two = one.set('a', 3, edit);
    closeEdit(edit);
    const three = two.set('a', 4, edit);
    expect(start.get('a')).toBe(1);
    expect(two.get('a')).toBe(3);
    expect(three.get('a')).toBe(4);
    expect(two.get('a')).toBe(3);
  });

  it('the unordered map and the set answer as the ordered map does', () => {
    const u = PMap.empty<number, string>(undefined, 'unordered').set(2, 'x').set(1, 'y').delete(2).set(2, 'z');
    expect(new Map(u)).toEqual(
      new Map([
        [2, 'z'],
        [1, 'y'],
      ]),
    );
    const s = PSet.empty<string>().add('a').add('b').delete('a').add('a');
    expect([...s]).toEqual(['b', 'a']);
    expect(s.clear().size).toBe(0);
  });

  it('a list shares its array with what is pushed onto it, and a push onto an older list forks', () => {
    const a = PList.of([1]);
    const b = a.push(2);
    const c = a.push(3);
    expect(a.toArray()).toEqual([1]);
    expect(b.toArray()).toEqual([1, 2]);
    expect(c.toArray()).toEqual([1, 3]);
    expect(c.last()).toBe(3);
  });
});

describe('persistent maps past one node of the trie', () => {
  it('every version reads as it was written, across levels, with and without edits (against a Map)', () => {
    // 40,000 keys: four levels of 32-wide nodes. Each round writes under an edit of its own
    // (some in place) and keeps its result; every kept version is then read back in full.
    const keys = new Keys<number>();
    let map = PMap.empty<number, number>(keys, 'unordered');
    const model = new Map<number, number>();
    const kept: [PMap<number, number>, Map<number, number>][] = [];
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 40; round++) {
      const edit = round % 3 === 0 ? null : newEdit();
      for (let w = 0; w < 1000; w++) {
        const key = random(40_000);
        if (random(5) === 0) {
          map = map.delete(key, edit);
          model.delete(key);
        } else {
          map = map.set(key, round * 1000 + w, edit);
          model.set(key, round * 1000 + w);
        }
      }
      closeEdit(edit);
      kept.push([map, new Map(model)]);
    }
    for (const [version, expected] of kept) {
      expect(version.size).toBe(expected.size);
      for (let key = 0; key < 40_000; key += 7) expect(version.get(key)).toBe(expected.get(key));
      expect(new Map(version)).toEqual(expected);
    }
  });
});
