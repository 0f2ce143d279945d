/**
 * A large JSON object in the compiled programs (scripts/build-node.mjs, `largeJsonLazy`, issue
 * 42.1): each member parsed when first read, and what is read the same as `JSON.parse` gives —
 * values, keys and their order, enumeration, serialisation — while a member never read is never
 * parsed (the model catalog's 2 MB of models, for a model no provider lists).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript, no declarations
import { largeJsonLazy, lazyJson } from '../../scripts/build-node.mjs';

const exec = promisify(execFile);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-lazy-json-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Past the plugin's threshold (10 KB), with every kind of value, integer-like keys and `__proto__`. */
const DATA = {
  source: 'a snapshot — ünïcode',
  columns: ['context', 'output'],
  n: 7,
  none: null,
  yes: true,
  '10': 'an integer-like key, which JSON.parse orders first',
  ['__proto__']: { own: 'property' },
  models: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`provider-${i}`, { [`model-${i}`]: [i, null] }])),
};

/**
 * Bundles `code` (with data.json beside it) as the builds do — the ES modules, or the report's
 * CommonJS script with its large members in files beside it — runs it, and returns what it printed.
 */
async function run(code: string, script = false, before: (outDir: string) => void = () => {}): Promise<unknown> {
  writeFileSync(join(dir, 'data.json'), JSON.stringify(DATA));
  writeFileSync(join(dir, 'entry.mjs'), `import data from './data.json' with { type: 'json' };\n${code}`);
  const outDir = mkdtempSync(join(dir, 'out-'));
  const outfile = join(outDir, script ? 'out.cjs' : 'out.mjs');
  const beside = new Map<string, { contents: string }>();
  await build({
    entryPoints: [join(dir, 'entry.mjs')],
    bundle: true,
    platform: 'node',
    format: script ? 'cjs' : 'esm',
    outfile,
    plugins: [(script ? lazyJson(beside) : largeJsonLazy) as Plugin],
    logLevel: 'silent',
  });
  for (const [name, { contents }] of beside) writeFileSync(join(outDir, name), contents);
  before(outDir);
  const { stdout } = await exec(process.execPath, [outfile]);
  return JSON.parse(stdout);
}

const READ_ALL = `console.log(JSON.stringify({
  keys: Object.keys(data),
  entries: Object.entries(data),
  text: JSON.stringify(data),
  own: Object.hasOwn(data, '__proto__'),
  same: data.models === data.models,
}));`;

describe('a large JSON object, parsed a member at a time', () => {
  it('reads as JSON.parse gives it, its large members in files beside the report script', async () => {
    const parsed = JSON.parse(JSON.stringify(DATA)) as Record<string, unknown>;
    expect(await run(READ_ALL, true)).toEqual({
      keys: Object.keys(parsed),
      entries: Object.entries(parsed),
      text: JSON.stringify(parsed),
      own: true,
      same: true,
    });
    // The member's file is read only when the member is: without it, the rest still reads.
    const source = await run('console.log(JSON.stringify(data.source));', true, (outDir) =>
      rmSync(join(outDir, 'cli.cjs.data.models.json')),
    );
    expect(source).toBe(DATA.source);
  });

  it('reads as JSON.parse gives it', async () => {
    const parsed = JSON.parse(JSON.stringify(DATA)) as Record<string, unknown>;
    const seen = await run(`console.log(JSON.stringify({
  keys: Object.keys(data),
  entries: Object.entries(data),
  text: JSON.stringify(data),
  own: Object.hasOwn(data, '__proto__'),
  same: data.models === data.models,
}));`);
    expect(seen).toEqual({
      keys: Object.keys(parsed),
      entries: Object.entries(parsed),
      text: JSON.stringify(parsed),
      own: true,
      same: true,
    });
  });

  it('parses only the members read', async () => {
    const seen = await run(`const parse = JSON.parse;
const parsed = [];
JSON.parse = (text) => (parsed.push(text.length), parse(text));
const source = data.source;
console.log(JSON.stringify({ source, parsed }));`);
    expect(seen).toEqual({ source: DATA.source, parsed: [JSON.stringify(DATA.source).length] });
  });
});
