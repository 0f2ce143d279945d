/**
 * npm run model-catalog: the catalog of models that the pinned OpenCode itself ships — the
 * models.dev snapshot compiled into the opencode-ai binary, which OpenCode uses when it cannot
 * fetch models.dev — written to src/node/core/catalog/opencode-models.json with its provenance
 * (the version, the binary's SHA-256). Only what the report needs is kept: each model's window
 * (`limit`) and prices (`cost`). The report never fetches anything at run time: this file is the
 * catalog, regenerated when the pinned OpenCode changes.
 *
 * The snapshot sits in the binary as a JavaScript object literal (`p=n.sync(()=>({…}))`); it is
 * cut out by its braces and evaluated in an empty V8 context, with no access to anything.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { OPENCODE_VERSION } from '../src/node/agent/opencode/install';
import { PROJECT_ROOT } from '../src/node/project';

const BINARY = join(PROJECT_ROOT, '.cache', 'opencode', 'node_modules', 'opencode-linux-x64', 'bin', 'opencode');
const OUT = join(PROJECT_ROOT, 'src', 'node', 'core', 'catalog', 'opencode-models.json');
/** Every model id some provider lists, one a line (core/model-catalog.ts answers a miss from it, parsing nothing). */
const IDS_OUT = join(PROJECT_ROOT, 'src', 'node', 'core', 'catalog', 'opencode-model-ids.json');

/** The end of the object literal that starts at `start` (strings and template literals skipped). */
function literalEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === '`') {
      for (i++; text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  throw new Error('the snapshot never closes');
}

interface Model {
  name?: string;
  limit?: { context?: number; input?: number; output?: number };
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
}

/** One model, in the catalog's compact row (src/node/core/model-catalog.ts reads it). */
type CatalogRow = [number, number | null, number | null, number | null, number | null, number | null, number | null];

function main(): void {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run a live-agent test once to install OpenCode`);
  const bytes = readFileSync(BINARY);
  const text = bytes.toString('latin1');
  const marker = /=n\.sync\(\(\)=>\(\{[\w-]+:\{id:"[\w-]+",env:\[/.exec(text);
  if (!marker) throw new Error('no models snapshot found in the binary');
  const start = marker.index + '=n.sync(()=>('.length;
  const literal = Buffer.from(text.slice(start, literalEnd(text, start)), 'latin1').toString('utf8');
  const providers = runInNewContext(`(${literal})`, Object.create(null), { timeout: 5000 }) as Record<
    string,
    { models?: Record<string, Model> }
  >;
  const models: Record<string, Record<string, CatalogRow>> = {};
  for (const [provider, def] of Object.entries(providers).sort(([a], [b]) => a.localeCompare(b))) {
    const kept: Record<string, CatalogRow> = {};
    for (const [id, model] of Object.entries(def.models ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
      const { limit, cost } = model;
      if (!limit?.context) continue;
      kept[id] = [
        limit.context,
        limit.output ?? null,
        limit.input ?? null,
        cost?.input ?? null,
        cost?.output ?? null,
        cost?.cache_read ?? null,
        cost?.cache_write ?? null,
      ];
    }
    if (Object.keys(kept).length) models[provider] = kept;
  }
  const catalog = {
    source: `models.dev snapshot shipped in opencode-ai ${OPENCODE_VERSION}`,
    opencode: OPENCODE_VERSION,
    binarySha256: createHash('sha256').update(bytes).digest('hex'),
    columns: ['context', 'output', 'input', 'costInput', 'costOutput', 'costCacheRead', 'costCacheWrite'],
    models,
  };
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify(catalog) + '\n');
  const ids = new Set(Object.values(models).flatMap((m) => Object.keys(m)));
  writeFileSync(IDS_OUT, JSON.stringify(`\n${[...ids].sort().join('\n')}\n`) + '\n');
  const count = Object.values(models).reduce((n, m) => n + Object.keys(m).length, 0);
  console.log(`${OUT}: ${Object.keys(models).length} providers, ${count} models`);
}

main();
