/**
 * Hashes of the core, pure (no node:crypto: the core imports no Node built-in).
 *
 * - `contentHash`: a short stable hash for ids on the wire (an item's id from its source
 *   reference), two interleaved FNV-1a rounds. Fast, 64 bits, not collision-resistant: an id
 *   names one of a report's few thousand items, and changing it would rename every item.
 * - `keyHash` and `structuralDigest`: for keys that must never collide — the memo's keys, the
 *   snapshot id, a text's content key (a collision would call a changed file a re-read of the
 *   same content) — SHA-256 (@noble/hashes), cut to 128 bits: long keys make every lookup slow.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** A short stable hash of a string (two interleaved FNV-1a rounds), for ids. Pure. */
export function contentHash(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 0x01000193);
    h2 = Math.imul(h2 ^ code, 0x811c9dc5) ^ (h1 >>> 7);
  }
  return `${(h1 >>> 0).toString(16).padStart(8, '0')}${(h2 >>> 0).toString(16).padStart(8, '0')}`;
}

/** SHA-256 of a text's UTF-8, its first 128 bits in hex, in JavaScript: what the core has alone. */
export const pureKeyHash = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)).subarray(0, 16));

let sha256Key = pureKeyHash;

/** SHA-256 of a text's UTF-8, its first 128 bits in hex: a key that does not collide. */
export const keyHash = (text: string): string => sha256Key(text);

/**
 * Makes keyHash use a native SHA-256 giving the same digest (the Node side installs node:crypto's:
 * report/native-hash.ts). The core imports no Node built-in, and @noble's SHA-256 runs cold in
 * a fresh CLI process — the memo key and the snapshot id hash the whole session input, several
 * percent of the demo's report (docs/benchmarks.md, issue 42). test/node/key-hash.test.ts holds
 * the two equal.
 */
export function useKeyHash(native: (text: string) => string): void {
  sha256Key = native;
}

/**
 * A key for a whole value, from its structure: every field, at every depth, with its type, its
 * name and its place; objects' keys in sorted order (fields whose value is undefined are absent,
 * as in JSON); Maps and Sets by their sorted entries. Equal keys: equal values, field for field.
 */
export function structuralDigest(value: unknown): string {
  const out: string[] = [];
  encode(value, out);
  return keyHash(out.join(''));
}

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Each value as a tag and, for what has a length, its length first: no two values encode alike. */
function encode(value: unknown, out: string[]): void {
  if (value === null) out.push('n');
  else if (value === undefined) out.push('u');
  else if (typeof value === 'boolean') out.push(value ? 't' : 'f');
  else if (typeof value === 'number') out.push(Object.is(value, -0) ? 'd-0;' : `d${value};`);
  else if (typeof value === 'bigint') out.push(`b${value};`);
  else if (typeof value === 'string') out.push(`s${value.length}:`, value);
  else if (Array.isArray(value)) {
    out.push(`a${value.length}:`);
    for (const item of value) encode(item, out);
  } else if (value instanceof Map) {
    const entries = [...value].map(([k, v]) => [typeof k === 'string' ? k : JSON.stringify(k), v] as const);
    entries.sort(([a], [b]) => byKey(a, b));
    out.push(`m${entries.length}:`);
    for (const [k, v] of entries) {
      out.push(`${k.length}:`, k);
      encode(v, out);
    }
  } else if (value instanceof Set) encode(['set', [...value].sort()], out);
  else if (typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort(byKey);
    out.push(`o${keys.length}:`);
    for (const k of keys) {
      out.push(`${k.length}:`, k);
      encode((value as Record<string, unknown>)[k], out);
    }
  } else throw new TypeError(`structuralDigest: a ${typeof value} has no structure to key`);
}
