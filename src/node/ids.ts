/**
 * OpenCode-style ascending identifiers (`msg_…`, `prt_…`): 12 hex digits of time × 4096 + a
 * counter, then 14 random base62 characters, so that ids sort by creation time.
 */
import { randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type Random = (maxExclusive: number) => number;

export function createAscendingIds(random: Random = randomInt) {
  let lastTime = 0;
  let counter = 0;
  return (prefix: string, time: number): string => {
    if (time !== lastTime) {
      lastTime = time;
      counter = 0;
    }
    counter++;
    const head = (BigInt(time) * 0x1000n + BigInt(counter)).toString(16).padStart(12, '0').slice(-12);
    let tail = '';
    for (let i = 0; i < 14; i++) tail += BASE62[random(BASE62.length)];
    return `${prefix}_${head}${tail}`;
  };
}

/** A small deterministic generator (mulberry32) for reproducible demo data. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return (maxExclusive) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return Math.floor(unit * maxExclusive);
  };
}
