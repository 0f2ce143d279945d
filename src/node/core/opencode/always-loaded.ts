/**
 * What the agent runtime puts in every request from the workspace folder, as items: each
 * instruction file as OpenCode writes it into the system prompt, and the skill catalog
 * (enabled skills plus OpenCode's built-in ones, in OpenCode's own wording). Pure.
 */
import { instructionBlock, skillCatalogText, BUILT_IN_SKILLS } from '../../../shared/opencode/runtime';
import { utf8Bytes } from '../text';
import type { Contribution, WorkspaceSnapshot } from '../types';

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
