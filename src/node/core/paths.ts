/**
 * Where a workspace path belongs (contract §2) and how a read of it is labelled for people.
 * Pure: works on path strings only (POSIX separators, as OpenCode records them).
 */
import { basename, dirname, isAbsolute, normalize } from 'pathe';
import picomatch from 'picomatch';
import { PATH_RULES, type SourceId } from '../../shared/sources';
import type { DeclaredSource, RuntimePathRule } from './types';

export interface PathClass {
  source: SourceId;
  /** e.g. "Read evidence summary: evidence_summary_for_agent.txt" */
  readLabel: string;
  /** No folder of the table claims it: the workspace's own file (Issue/source files, by path). */
  byPath?: true;
}

/** What the workspace's declarations claim, compiled once per list. */
const matchers = new WeakMap<
  readonly DeclaredSource[],
  { id: string; label: string; match: (p: string) => boolean }[]
>();

/** The declared source that claims a workspace path, if one does (the first declaration wins). */
export function declaredPath(path: string, declared: readonly DeclaredSource[] | undefined): DeclaredSource | null {
  if (!declared?.length) return null;
  let compiled = matchers.get(declared);
  if (!compiled) {
    compiled = declared.map((d) => ({ ...d, match: picomatch(d.paths.length ? d.paths : ['\0none'], { dot: true }) }));
    matchers.set(declared, compiled);
  }
  const found = compiled.find((d) => d.match(path));
  return found ? declared.find((d) => d.id === found.id)! : null;
}

/** The folder an item is about, for sums by folder: a file's folder ("docs/external/"), "./" at the root. */
export function folderOf(path: string): string {
  // A folder named as such (a read or search of `docs/`) is its own.
  if (path.endsWith('/')) return path;
  const dir = isAbsolute(path) ? dirname(path) : dirname(path || '.');
  return dir === '.' || dir === '' ? './' : `${dir}/`;
}

const under = (path: string, dir: string): boolean => path === dir || path.startsWith(`${dir}/`);
const inside = (path: string, dir: string): string => path.slice(dir.length + 1);

/**
 * Turns a path recorded by a tool into a workspace-relative one, or null when it lies outside
 * every known root. `roots` are the workspace root now and the roots the agent recorded.
 */
export function toWorkspacePath(recorded: string, roots: readonly string[]): string | null {
  const path = recorded.replaceAll('\\', '/').replace(/^file:\/\//, '');
  if (!isAbsolute(path)) {
    const normal = normalize(path);
    return normal.startsWith('../') || normal === '..' ? null : normal.replace(/^\.\/?/, '');
  }
  const normal = normalize(path);
  for (const root of roots) {
    const base = normalize(root.replaceAll('\\', '/')).replace(/\/$/, '');
    if (normal === base) return '';
    if (normal.startsWith(`${base}/`)) return normal.slice(base.length + 1);
  }
  return null;
}

/**
 * The source a workspace path belongs to: an instruction file, a folder the runtime loads skills
 * from, the runtime's own folder rules, else the source table's.
 */
export function classifyPath(
  path: string,
  runtime: {
    instructionFiles: ReadonlySet<string>;
    skillDirs?: readonly string[] | undefined;
    pathRules?: readonly RuntimePathRule[] | undefined;
    declared?: readonly DeclaredSource[] | undefined;
  },
): PathClass {
  const name = basename(path);
  if (runtime.instructionFiles.has(path) || name === 'AGENTS.md') {
    return { source: 'agent_instructions', readLabel: `Read instructions: ${path}` };
  }
  for (const dir of runtime.skillDirs ?? []) {
    if (under(path, dir)) return { source: 'skills_knowledge', readLabel: `Read skill file: ${inside(path, dir)}` };
  }
  // A declaration wins over the folder table (contract §3).
  const declared = under(path, '.opencode/.all-skills') ? null : declaredPath(path, runtime.declared);
  if (declared) return { source: declared.id, readLabel: `Read ${declared.label}: ${path}` };
  for (const rule of [...(runtime.pathRules ?? []), ...PATH_RULES]) {
    if (under(path, rule.under)) return { source: rule.source, readLabel: rule.read(inside(path, rule.under), name) };
  }
  // Anything else inside the root is the workspace's own file (contract §2).
  return { source: 'issue_source_files', readLabel: `Read file: ${path || '.'}`, byPath: true };
}

/** The workspace folder a search tool looked in, for labels: "evidence", "the workspace". */
export function describeScope(path: string | null): string {
  if (path === null) return 'outside the workspace';
  return path === '' ? 'the workspace' : path;
}
