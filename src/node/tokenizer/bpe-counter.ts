/**
 * BPE token counts over a RankTable (bpe-table.ts), the same numbers as ai-tokenizer 1.0.6's
 * `encode(text, [], []).length` — the counts the database stores under `ai-tokenizer@1.0.6`
 * must not move (test/node/token-counter.test.ts compares both on every test corpus, and the
 * 1M-token bench workspace was compared text by text: docs/benchmarks.md). It only counts: no
 * token arrays, pieces counted once (a piece's count is cached, never its tokens), and merges
 * done in two typed arrays reused from piece to piece.
 *
 * Where the package's lookups have quirks, they are kept, since they decide counts:
 * - a piece is looked up whole as a property of a plain object, so a piece named like one of
 *   Object.prototype's members (`valueOf`) is one token even when the table has no such token;
 * - a slice of bytes is looked up by the string its UTF-8 decodes to, and the decoder drops a
 *   leading byte-order mark: a slice EF BB BF + "\n" has the rank of "\n".
 */
import type { RankTable } from './bpe-table';
import { NO_RANK } from './bpe-table';

/** Pieces whose count is kept (as the package keeps 100 000 pieces' tokens). */
const CACHE_SIZE = 100_000;

/** Names a plain object answers for without owning them: the package counts such a piece as one token. */
const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

export class BpeCounter {
  private readonly pattern: RegExp;
  private readonly cache = new Map<string, number>();
  private bytes = new Uint8Array(1024);
  private starts = new Int32Array(1024);
  private ranks = new Uint32Array(1024);

  constructor(private readonly table: RankTable) {
    this.pattern = new RegExp(table.pattern, 'ug');
    const one = new Uint8Array(1);
    for (let b = 0; b < 256; b++) {
      one[0] = b;
      // Every merge ends in single bytes or in merged pairs (which have a rank): a part without a
      // rank, which the package would leave out of its tokens, cannot occur.
      if (this.sliceRank(one, 0, 1) === NO_RANK) throw new Error(`tokenizer table lacks the byte ${b}`);
    }
  }

  /** Tokens of a text, special-token look-alikes counted as ordinary text. */
  count(text: string): number {
    const pattern = this.pattern;
    pattern.lastIndex = 0;
    let total = 0;
    let match: RegExpExecArray | null;
    while ((match = pattern.exec(text)) !== null) {
      const piece = match[0];
      let tokens = this.cache.get(piece);
      if (tokens === undefined) {
        tokens = this.countPiece(piece);
        if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
        this.cache.set(piece, tokens);
      }
      total += tokens;
    }
    return total;
  }

  private countPiece(piece: string): number {
    const length = this.encode(piece);
    // A well-formed piece is a string token exactly when its UTF-8 bytes are one (lone
    // surrogates never are: the tables' strings are all well-formed).
    if (length >= 0 && this.table.stringRank(this.bytes, 0, length) !== NO_RANK) return 1;
    if (PROTOTYPE_NAMES.has(piece)) return 1;
    return this.merge(length < 0 ? ~length : length);
  }

  /**
   * The piece's UTF-8 in `bytes` (lone surrogates as U+FFFD, as TextEncoder writes them): its
   * length, or its length's complement when the piece had a lone surrogate.
   */
  private encode(piece: string): number {
    if (this.bytes.length < piece.length * 3) this.bytes = new Uint8Array(piece.length * 3);
    const out = this.bytes;
    let n = 0;
    let wellFormed = true;
    for (let i = 0; i < piece.length; i++) {
      let c = piece.charCodeAt(i);
      if (c < 0x80) {
        out[n++] = c;
        continue;
      }
      if (c < 0x800) {
        out[n++] = 0xc0 | (c >> 6);
        out[n++] = 0x80 | (c & 63);
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = piece.charCodeAt(i + 1);
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          i++;
          out[n++] = 0xf0 | (c >> 18);
          out[n++] = 0x80 | ((c >> 12) & 63);
          out[n++] = 0x80 | ((c >> 6) & 63);
          out[n++] = 0x80 | (c & 63);
          continue;
        }
        wellFormed = false;
        c = 0xfffd;
      }
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
    return wellFormed ? n : ~n;
  }

  /**
   * Parts left after BPE merges the piece's bytes, in the package's order: the lowest rank
   * first, the leftmost of equal ranks; each merge re-ranks the pairs on either side.
   */
  private merge(length: number): number {
    if (this.starts.length <= length) {
      this.starts = new Int32Array(length + 1);
      this.ranks = new Uint32Array(length + 1);
    }
    const { starts, ranks, bytes } = this;
    const pairs = this.table.pairs;
    for (let i = 0; i <= length; i++) {
      starts[i] = i;
      ranks[i] = i < length - 1 ? pairs[(bytes[i]! << 8) | bytes[i + 1]!]! : NO_RANK;
    }
    let parts = length;
    while (parts > 0) {
      let min = NO_RANK;
      let at = -1;
      for (let i = 0; i < parts; i++) {
        if (ranks[i]! < min) {
          min = ranks[i]!;
          at = i;
        }
      }
      if (at < 0) break;
      starts.copyWithin(at + 1, at + 2, parts + 1);
      ranks.copyWithin(at, at + 1, parts + 1);
      parts--;
      ranks[at] = at + 2 <= parts ? this.sliceRank(bytes, starts[at]!, starts[at + 2]!) : NO_RANK;
      if (at > 0) ranks[at - 1] = this.sliceRank(bytes, starts[at - 1]!, starts[at + 1]!);
    }
    return parts;
  }

  /** A slice's rank as the package finds it: by its decoded string (a leading BOM dropped), else by its bytes. */
  private sliceRank(bytes: Uint8Array, from: number, to: number): number {
    if (to - from === 2) return this.table.pairs[(bytes[from]! << 8) | bytes[from + 1]!]!;
    let text = from;
    if (bytes[from] === 0xef && bytes[from + 1] === 0xbb && bytes[from + 2] === 0xbf && to - from >= 3) {
      // Decoded only when valid: an invalid slice is never a string token, BOM or not.
      text = validUtf8(bytes, from, to) ? from + 3 : -1;
    }
    if (text >= 0) {
      const rank = this.table.stringRank(bytes, text, to);
      if (rank !== NO_RANK) return rank;
    }
    return this.table.binaryRank(bytes, from, to);
  }
}

/** UTF-8 validity as the package checks it (no overlong forms, no surrogates, nothing above U+10FFFF). */
function validUtf8(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to;) {
    const lead = bytes[i]!;
    let size: number;
    let code: number;
    if (lead <= 0x7f) [size, code] = [1, lead];
    else if ((lead & 0xe0) === 0xc0 && lead > 0xc1) [size, code] = [2, lead & 31];
    else if ((lead & 0xf0) === 0xe0) [size, code] = [3, lead & 15];
    else if ((lead & 0xf8) === 0xf0 && lead <= 0xf4) [size, code] = [4, lead & 7];
    else return false;
    if (i + size > to) return false;
    for (let k = 1; k < size; k++) {
      const next = bytes[i + k]!;
      if ((next & 0xc0) !== 0x80) return false;
      code = (code << 6) | (next & 63);
    }
    const least = [0, 0, 0x80, 0x800, 0x10000][size]!;
    if (code < least || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) return false;
    i += size;
  }
  return true;
}
