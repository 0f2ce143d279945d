/**
 * Where a workspace path belongs (contract §2) and how a read of it is labelled for people.
 * Pure: works on path strings only (POSIX separators, as OpenCode records them).
 */
import { basename, isAbsolute, normalize } from 'pathe';
import type { SourceId } from '../../shared/wire';

export const ALL_SKILLS_DIR = '.opencode/.all-skills';
export const SKILL_DIRS = ['.opencode/skills', '.opencode/skill'] as const;

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

export function classifyPath(path: string, instructionFiles: ReadonlySet<string>): PathClass {
  const name = basename(path);
  if (instructionFiles.has(path) || name === 'AGENTS.md') {
    return { source: 'agent_instructions', readLabel: `Read instructions: ${path}` };
  }
  for (const dir of SKILL_DIRS) {
    if (under(path, dir)) {
      return { source: 'skills_knowledge', readLabel: `Read skill file: ${inside(path, dir)}` };
    }
  }
  if (under(path, ALL_SKILLS_DIR)) {
    // A read puts the text in context even though the cache itself never counts.
    return {
      source: 'unknown_tool_payload',
      readLabel: `Read candidate skill (not enabled): ${inside(path, ALL_SKILLS_DIR)}`,
    };
  }
  if (under(path, 'evidence')) {
    const rest = inside(path, 'evidence');
    return {
      source: 'evidence',
      readLabel: /summary/i.test(name) ? `Read evidence summary: ${rest}` : `Read evidence: ${rest}`,
    };
  }
  if (under(path, 'meta')) {
    const rest = inside(path, 'meta');
    const kind = /cluster/i.test(name)
      ? 'cluster metadata'
      : /alert/i.test(name)
        ? 'alert metadata'
        : /issue/i.test(name)
          ? 'issue metadata'
          : 'metadata';
    return { source: 'cluster_alert_metadata', readLabel: `Read ${kind}: ${rest}` };
  }
  if (under(path, 'issues')) {
    return { source: 'issue_source_files', readLabel: `Read issue file: ${inside(path, 'issues')}` };
  }
  if (under(path, 'sources')) {
    return { source: 'issue_source_files', readLabel: `Read source file: ${inside(path, 'sources')}` };
  }
  return { source: 'unknown_tool_payload', readLabel: `Read file: ${path || '.'}` };
}

/** The workspace folder a search tool looked in, for labels: "evidence", "the workspace". */
export function describeScope(path: string | null): string {
  if (path === null) return 'outside the workspace';
  return path === '' ? 'the workspace' : path;
}
