/**
 * The report service hashes memo keys, snapshot ids and content keys with node:crypto
 * (report/native-hash.ts) where the pure core alone uses @noble/hashes: both must give the same
 * key for every text — any UTF-16 string, lone surrogates included — or a snapshot id would
 * depend on which made it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pureKeyHash } from '../../src/node/core';
import { nativeKeyHash } from '../../src/node/report/native-hash';

describe('the key hash', () => {
  it('is SHA-256 cut to 128 bits, natively and in JavaScript alike', () => {
    // FIPS 180-2's "abc" vector, its first 16 bytes.
    expect(nativeKeyHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223');
    expect(pureKeyHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme', maxLength: 2000 })), (text) => {
        expect(nativeKeyHash(text)).toBe(pureKeyHash(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('hashes a lone surrogate as U+FFFD in both, as TextEncoder writes it', () => {
    expect(nativeKeyHash('a\ud800b')).toBe(pureKeyHash('a\ufffdb'));
    expect(pureKeyHash('a\ud800b')).toBe(pureKeyHash('a\ufffdb'));
  });
});
