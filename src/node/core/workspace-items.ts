/**
 * What the agent runtime puts in every request from the workspace folder, as items: each
 * instruction file as OpenCode writes it into the system prompt, and the skill catalog
 * (enabled skills plus OpenCode's built-in ones, in OpenCode's own wording). Pure.
 */
import type { AgentConfig } from './window';
import { instructionBlock, skillCatalogText, BUILT_IN_SKILLS } from '../../shared/opencode/runtime';
import type { Excluded } from '../../shared/wire';
import { utf8Bytes, type Contribution } from './attribute';

export interface WorkspaceSnapshot {
  root: string;
  /** Always-loaded instruction files, workspace-relative, in load order. */
  instructions: { path: string; text: string }[];
  /** Enabled skills (never the candidate cache). */
  skills: { name: string; description: string; path: string }[];
  excluded: Excluded[];
  warnings: string[];
  /** Path, size and mtime of every file read: part of the snapshot digest. */
  stamps: { path: string; size: number; mtimeMs: number }[];
  /** Compaction settings and model limits from opencode.json, when it has any. */
  agentConfig?: AgentConfig;
}

export const CATALOG_REF = 'file:.opencode/skills (catalog)';

export function workspaceContributions(workspace: WorkspaceSnapshot): Contribution[] {
  const out: Contribution[] = workspace.instructions
    .filter(({ text }) => text !== '')
    .map(({ path, text }) => {
      const block = instructionBlock(`${workspace.root}/${path}`, text);
      return {
        key: `file:${path}`,
        source: 'agent_instructions',
        label: `Instructions: ${path}`,
        sourceRef: `file:${path}`,
        texts: [block],
        bytes: utf8Bytes(block),
        path,
      };
    });
  const catalog = skillCatalogText([
    ...BUILT_IN_SKILLS,
    ...workspace.skills.map((s) => ({
      name: s.name,
      description: s.description,
      location: `${workspace.root}/${s.path}`,
    })),
  ]);
  const n = workspace.skills.length;
  out.push({
    key: CATALOG_REF,
    source: 'skills_knowledge',
    label: `Skill catalog: ${n} enabled skill${n === 1 ? '' : 's'} + ${BUILT_IN_SKILLS.length} built-in`,
    sourceRef: CATALOG_REF,
    texts: [catalog],
    bytes: utf8Bytes(catalog),
  });
  return out;
}
