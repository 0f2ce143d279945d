/**
 * A BPE rank table in a compact binary form, read without parsing: the ranks, lengths and bytes
 * of every token as typed arrays over one file the build writes (scripts/build-node.mjs), and a
 * hash index built over them when the table loads (a few milliseconds). ai-tokenizer's own tables
 * are a JavaScript object of 200 k string keys: parsing the JSON copy of o200k took 360–460 ms of
 * a cold report's CPU and ~30 MB of heap (docs/benchmarks.md, issue 42.2).
 *
 * The package keeps two kinds of token: those whose bytes are valid UTF-8 ("string" tokens,
 * looked up by the decoded string) and the others ("binary" tokens, found by a binary search).
 * The lookups here answer as the package's do (bpe-counter.ts relies on it), both kinds kept
 * apart: a string token is looked up by its UTF-8 bytes, a binary one by its bytes.
 *
 * File layout (little-endian): "IBPE", format version, string count, binary count, blob length,
 * pattern length; the pattern (UTF-8); ranks (u32 each); lengths (u16 each, padded to 4 bytes);
 * the tokens' bytes, one after another (string tokens first).
 */
export const TABLE_MAGIC = 0x45504249; // "IBPE"
export const TABLE_FORMAT = 1;
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
  return { pattern: table.pat_str, strings, ranks, lengths, bytes };
}

/** The table in its file form (what the build writes). */
export function serialize(data: TableData): Uint8Array {
  const pattern = new TextEncoder().encode(data.pattern);
  const n = data.ranks.length;
  const head = 24 + align4(pattern.length);
  const lengthsAt = head + 4 * n;
  const bytesAt = lengthsAt + align4(2 * n);
  const out = new Uint8Array(bytesAt + data.bytes.length);
  const view = new DataView(out.buffer);
  [TABLE_MAGIC, TABLE_FORMAT, data.strings, n - data.strings, data.bytes.length, pattern.length].forEach((v, i) =>
    view.setUint32(4 * i, v, true),
  );
  out.set(pattern, 24);
  for (let i = 0; i < n; i++) view.setUint32(head + 4 * i, data.ranks[i]!, true);
  for (let i = 0; i < n; i++) view.setUint16(lengthsAt + 2 * i, data.lengths[i]!, true);
  out.set(data.bytes, bytesAt);
  return out;
}

/** A table file read back: views over the file's own memory where aligned (no copy, no parse). */
export function deserialize(file: Uint8Array): TableData {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const word = (i: number) => view.getUint32(4 * i, true);
  if (file.byteLength < 24 || word(0) !== TABLE_MAGIC || word(1) !== TABLE_FORMAT) {
    throw new Error('not a tokenizer table of this format');
  }
  const [strings, binaries, blob, patternLength] = [word(2), word(3), word(4), word(5)];
  const n = strings + binaries;
  const head = 24 + align4(patternLength);
  const lengthsAt = head + 4 * n;
  const bytesAt = lengthsAt + align4(2 * n);
  if (file.byteLength !== bytesAt + blob) throw new Error('tokenizer table truncated');
  const at = (offset: number) => file.byteOffset + offset;
  // Little-endian machines only read the file in place; the copy is for an unaligned buffer.
  const ranks =
    at(head) % 4 === 0
      ? new Uint32Array(file.buffer, at(head), n)
      : new Uint32Array(file.slice(head, lengthsAt).buffer);
  const lengths =
    at(lengthsAt) % 2 === 0
      ? new Uint16Array(file.buffer, at(lengthsAt), n)
      : new Uint16Array(file.slice(lengthsAt, lengthsAt + 2 * n).buffer);
  return {
    pattern: new TextDecoder().decode(file.subarray(24, 24 + patternLength)),
    strings,
    ranks,
    lengths,
    bytes: file.subarray(bytesAt, bytesAt + blob),
  };
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

/**
 * The index: open addressing over token numbers (+1; 0 is empty), twice as many slots as tokens
 * or more; and each two-byte token's rank in a 64 K array, since every BPE merge starts from pairs
 * of bytes.
 */
export class RankTable {
  readonly pattern: string;
  private readonly data: TableData;
  private readonly starts: Uint32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** The rank of each pair of bytes as the package finds it (a string token first, else a binary one). */
  readonly pairs = new Uint32Array(65536).fill(NO_RANK);

  constructor(data: TableData) {
    this.data = data;
    this.pattern = data.pattern;
    const n = data.ranks.length;
    this.starts = new Uint32Array(n);
    let size = 1;
    while (size < 2 * n) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    let at = 0;
    for (let i = 0; i < n; i++) {
      const length = data.lengths[i]!;
      this.starts[i] = at;
      const seed = i < data.strings ? STRING : BINARY;
      let slot = hashBytes(seed, data.bytes, at, at + length) & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = i + 1;
      if (length === 2) {
        const pair = (data.bytes[at]! << 8) | data.bytes[at + 1]!;
        // String tokens are looked up first: they win over a binary token of the same bytes.
        if (seed === STRING || this.pairs[pair] === NO_RANK) this.pairs[pair] = data.ranks[i]!;
      }
      at += length;
    }
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
    const { lengths, bytes: blob, ranks, strings } = this.data;
    const length = to - from;
    for (let slot = hashBytes(seed, bytes, from, to) & this.mask; ; slot = (slot + 1) & this.mask) {
      const token = this.slots[slot]! - 1;
      if (token < 0) return NO_RANK;
      if (lengths[token] !== length || token < strings !== (seed === STRING)) continue;
      const start = this.starts[token]!;
      let k = 0;
      while (k < length && blob[start + k] === bytes[from + k]) k++;
      if (k === length) return ranks[token]!;
    }
  }
}
