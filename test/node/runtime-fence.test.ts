/**
 * Issue 40: a runtime is its folders. Which files outside them import an OpenCode module, read
 * from the sources (every relative import, type-only and lazy ones included): the registries
 * (core/index.ts for the read sides, agent/runtime-registry.ts for the write sides,
 * import/runtimes.ts for the imports) and the chat's two named in eslint.config.js
 * (RUNTIME_FENCE_ASIDE, docs/architecture.md) — a new one fails here and in the lint; one moved
 * into a runtime folder must be taken off the list.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/project';

const SRC = join(PROJECT_ROOT, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

const RUNTIME_FOLDER = /^src\/(node\/(core|agent|import)|shared)\/(opencode|claude-code)\//;

/** The files outside every runtime folder that import a module of `runtime`'s folders. */
function importersOf(runtime: string, source: (file: string) => string = (file) => readFileSync(file, 'utf8')) {
  const spec = new RegExp(`(?:from|import\\()\\s*'\\.{1,2}/(?:[^']*/)?${runtime}(?:/[^']*)?'`);
  return files(SRC)
    .map((file) => relative(PROJECT_ROOT, file))
    .filter((file) => !RUNTIME_FOLDER.test(file))
    .filter((file) => {
      const text = source(join(PROJECT_ROOT, file));
      return spec.test(text);
    })
    .sort();
}

describe('the runtime fence', () => {
  it('leaves OpenCode imported outside its folders only by the registries and the named few', () => {
    expect(importersOf('opencode')).toEqual([
      'src/chat/live-turns.ts',
      'src/chat/persisted-message.tsx',
      'src/node/agent/runtime-registry.ts',
      'src/node/core/index.ts',
      'src/node/import/runtimes.ts',
    ]);
    // Issue 40: at most three files of src/node outside runtime folders (the registries).
    expect(importersOf('opencode').filter((file) => file.startsWith('src/node/')).length).toBeLessThanOrEqual(3);
  });

  it('leaves Claude Code imported outside its folders only by the registries', () => {
    expect(importersOf('claude-code')).toEqual([
      'src/node/agent/runtime-registry.ts',
      'src/node/core/index.ts',
      'src/node/import/runtimes.ts',
    ]);
  });

  it('would see a new importer (the check bites)', () => {
    const planted = join(SRC, 'node', 'server', 'app.ts');
    const read = (file: string) =>
      file === planted ? "import { opencodeRuntime } from '../core/opencode';\n" : readFileSync(file, 'utf8');
    expect(importersOf('opencode', read)).toContain('src/node/server/app.ts');
  });
});
