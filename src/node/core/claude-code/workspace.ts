/**
 * Where Claude Code reads a workspace: CLAUDE.md (its project instructions, which its transcript
 * also records as the model saw them), .claude/settings.json, and the skills in .claude/skills
 * (one folder a skill, SKILL.md with a frontmatter name and description). Pure rules.
 */
import { parse as parseYaml } from 'yaml';
import type { WorkspaceLayout } from '../runtime';
import { isObject } from './entry';

export const SETTINGS_FILE = '.claude/settings.json';

function skillMeta(text: string): { name?: string; description?: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return {};
  try {
    const data: unknown = parseYaml(match[1]!);
    if (!isObject(data)) return {};
    return {
      ...(typeof data.name === 'string' ? { name: data.name } : {}),
      ...(typeof data.description === 'string' ? { description: data.description } : {}),
    };
  } catch {
    return {};
  }
}

export const CLAUDE_CODE_LAYOUT: WorkspaceLayout = {
  configFiles: [SETTINGS_FILE],
  parseConfig(text) {
    try {
      const parsed: unknown = JSON.parse(text);
      return isObject(parsed) ? { parsed } : { error: 'not a JSON object' };
    } catch {
      return { error: 'not valid JSON' };
    }
  },
  instructionPaths: () => ['CLAUDE.md'],
  // Claude Code's window and compaction are its own: no setting of the workspace changes them here.
  agentConfig: () => ({ models: {} }),
  skillDirs: ['.claude/skills'],
  pathRules: [],
  skillFile: 'SKILL.md',
  skillMeta,
  excludedDirs: [],
};
