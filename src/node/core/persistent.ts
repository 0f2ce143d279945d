/**
 * Persistent collections for the calibration walk (calibration-state.ts): a step returns a new
 * collection and the one it was given reads as before — no copy of the whole, no hashing tree.
 *
 * - `PMap`: keys numbered once (an interning table shared by every map made from the same empty
 *   one), values in a trie of 32-wide nodes indexed by that number; a write copies the nodes on
 *   its path (three at 12,000 keys), nothing else. Iteration is in insertion
 *   order (set on a present key keeps its place; deleted and set again goes last): an
 *   append-only log of positions, an entry live while its key's position points at it.
 * - `PList`: an append-only log. A list shares its array with the lists made from it by `push`
 *   (each knows its own length); appending to a list whose array has grown past it copies first.
 *
 * Writes inside one walk step may be batched (an `Edit` given to a write: Immutable.js's owner
 * idea): the nodes and arrays allocated under the step's edit are written in place, those of any
 * state before it never; the step's result is read with no edit, and the next step has a new one.
 * Measured against Immutable.js 5.2.1 and the mutable walk class on the 1 M-token bench session:
 * docs/architecture.md.
 */

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

/** A batch of writes inside one step: arrays allocated under it may be written in place while it is open. */
export interface Edit {
  readonly open: boolean;
}

/** A new batch (one step's), open until `closeEdit`. */
export const newEdit = (): Edit => ({ open: true });

/** The batch ended: what was written under it is never written again (every later write copies). */
export function closeEdit(edit: Edit | null): void {
  if (edit) (edit as { open: boolean }).open = false;
}

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

/**
 * A node of a sparse array's trie: 32 slots (values at the leaves, nodes above), and the edit it
 * was allocated under — kept on the node, so a write copies only the nodes on its path.
 */
interface Node {
  readonly edit: Edit | null;
  readonly slots: unknown[];
}

/**
 * A sparse array as a trie of 32-wide nodes, as deep as its largest index needs (`shift`: the
 * bits above the leaf's). A write copies the three or so nodes on its path — 96 slots at 12,000
 * keys, where a flat array of 128-wide chunks copied the chunk array, its owners and the chunk
 * (about 320): the walk's commonest allocation (docs/benchmarks.md, issue 42.2).
 */
interface Dense {
  readonly root: Node | undefined;
  readonly shift: number;
}

const EMPTY_DENSE: Dense = { root: undefined, shift: 0 };

function denseGet<V>(d: Dense, i: number): V | undefined {
  if (i >>> d.shift >= WIDTH) return undefined;
  let node = d.root;
  for (let level = d.shift; level > 0 && node; level -= BITS)
    node = node.slots[(i >>> level) & MASK] as Node | undefined;
  return node?.slots[i & MASK] as V | undefined;
}

/** `node` with slot `i` (under `level`) set: the node itself when `edit` made it, else a copy. */
function nodeSet(node: Node | undefined, level: number, i: number, v: unknown, edit: Edit | null): Node {
  const own = node !== undefined && edit !== null && node.edit === edit;
  const out: Node = own ? node : { edit, slots: node ? node.slots.slice() : new Array<unknown>(WIDTH) };
  const slot = (i >>> level) & MASK;
  out.slots[slot] = level === 0 ? v : nodeSet(out.slots[slot] as Node | undefined, level - BITS, i, v, edit);
  return out;
}

function denseSet(d: Dense, i: number, v: unknown, given: Edit | null): Dense {
  const edit = given?.open ? given : null;
  let { root, shift } = d;
  // Deeper until index i fits: the old root becomes the first slot of a new one.
  while (i >>> shift >= WIDTH) {
    if (root) root = { edit, slots: [root] };
    shift += BITS;
  }
  const next = nodeSet(root, shift, i, v, edit);
  return next === d.root && shift === d.shift ? d : { root: next, shift };
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

/**
 * How a map keeps its keys: in insertion order with values (`ordered`); values only, iterated in
 * first-set order (`unordered`: half the copying); in insertion order with no values (`set`).
 */
type Mode = 'ordered' | 'unordered' | 'set';

/** A map in insertion order, persistent: see the module's comment. */
export class PMap<K, V> implements Iterable<[K, V]> {
  private constructor(
    private readonly keyTable: Keys<K>,
    private readonly mode: Mode,
    private readonly vals: Dense,
    /** Per key number, its place in `order` + 1 (absent: undefined); unused when unordered. */
    private readonly place: Dense,
    private readonly order: PList<number>,
    readonly size: number,
  ) {}

  /** An empty map numbering its keys in `keys` (shared by every map made from it). */
  static empty<K, V>(keys: Keys<K> = new Keys(), mode: Mode = 'ordered'): PMap<K, V> {
    return new PMap<K, V>(keys, mode, EMPTY_DENSE, EMPTY_DENSE, PList.of(), 0);
  }

  private present(n: number): boolean {
    return (this.mode === 'unordered' ? denseGet<V>(this.vals, n) : denseGet<number>(this.place, n)) !== undefined;
  }

  private valueAt(n: number): V | undefined {
    if (this.mode === 'set') return (this.present(n) ? true : undefined) as V | undefined;
    return denseGet<V>(this.vals, n);
  }

  get(key: K): V | undefined {
    const n = this.keyTable.find(key);
    return n === undefined ? undefined : this.valueAt(n);
  }

  has(key: K): boolean {
    const n = this.keyTable.find(key);
    return n !== undefined && this.present(n);
  }

  set(key: K, value: V, edit: Edit | null = null): PMap<K, V> {
    const n = this.keyTable.number(key);
    const present = this.present(n);
    const values = this.mode === 'set' ? this.vals : denseSet(this.vals, n, value, edit);
    if (present) return this.with(values, this.place, this.order, this.size);
    const place = this.mode === 'unordered' ? this.place : denseSet(this.place, n, this.order.size + 1, edit);
    return this.with(values, place, this.order.push(n), this.size + 1);
  }

  delete(key: K, edit: Edit | null = null): PMap<K, V> {
    const n = this.keyTable.find(key);
    if (n === undefined || !this.present(n)) return this;
    const values = this.mode === 'set' ? this.vals : denseSet(this.vals, n, undefined, edit);
    const place = this.mode === 'unordered' ? this.place : denseSet(this.place, n, undefined, edit);
    return this.with(values, place, this.order, this.size - 1);
  }

  /** Empty, the same key numbering. */
  clear(): PMap<K, V> {
    return this.size === 0 ? this : PMap.empty(this.keyTable, this.mode);
  }

  /** The entries in order, collected at once (the map never changes): an array's iterator, no generator. */
  entries(): IterableIterator<[K, V]> {
    const entries: [K, V][] = [];
    this.forEach((value, key) => entries.push([key, value]));
    return entries[Symbol.iterator]();
  }

  /** Each entry in order, with no iterator or pair made per entry (a report's snapshot reads thousands). */
  forEach(visit: (value: V, key: K) => void): void {
    const seen = this.mode === 'unordered' ? new Set<number>() : null;
    const { keyTable, order } = this;
    for (let i = 0; i < order.size; i++) {
      const n = order.get(i)!;
      const live = seen ? this.present(n) && !seen.has(n) && !!seen.add(n) : denseGet<number>(this.place, n) === i + 1;
      if (live) visit(this.valueAt(n)!, keyTable.at[n]!);
    }
  }

  /** The keys in order, with no pair made per entry (a call's fresh items are its new keys). */
  keys(): IterableIterator<K> {
    const keys: K[] = [];
    this.forEach((_, key) => keys.push(key));
    return keys[Symbol.iterator]();
  }

  values(): IterableIterator<V> {
    const values: V[] = [];
    this.forEach((value) => values.push(value));
    return values[Symbol.iterator]();
  }

  [Symbol.iterator](): Iterator<[K, V]> {
    return this.entries();
  }

  private with(values: Dense, place: Dense, order: PList<number>, size: number): PMap<K, V> {
    if (values === this.vals && place === this.place && order === this.order && size === this.size) return this;
    return new PMap(this.keyTable, this.mode, values, place, order, size);
  }
}

/** A set in insertion order: a map to `true`. */
export class PSet<K> implements Iterable<K> {
  private constructor(private readonly map: PMap<K, true>) {}

  static empty<K>(keys?: Keys<K>): PSet<K> {
    return new PSet(PMap.empty<K, true>(keys, 'set'));
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
