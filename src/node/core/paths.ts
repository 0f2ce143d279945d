/**
 * Where a workspace path belongs (contract §2) and how a read of it is labelled for people.
 * Pure: works on path strings only (POSIX separators, as OpenCode records them).
 */
import { basename, isAbsolute, normalize } from 'pathe';
import { PATH_RULES, type SourceId } from '../../shared/sources';
import type { RuntimePathRule } from './types';

export interface PathClass {
  source: SourceId;
  /** e.g. "Read evidence summary: evidence_summary_for_agent.txt" */
  readLabel: string;
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
  },
): PathClass {
  const name = basename(path);
  if (runtime.instructionFiles.has(path) || name === 'AGENTS.md') {
    return { source: 'agent_instructions', readLabel: `Read instructions: ${path}` };
  }
  for (const dir of runtime.skillDirs ?? []) {
    if (under(path, dir)) return { source: 'skills_knowledge', readLabel: `Read skill file: ${inside(path, dir)}` };
  }
  for (const rule of [...(runtime.pathRules ?? []), ...PATH_RULES]) {
    if (under(path, rule.under)) return { source: rule.source, readLabel: rule.read(inside(path, rule.under), name) };
  }
  return { source: 'unknown_tool_payload', readLabel: `Read file: ${path || '.'}` };
}

/** The workspace folder a search tool looked in, for labels: "evidence", "the workspace". */
export function describeScope(path: string | null): string {
  if (path === null) return 'outside the workspace';
  return path === '' ? 'the workspace' : path;
}
