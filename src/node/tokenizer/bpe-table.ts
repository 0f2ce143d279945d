/**
 * A BPE rank table in a compact binary form, read without parsing: the ranks, lengths and bytes
 * of every token, and a hash index over them, as typed arrays over one file the build writes
 * (scripts/build-node.mjs). ai-tokenizer's own tables
 * are a JavaScript object of 200 k string keys: parsing the JSON copy of o200k took 360–460 ms of
 * a cold report's CPU and ~30 MB of heap (docs/benchmarks.md, issue 42.2).
 *
 * The package keeps two kinds of token: those whose bytes are valid UTF-8 ("string" tokens,
 * looked up by the decoded string) and the others ("binary" tokens, found by a binary search).
 * The lookups here answer as the package's do (bpe-counter.ts relies on it), both kinds kept
 * apart: a string token is looked up by its UTF-8 bytes, a binary one by its bytes.
 *
 * File layout (little-endian, each section 4-byte aligned): "IBPE", format version, string count,
 * binary count, blob length, pattern length, slot count; the pattern (UTF-8); ranks, starts,
 * slots and pair ranks (32 bits each); lengths (16 bits); the tokens' bytes, one after another
 * (string tokens first). The index (starts, slots, pairs) is built by the build, not at load:
 * building it took ~50 ms of the thread's CPU.
 */
export const TABLE_MAGIC = 0x45504249; // "IBPE"
export const TABLE_FORMAT = 2;
export const NO_RANK = 4294967295;

/** A table's tokens as the package gives them: string tokens by their text, binary ones by their bytes. */
export interface PackageTable {
  pat_str: string;
  stringEncoder: Record<string, number>;
  binaryEncoder: readonly (readonly [ArrayLike<number>, number])[];
}

export interface TableData {
  pattern: string;
  /** How many of the tokens (the first ones) are string tokens. */
  strings: number;
  ranks: Uint32Array;
  lengths: Uint16Array;
  bytes: Uint8Array;
  /** Where each token's bytes start in `bytes`. */
  starts: Uint32Array;
  /** Open addressing over token numbers (+1; 0 is empty), a power of two, at least twice the tokens. */
  slots: Int32Array;
  /** The rank of each pair of bytes as the package finds it (a string token first, else a binary one). */
  pairs: Uint32Array;
}

/** The package's table in this module's arrays (the build writes these; a checkout without a build reads the package). */
export function fromPackage(table: PackageTable): TableData {
  const encoder = new TextEncoder();
  const tokens: [Uint8Array, number][] = Object.entries(table.stringEncoder).map(([text, rank]) => [
    encoder.encode(text),
    rank,
  ]);
  const strings = tokens.length;
  for (const [bytes, rank] of table.binaryEncoder) tokens.push([Uint8Array.from(bytes), rank]);
  const ranks = new Uint32Array(tokens.length);
  const lengths = new Uint16Array(tokens.length);
  const bytes = new Uint8Array(tokens.reduce((n, [b]) => n + b.length, 0));
  let at = 0;
  tokens.forEach(([b, rank], i) => {
    ranks[i] = rank;
    lengths[i] = b.length;
    bytes.set(b, at);
    at += b.length;
  });
  return { pattern: table.pat_str, strings, ranks, lengths, bytes, ...indexOf(strings, ranks, lengths, bytes) };
}

/** The hash index over the tokens, and the pairs' ranks. */
function indexOf(strings: number, ranks: Uint32Array, lengths: Uint16Array, bytes: Uint8Array) {
  const n = ranks.length;
  const starts = new Uint32Array(n);
  let size = 1;
  while (size < 2 * n) size *= 2;
  const slots = new Int32Array(size);
  const pairs = new Uint32Array(65536).fill(NO_RANK);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const length = lengths[i]!;
    starts[i] = at;
    const seed = i < strings ? STRING : BINARY;
    let slot = hashBytes(seed, bytes, at, at + length) & (size - 1);
    while (slots[slot] !== 0) slot = (slot + 1) & (size - 1);
    slots[slot] = i + 1;
    if (length === 2) {
      const pair = (bytes[at]! << 8) | bytes[at + 1]!;
      // String tokens are looked up first: they win over a binary token of the same bytes.
      if (seed === STRING || pairs[pair] === NO_RANK) pairs[pair] = ranks[i]!;
    }
    at += length;
  }
  return { starts, slots, pairs };
}

/** The table in its file form (what the build writes). */
export function serialize(data: TableData): Uint8Array {
  const pattern = new TextEncoder().encode(data.pattern);
  const n = data.ranks.length;
  const header = [TABLE_MAGIC, TABLE_FORMAT, data.strings, n - data.strings, data.bytes.length, pattern.length];
  const sections = [
    new Uint8Array(new Uint32Array([...header, data.slots.length]).buffer),
    pattern,
    ...[data.ranks, data.starts, data.slots, data.pairs, data.lengths].map(
      (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength),
    ),
    data.bytes,
  ];
  const out = new Uint8Array(sections.reduce((n, section) => n + align4(section.length), 0));
  let at = 0;
  for (const section of sections) {
    out.set(section, at);
    at += align4(section.length);
  }
  return out;
}

/** A table file read back: views over the file's own memory (no copy, no parse). */
export function deserialize(file: Uint8Array): TableData {
  if (file.byteOffset % 4 !== 0) file = file.slice(); // a typed array's view must be aligned
  const words = (at: number, n: number) => new Uint32Array(file.buffer, file.byteOffset + at, n);
  const header = file.byteLength >= 28 ? words(0, 7) : null;
  if (!header || header[0] !== TABLE_MAGIC || header[1] !== TABLE_FORMAT) {
    throw new Error('not a tokenizer table of this format');
  }
  const [, , strings, binaries, blob, patternLength, slots] = header as unknown as number[];
  const n = strings! + binaries!;
  let at = 28;
  const take = (bytes: number) => {
    const from = at;
    at += align4(bytes);
    if (at > file.byteLength) throw new Error('tokenizer table truncated');
    return from;
  };
  const pattern = new TextDecoder().decode(file.subarray(take(patternLength!), 28 + patternLength!));
  const ranks = words(take(4 * n), n);
  const starts = words(take(4 * n), n);
  const index = new Int32Array(file.buffer, file.byteOffset + take(4 * slots!), slots!);
  const pairs = words(take(4 * 65536), 65536);
  const lengths = new Uint16Array(file.buffer, file.byteOffset + take(2 * n), n);
  const bytes = file.subarray(take(blob!), at).subarray(0, blob!);
  if (at !== file.byteLength) throw new Error('tokenizer table truncated');
  return { pattern, strings: strings!, ranks, lengths, bytes, starts, slots: index, pairs };
}

const align4 = (n: number) => (n + 3) & ~3;

/** FNV-1a over bytes, the kind of token as its seed. */
function hashBytes(seed: number, bytes: Uint8Array, from: number, to: number): number {
  let h = 2166136261 ^ seed;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 16777619);
  return (h ^ (h >>> 16)) >>> 0;
}

const STRING = 0;
const BINARY = 0x5bd1e995;

/** Look-ups in a table: by string token, by binary token, and by pair of bytes. */
export class RankTable {
  readonly pattern: string;
  readonly pairs: Uint32Array;
  private readonly mask: number;

  constructor(private readonly data: TableData) {
    this.pattern = data.pattern;
    this.pairs = data.pairs;
    this.mask = data.slots.length - 1;
  }

  /** The rank of a string token with these (UTF-8) bytes, else NO_RANK. */
  stringRank(bytes: Uint8Array, from: number, to: number): number {
    return this.find(STRING, bytes, from, to);
  }

  /** The rank of a binary token with these bytes, else NO_RANK. */
  binaryRank(bytes: Uint8Array, from: number, to: number): number {
    return this.find(BINARY, bytes, from, to);
  }

  private find(seed: number, bytes: Uint8Array, from: number, to: number): number {
    const { lengths, bytes: blob, ranks, strings, slots, starts } = this.data;
    const length = to - from;
    for (let slot = hashBytes(seed, bytes, from, to) & this.mask; ; slot = (slot + 1) & this.mask) {
      const token = slots[slot]! - 1;
      if (token < 0) return NO_RANK;
      if (lengths[token] !== length || token < strings !== (seed === STRING)) continue;
      const start = starts[token]!;
      let k = 0;
      while (k < length && blob[start + k] === bytes[from + k]) k++;
      if (k === length) return ranks[token]!;
    }
  }
}
