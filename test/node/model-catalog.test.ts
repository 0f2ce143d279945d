/**
 * The window of every model the pinned OpenCode knows (issue 38, point 4): its own models.dev
 * snapshot, shipped in src/node/core/catalog with its provenance, read without any fetch.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPENCODE_VERSION } from '../../src/node/agent/opencode/install';
import { catalogModel } from '../../src/node/core/model-catalog';
import { contextWindow } from '../../src/node/core/opencode/window';

const CATALOG = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../src/node/core/catalog/opencode-models.json'), 'utf8'),
) as { opencode: string; binarySha256: string; source: string; models: Record<string, Record<string, unknown>> };
const LISTED_IDS = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../src/node/core/catalog/opencode-model-ids.json'), 'utf8'),
) as string;

describe('the model catalog', () => {
  it('is the pinned OpenCode’s own, with its provenance', () => {
    expect(CATALOG.opencode).toBe(OPENCODE_VERSION);
    expect(CATALOG.binarySha256).toMatch(/^[0-9a-f]{64}$/);
    expect(CATALOG.source).toContain('models.dev');
  });

  it('lists every model id some provider lists, and no other, one a line (a miss is answered from it)', () => {
    const ids = new Set(Object.values(CATALOG.models).flatMap((models) => Object.keys(models)));
    expect(LISTED_IDS.startsWith('\n') && LISTED_IDS.endsWith('\n')).toBe(true);
    expect(LISTED_IDS.slice(1, -1).split('\n')).toEqual([...ids].sort());
  });

  it('names a model exactly where its provider lists it, with the window, output limit and prices', () => {
    expect(catalogModel('openai/gpt-5.3-codex')).toEqual({
      context: 400_000,
      output: 128_000,
      input: 272_000,
      prices: { input: 1.75, output: 14, cacheRead: 0.175 },
      source: `OpenCode ${OPENCODE_VERSION}'s model list (models.dev), openai/gpt-5.3-codex`,
    });
  });

  it('falls back to the model’s maker for a relay it does not list, and says so', () => {
    const relayed = catalogModel('packyapi/gpt-5.6-sol')!;
    expect(relayed.source).toMatch(/openai\/gpt-5\.6-sol \(packyapi is not listed\)$/);
    expect(relayed.context).toBe(catalogModel('openai/gpt-5.6-sol')!.context);
  });

  it('reads a local model’s tag and a free variant as the model they serve', () => {
    expect(catalogModel('ollama/minimax-m2.7:cloud')?.source).toContain('minimax-m2.7');
  });

  it('knows nothing of a model no provider lists', () => {
    expect(catalogModel('nowhere/made-up-model-9')).toBeNull();
    expect(catalogModel(undefined)).toBeNull();
  });

  it('gives an import its window: OpenCode’s own budget from the catalog’s limits', () => {
    // limit.input 272,000 less OpenCode's reserve of min(20,000, output cap 32,000).
    expect(contextWindow(null, undefined, 'openai/gpt-5.3-codex')).toMatchObject({
      contextSize: 400_000,
      usable: 252_000,
      autoCompactAt: 252_000,
      basis: 'catalog',
    });
    // A window the workspace configures wins over the catalog's.
    const configured = { models: { 'openai/gpt-5.3-codex': { context: 100_000, output: 10_000 } } };
    expect(contextWindow(null, configured, 'openai/gpt-5.3-codex')).toMatchObject({
      contextSize: 100_000,
      basis: 'workspace-config',
    });
    expect(contextWindow(null, undefined, 'nowhere/made-up-model-9')).toBeNull();
  });
});
