/**
 * Persistent collections for the calibration walk (calibration-state.ts): a step returns a new
 * collection and the one it was given reads as before — no copy of the whole, no hashing tree.
 *
 * - `PMap`: keys numbered once (an interning table shared by every map made from the same empty
 *   one), values in an array cut in chunks of 128 indexed by that number; a write copies the
 *   chunk it touches and the short array of chunks, nothing else. Iteration is in insertion
 *   order (set on a present key keeps its place; deleted and set again goes last): an
 *   append-only log of positions, an entry live while its key's position points at it.
 * - `PList`: an append-only log. A list shares its array with the lists made from it by `push`
 *   (each knows its own length); appending to a list whose array has grown past it copies first.
 *
 * Writes inside one walk step may be batched (an `Edit` given to a write: Immutable.js's owner
 * idea): the chunks and arrays allocated under the step's edit are written in place, those of any
 * state before it never; the step's result is read with no edit, and the next step has a new one. Measured against Immutable.js 5.2.1 and
 * the mutable walk class on the 1 M-token bench session: docs/architecture.md.
 */

const BITS = 7;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

/** A batch of writes inside one step: arrays allocated under it may be written in place. */
export type Edit = { readonly edit: true };

/** A new batch (one step's). */
export const newEdit = (): Edit => ({ edit: true });

/** Each key's number, given on first sight (never reused: numbering only, no meaning). */
export class Keys<K> {
  private readonly numbers = new Map<K, number>();
  readonly at: K[] = [];
  number(key: K): number {
    let n = this.numbers.get(key);
    if (n === undefined) {
      n = this.at.length;
      this.numbers.set(key, n);
      this.at.push(key);
    }
    return n;
  }
  find(key: K): number | undefined {
    return this.numbers.get(key);
  }
}

/** A sparse array in chunks, copied chunk by chunk on write. */
interface Dense<V> {
  readonly chunks: readonly (readonly V[] | undefined)[];
  /** The edit each chunk was allocated under, if any; the edit the two arrays were. */
  readonly owners: readonly (Edit | undefined)[];
  readonly own: Edit | null;
}

const EMPTY_DENSE: Dense<never> = { chunks: [], owners: [], own: null };

const denseGet = <V>(d: Dense<V>, i: number): V | undefined => d.chunks[i >> BITS]?.[i & MASK];

function denseSet<V>(d: Dense<V>, i: number, v: V | undefined, edit: Edit | null): Dense<V> {
  const inPlace = edit !== null && d.own === edit;
  const chunks = (inPlace ? d.chunks : d.chunks.slice()) as (V[] | undefined)[];
  const owners = (inPlace ? d.owners : d.owners.slice()) as (Edit | undefined)[];
  const c = i >> BITS;
  let chunk = chunks[c];
  if (edit === null || owners[c] !== edit || !chunk) {
    chunk = chunk ? chunk.slice() : new Array<V>(WIDTH);
    chunks[c] = chunk;
    owners[c] = edit ?? undefined;
  }
  chunk[i & MASK] = v as V;
  return inPlace ? d : { chunks, owners, own: edit };
}

/** An append-only list, persistent: see the module's comment. */
export class PList<T> implements Iterable<T> {
  private constructor(
    private readonly entries: readonly T[],
    readonly size: number,
  ) {}

  static of<T>(items: readonly T[] = []): PList<T> {
    return new PList(items.slice(), items.length);
  }

  push(item: T): PList<T> {
    const entries = (this.entries.length === this.size ? this.entries : this.entries.slice(0, this.size)) as T[];
    entries.push(item);
    return new PList(entries, this.size + 1);
  }

  concat(items: readonly T[]): PList<T> {
    return items.reduce<PList<T>>((list, item) => list.push(item), this);
  }

  get(index: number): T | undefined {
    return index >= 0 && index < this.size ? this.entries[index] : undefined;
  }

  last(): T | undefined {
    return this.get(this.size - 1);
  }

  toArray(): T[] {
    return this.entries.slice(0, this.size);
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.size; i++) yield this.entries[i]!;
  }
}

/** A map in insertion order, persistent: see the module's comment. */
export class PMap<K, V> implements Iterable<[K, V]> {
  private constructor(
    private readonly keyTable: Keys<K>,
    private readonly vals: Dense<V>,
    /** Per key number, its place in `order` + 1 (absent: undefined). */
    private readonly place: Dense<number>,
    private readonly order: PList<number>,
    readonly size: number,
  ) {}

  /** An empty map numbering its keys in `keys` (shared by every map made from it). */
  static empty<K, V>(keys: Keys<K> = new Keys()): PMap<K, V> {
    return new PMap<K, V>(keys, EMPTY_DENSE, EMPTY_DENSE, PList.of(), 0);
  }

  get(key: K): V | undefined {
    const n = this.keyTable.find(key);
    return n === undefined || denseGet(this.place, n) === undefined ? undefined : denseGet(this.vals, n);
  }

  has(key: K): boolean {
    const n = this.keyTable.find(key);
    return n !== undefined && denseGet(this.place, n) !== undefined;
  }

  set(key: K, value: V, edit: Edit | null = null): PMap<K, V> {
    const n = this.keyTable.number(key);
    const values = denseSet(this.vals, n, value, edit);
    if (denseGet(this.place, n) !== undefined) return this.with(values, this.place, this.order, this.size);
    const place = denseSet(this.place, n, this.order.size + 1, edit);
    return this.with(values, place, this.order.push(n), this.size + 1);
  }

  delete(key: K, edit: Edit | null = null): PMap<K, V> {
    const n = this.keyTable.find(key);
    if (n === undefined || denseGet(this.place, n) === undefined) return this;
    const values = denseSet(this.vals, n, undefined, edit);
    return this.with(values, denseSet(this.place, n, undefined, edit), this.order, this.size - 1);
  }

  /** Empty, the same key numbering. */
  clear(): PMap<K, V> {
    return this.size === 0 ? this : PMap.empty(this.keyTable);
  }

  *entries(): Generator<[K, V]> {
    let i = 0;
    for (const n of this.order) {
      i++;
      if (denseGet(this.place, n) === i) yield [this.keyTable.at[n]!, denseGet(this.vals, n)!];
    }
  }

  *keys(): Generator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): Generator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): Iterator<[K, V]> {
    return this.entries();
  }

  private with(values: Dense<V>, place: Dense<number>, order: PList<number>, size: number): PMap<K, V> {
    if (values === this.vals && place === this.place && order === this.order && size === this.size) return this;
    return new PMap(this.keyTable, values, place, order, size);
  }
}

/** A set in insertion order: a map to `true`. */
export class PSet<K> implements Iterable<K> {
  private constructor(private readonly map: PMap<K, true>) {}

  static empty<K>(keys?: Keys<K>): PSet<K> {
    return new PSet(PMap.empty<K, true>(keys));
  }

  get size(): number {
    return this.map.size;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  add(key: K, edit: Edit | null = null): PSet<K> {
    return this.has(key) ? this : this.wrap(this.map.set(key, true, edit));
  }

  delete(key: K, edit: Edit | null = null): PSet<K> {
    return this.wrap(this.map.delete(key, edit));
  }

  clear(): PSet<K> {
    return this.wrap(this.map.clear());
  }

  [Symbol.iterator](): Iterator<K> {
    return this.map.keys();
  }

  private wrap(map: PMap<K, true>): PSet<K> {
    return map === this.map ? this : new PSet(map);
  }
}
