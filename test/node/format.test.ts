/**
 * `fmt` writes whole numbers without Intl (whose first formatter loads ICU's number data at a CLI
 * start): the same text as Intl.NumberFormat('en-US'), for every number.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fmt } from '../../src/shared/format';

const intl = new Intl.NumberFormat('en-US');

describe('fmt', () => {
  it("writes every number as Intl.NumberFormat('en-US') does", () => {
    fc.assert(
      fc.property(fc.oneof(fc.maxSafeInteger(), fc.integer(), fc.double()), (value) => {
        expect(fmt(value)).toBe(intl.format(value));
      }),
      { numRuns: 2000 },
    );
    for (const value of [0, -0, 999, 1000, -1000, 1e21, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(fmt(value), String(value)).toBe(intl.format(value));
    }
  });
});
