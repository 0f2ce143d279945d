/**
 * The project's BPE counter (src/node/tokenizer/) against ai-tokenizer's own encoder: the same
 * count for every text, since counts stored under `ai-tokenizer@1.0.6` are read back by every
 * report. Every string in every test corpus (the recordings, the imported sessions, the public
 * sessions, the demo), whole and sliced as the report slices them, in each encoding; and the
 * package's quirks that decide counts (a piece named like a member of Object.prototype, a leading
 * byte-order mark, lone surrogates).
 */
import Tokenizer from 'ai-tokenizer';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deserialize, fromPackage, RankTable, serialize } from '../../src/node/tokenizer/bpe-table';
import { BpeCounter } from '../../src/node/tokenizer/bpe-counter';
import { countEncoded, countSampled, packageTable, rankTable, tableFile } from '../../src/node/report/estimator';
import { LONG_RUN } from '../../src/node/tokenizer/encoded';
import { PROJECT_ROOT } from '../../src/node/project';
import type { Encoding } from '../../src/node/core';

const ENCODINGS: Encoding[] = ['o200k_base', 'claude', 'cl100k_base'];

/** The package's count of a text under the report's rules (slices, chunks, samples). */
function reference(encoding: Encoding): (text: string) => number {
  const tokenizer = new Tokenizer(packageTable(encoding) as ConstructorParameters<typeof Tokenizer>[0]);
  return (text) => countSampled(text, (piece) => tokenizer.encode(piece, [], []).length);
}

/** Every string inside every JSON file, once each (what a report counts is made of them). */
function corpus(): string[] {
  const texts = new Set<string>();
  const collect = (value: unknown): void => {
    if (typeof value === 'string') texts.add(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.json')) {
        collect(JSON.parse(readFileSync(path, 'utf8')));
      }
    }
  };
  walk(join(PROJECT_ROOT, 'test', 'fixtures'));
  walk(join(PROJECT_ROOT, 'demo'));
  return [...texts];
}

const QUIRKS = [
  'toString',
  'valueOf',
  ' valueOf',
  '__proto__',
  'constructor',
  'hasOwnProperty isPrototypeOf propertyIsEnumerable toLocaleString __defineGetter__',
  'x.toString().valueOf()',
  '\uFEFF',
  '\uFEFF\n',
  '\uFEFF\n\nusing namespace std;',
  '\uFEFF\uFEFF#',
  '\uFEFFtoString',
  'a\uD800b \uDC00 \uD83D',
  '😀 中文 한국어 출장안마 العربية',
  '<|endoftext|> and <|endofprompt|>, <EOT>',
  ' '.repeat(3000) + 'x',
  'é'.repeat(300),
  '',
];

type Count = (text: string) => number;

/** Texts whose counts differ, with both counts: empty when the counter is the package's equal. */
function differences(
  texts: readonly string[],
  encoding: Encoding,
  counted: Count = (text) => countEncoded(text, encoding),
  expected: Count = reference(encoding),
) {
  const out: { text: string; expected: number; counted: number }[] = [];
  for (const text of texts) {
    const [want, got] = [expected(text), counted(text)];
    if (want !== got) out.push({ text: text.slice(0, 80), expected: want, counted: got });
  }
  return out;
}

describe('the BPE counter against ai-tokenizer', () => {
  const texts = corpus();

  it('reads a corpus of every test fixture', () => {
    expect(texts.length).toBeGreaterThan(10_000);
  });

  for (const encoding of ENCODINGS) {
    it(`counts every corpus text as ai-tokenizer does: ${encoding}`, () => {
      expect(differences([...QUIRKS, ...texts], encoding)).toEqual([]);
    });
  }

  it('counts random bytes and runs of text as ai-tokenizer does', () => {
    let seed = 42;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const texts = Array.from({ length: 300 }, () => {
      const length = next() % 200;
      const codes = Array.from({ length }, () => {
        const r = next() % 10;
        // ASCII mostly, then Latin, CJK, surrogates (paired and lone), BOMs.
        return r < 6
          ? 32 + (next() % 95)
          : r < 7
            ? 0xa0 + (next() % 0x200)
            : r < 8
              ? 0x4e00 + (next() % 500)
              : r < 9
                ? 0xd800 + (next() % 0x800)
                : 0xfeff;
      });
      return String.fromCharCode(...codes);
    });
    for (const encoding of ENCODINGS) expect(differences(texts, encoding)).toEqual([]);
  });

  it('slices the same long runs as the counting rules always did (`\\S{256,}`)', () => {
    const runs = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].map((m) => [m.index, m[0].length]);
    const samples = [...texts, 'x'.repeat(300), ` ${'y'.repeat(255)} ${'z'.repeat(256)}\u00a0${'w'.repeat(600)}`];
    const long = samples.filter((text) => runs(/\S{256,}/g, text).length > 0);
    expect(long.length).toBeGreaterThan(100);
    for (const text of samples) expect(runs(LONG_RUN, text)).toEqual(runs(/\S{256,}/g, text));
  });

  it('catches one count off by one', () => {
    const some = texts.slice(0, 500);
    const offByOne = (text: string) => countEncoded(text, 'o200k_base') + (text === some[250] ? 1 : 0);
    expect(differences(some, 'o200k_base', offByOne)).toEqual([
      expect.objectContaining({ counted: countEncoded(some[250]!, 'o200k_base') + 1 }),
    ]);
  });

  it('reads the table file the build writes, the package table in another form', () => {
    for (const encoding of ENCODINGS) {
      expect(existsSync(tableFile(encoding))).toBe(true);
      const packed = fromPackage(packageTable(encoding));
      const file = Buffer.from(serialize(packed));
      expect(Buffer.from(serialize(deserialize(file))).equals(file)).toBe(true);
      // The build's file (not the package's fallback) counts the same.
      const built = new BpeCounter(rankTable(encoding));
      const fallback = new BpeCounter(new RankTable(packed));
      const [a, b] = [built, fallback].map((c) => (text: string) => countSampled(text, (piece) => c.count(piece)));
      expect(differences([...QUIRKS, ...texts.slice(0, 2000)], encoding, a, b)).toEqual([]);
    }
    expect(() => deserialize(new Uint8Array(64))).toThrow(/not a tokenizer table/);
  });
});
