/**
 * What OpenCode (opencode-ai 1.18.33) itself adds to every request around the persisted
 * messages, as far as the server can know it: the instruction blocks and the skill catalog
 * (SystemPrompt.skills + Skill.fmt), built-in skill included. The rest of the system prompt
 * and the tool schemas are invisible to the server and are measured, not written down here.
 */
import { escapeXml } from './format';

/** What a message row OpenCode wrote says in messages_v2.runtime (a row that says nothing is OpenCode's too). */
export const RUNTIME_NAME = 'opencode';

/** Where OpenCode finds a workspace's skills: one folder each, its SKILL.md defining it. */
export const SKILL_DIRS = ['.opencode/skills', '.opencode/skill'] as const;
export const SKILL_FILE = 'SKILL.md';
/** Investibook's cache of candidate skills beside them: never loaded by OpenCode. */
export const ALL_SKILLS_DIR = '.opencode/.all-skills';
/**
 * OpenCode's project config files, in the order it merges them (the later wins): in each folder
 * `opencode.json` then `opencode.jsonc` (its `up()` search lists them the other way and reverses
 * the list), the project folder before its `.opencode` folder. JSON with comments, all four.
 */
export const CONFIG_FILES = [
  'opencode.json',
  'opencode.jsonc',
  '.opencode/opencode.json',
  '.opencode/opencode.jsonc',
] as const;

/** `Instruction.system`: each instruction file as one system block. */
export function instructionBlock(absolutePath: string, content: string): string {
  return `Instructions from: ${absolutePath}\n${content}`;
}

export interface CatalogSkill {
  name: string;
  description: string;
  /** The SKILL.md location OpenCode prints (absolute path), or "<built-in>". */
  location: string;
}

/** Skills OpenCode ships with and lists in every catalog. */
export const BUILT_IN_SKILLS: readonly CatalogSkill[] = [
  {
    name: 'customize-opencode',
    description:
      "Use ONLY when the user is editing or creating opencode's own configuration: opencode.json, opencode.jsonc, files under .opencode/, or files under ~/.config/opencode/. Also use when creating or fixing opencode agents, subagents, skills, plugins, MCP servers, or permission rules. Do not use for the user's own application code, or for any project that is not configuring opencode itself.",
    location: '<built-in>',
  },
];

/**
 * The skill catalog section of the system prompt: sorted by name, only skills with a
 * description, names and descriptions as written, locations XML-escaped.
 */
export function skillCatalogText(skills: readonly CatalogSkill[]): string {
  const listed = [...skills]
    .filter((s) => s.description !== '')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const entries = listed.flatMap((s) => [
    '  <skill>',
    `    <name>${s.name}</name>`,
    `    <description>${s.description}</description>`,
    `    <location>${escapeXml(s.location)}</location>`,
    '  </skill>',
  ]);
  return [
    'Skills provide specialized instructions and workflows for specific tasks.',
    'Use the skill tool to load a skill when a task matches its description.',
    ['<available_skills>', ...entries, '</available_skills>'].join('\n'),
  ].join('\n');
}

/**
 * `SystemPrompt.environment`: the block that follows the provider prompt, from the facts
 * recorded where the agent ran (definitions.ts).
 */
export function environmentBlock(
  model: { apiId: string; providerID: string },
  env: { directory: string; worktree: string; git: boolean; platform: string; date: string },
): string {
  return [
    `You are powered by the model named ${model.apiId}. The exact model ID is ${model.providerID}/${model.apiId}`,
    'Here is some useful information about the environment you are running in:',
    '<env>',
    `  Working directory: ${env.directory}`,
    `  Workspace root folder: ${env.worktree}`,
    `  Is directory a git repo: ${env.git ? 'yes' : 'no'}`,
    `  Platform: ${env.platform}`,
    `  Today's date: ${env.date}`,
    '</env>',
  ].join('\n');
}

/** A tool as the model is sent it in an OpenAI-style request (the shape the report estimates). */
export function wireTool(name: string, description: string, parameters: string): string {
  return `{"type":"function","function":{"name":${JSON.stringify(name)},"description":${JSON.stringify(description)},"parameters":${parameters}}}`;
}

/** An MCP tool's input schema as OpenCode sends it: an object that takes nothing else. */
export function mcpParameters(inputSchema: string): string {
  let schema: unknown;
  try {
    schema = JSON.parse(inputSchema);
  } catch {
    schema = {};
  }
  const object = typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? schema : {};
  return JSON.stringify({ ...object, type: 'object', additionalProperties: false });
}

/** `SystemPrompt.mcp`: a server's instructions in the system prompt, as OpenCode wraps them. */
export function mcpInstructionsBlock(server: string, instructions: string): string {
  const body = instructions
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
  return `<mcp_instructions>\n  <server name="${escapeXml(server)}">\n${body}\n  </server>\n</mcp_instructions>`;
}
