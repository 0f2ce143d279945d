/**
 * No import cycle anywhere in src/, not even one made only of `import type` or of lazy
 * `import()` (what `madge --circular` reports, and ESLint's no-cycle does not: it skips type-only
 * imports). Every relative import of src/{app,chat,commands,api,shared,node} is followed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/project';

const ROOTS = ['app', 'chat', 'commands', 'api', 'shared', 'node'].map((d) => join(PROJECT_ROOT, 'src', d));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx'), base])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return null;
}

/** Every relative module a file names: import / export … from, import type, import(). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]/g),
    ...text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
  return specs.flatMap((spec) => resolveImport(file, spec) ?? []);
}

function cycles(all: string[]): string[][] {
  return cyclesOf(new Map(all.map((f) => [f, imports(f)]))).map((cycle) => cycle.map((f) => relative(PROJECT_ROOT, f)));
}

/** Every cycle a depth-first walk of a graph meets (none: the graph goes one way). */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

/**
 * The folders of src/node as one graph (issue 41): a folder imports another when one of its files
 * does; the files directly in src/node are one folder of their own, "(node)".
 */
function folderGraph(): Map<string, string[]> {
  const node = join(PROJECT_ROOT, 'src', 'node');
  const folderOf = (file: string) => {
    const [first, ...rest] = relative(node, file).split(sep);
    return rest.length === 0 ? '(node)' : first!;
  };
  const graph = new Map<string, Set<string>>();
  for (const file of files(node)) {
    const from = folderOf(file);
    const targets = graph.get(from) ?? new Set<string>();
    graph.set(from, targets);
    for (const target of imports(file)) {
      if (!target.startsWith(node + sep)) continue;
      const to = folderOf(target);
      if (to !== from) targets.add(to);
    }
  }
  return new Map([...graph].map(([folder, targets]) => [folder, [...targets].sort()]));
}

describe('the browser code', () => {
  it('has no import cycle, type-only and lazy imports included', () => {
    const all = ROOTS.flatMap(files);
    expect(all.length).toBeGreaterThan(40);
    expect(cycles(all)).toEqual([]);
  });

  it('would see one (the check bites)', () => {
    const chat = join(PROJECT_ROOT, 'src', 'chat');
    expect(imports(join(chat, 'command-views.ts')).map((f) => relative(chat, f))).toContain(
      join('views', 'debug-view.tsx'),
    );
  });
});

describe('the folders of src/node', () => {
  it('import one another one way: the CLI at the top, what the programs share below them', () => {
    const graph = folderGraph();
    expect(graph.get('cli')).toEqual(expect.arrayContaining(['import', 'mcp', 'program', 'server']));
    expect(cyclesOf(graph)).toEqual([]);
    // Nothing below the CLI reaches back up to it.
    for (const [folder, targets] of graph) if (folder !== 'cli') expect(targets, folder).not.toContain('cli');
  });

  it('would see a cycle of folders (the check bites)', () => {
    const graph = folderGraph();
    graph.set('mcp', [...(graph.get('mcp') ?? []), 'cli']);
    expect(cyclesOf(graph)).toContainEqual(expect.arrayContaining(['cli', 'mcp']));
  });
});
