/** The estimators: real BPE counts, special-token look-alikes, pathological runs, sampling, memo. */
import { describe, expect, it } from 'vitest';
import {
  BPE_SAMPLE_LIMIT,
  bpeEstimator,
  chars4Estimator,
  encodingCounter,
  memoized,
  type Estimator,
} from '../../src/node/report/estimator';

describe('estimators', () => {
  it('counts o200k_base tokens and treats special-token look-alikes as text', () => {
    expect(bpeEstimator.count('hello world')).toBe(2);
    // Reference counts from tiktoken's o200k_base for the same texts.
    expect(bpeEstimator.count('The store region leader moved at 02:11 UTC.')).toBe(12);
    expect(encodingCounter('cl100k_base')('hello world')).toBe(2);
    expect(bpeEstimator.count('<|endoftext|>')).toBeGreaterThan(1);
    expect(bpeEstimator.count('客户报告')).toBeGreaterThan(0);
    expect(chars4Estimator.count('12345')).toBe(2);
  });

  it('tokenizes long runs without whitespace in slices, close to the whole-string count', () => {
    const bytes = Buffer.alloc(3000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
    const run = bytes.toString('base64');
    const exact = encodingCounter('o200k_base')(run);
    const sliced = bpeEstimator.count(run);
    expect(Math.abs(sliced - exact) / exact).toBeLessThan(0.1);
  });

  it('samples texts over the limit and stays within 5% of the exact count on uniform text', () => {
    const line = 'store 4 region 2287016 serverIsBusy took 1834ms\n';
    const small = line.repeat(100);
    const big = line.repeat(Math.ceil((BPE_SAMPLE_LIMIT * 3) / line.length));
    const perChar = bpeEstimator.count(small) / small.length;
    const estimate = bpeEstimator.count(big);
    expect(Math.abs(estimate - perChar * big.length) / (perChar * big.length)).toBeLessThan(0.05);
  });

  it('memoizes long texts within one report', () => {
    let calls = 0;
    const counting: Estimator = { id: 'chars4', key: 'x', method: 'x', count: (t) => (calls++, t.length) };
    const memo = memoized(counting, 10);
    const long = 'x'.repeat(50);
    expect([memo.count(long), memo.count(long), memo.count('short'), memo.count('short')]).toEqual([50, 50, 5, 5]);
    expect(calls).toBe(3);
  });
});
