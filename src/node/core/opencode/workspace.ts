/**
 * Where OpenCode reads a workspace (opencode-ai 1.18.33): its project config files (JSON with
 * comments; `instructions` concatenated over them, compaction settings and model limits), the
 * instruction files they name besides AGENTS.md, and the skill folders with a SKILL.md each.
 * Pure rules over text the service read; the reading is the service's (report/read-workspace.ts).
 */
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { isAbsolute, join, relative } from 'pathe';
import { parse as parseYaml } from 'yaml';
import { isObject } from '../../../shared/opencode/format';
import { ALL_SKILLS_DIR, CONFIG_FILES, SKILL_DIRS, SKILL_FILE } from '../../../shared/opencode/runtime';
import type { WorkspaceLayout } from '../runtime';
import type { AgentConfig } from '../types';

export interface ParsedConfig {
  path: string;
  parsed: unknown;
}

/** A config file's text as OpenCode reads it, or why it does not. */
export function parseConfig(text: string): { parsed: unknown } | { error: string } {
  const errors: ParseError[] = [];
  const parsed = parseJsonc(text, errors, { allowTrailingComma: true }) as unknown;
  return errors.length > 0 || !isObject(parsed) ? { error: 'not valid JSON' } : { parsed };
}

/**
 * What the project's config files (the later wins) say about compaction and the models'
 * limits (the window's budget depends on them), and which MCP servers they declare (the advice
 * turns those off by name). Anything else in them is not read here.
 */
export function agentConfig(configs: readonly ParsedConfig[]): AgentConfig {
  const config: AgentConfig = { models: {} };
  const number = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
  for (const { parsed } of configs) {
    if (!isObject(parsed)) continue;
    if (isObject(parsed.compaction)) {
      if (typeof parsed.compaction.auto === 'boolean') config.compactionAuto = parsed.compaction.auto;
      if (typeof parsed.compaction.prune === 'boolean') config.compactionPrune = parsed.compaction.prune;
      const reserved = number(parsed.compaction.reserved);
      if (reserved !== undefined) config.compactionReserved = reserved;
    }
    if (isObject(parsed.mcp)) {
      const names = new Set([...(config.mcpServers ?? []), ...Object.keys(parsed.mcp)]);
      config.mcpServers = [...names].sort();
    }
    if (!isObject(parsed.provider)) continue;
    for (const [provider, spec] of Object.entries(parsed.provider)) {
      if (!isObject(spec) || !isObject(spec.models)) continue;
      for (const [model, modelSpec] of Object.entries(spec.models)) {
        if (!isObject(modelSpec) || !isObject(modelSpec.limit)) continue;
        const { context, input, output } = modelSpec.limit;
        config.models[`${provider}/${model}`] = {
          ...(number(context) !== undefined ? { context: number(context) } : {}),
          ...(number(input) !== undefined ? { input: number(input) } : {}),
          ...(number(output) !== undefined ? { output: number(output) } : {}),
        };
      }
    }
  }
  return config;
}

/** AGENTS.md and the `instructions` of the config files, in their order (OpenCode concatenates the lists). */
export function instructionPaths(
  configs: readonly ParsedConfig[],
  root: string,
  warn: (message: string) => void,
): string[] {
  const paths = ['AGENTS.md'];
  for (const { path: config, parsed } of configs) {
    const list = (parsed as { instructions?: unknown } | null)?.instructions;
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      warn(`${config}: "instructions" is not an array; ignored`);
      continue;
    }
    const base = config.startsWith('.opencode/') ? '.opencode' : '';
    for (const item of list) {
      if (typeof item !== 'string') {
        warn(`${config}: an instructions entry is not a string; ignored`);
      } else if (/[*?[\]{}]/.test(item) || /^https?:/.test(item)) {
        warn(`${config}: instructions entry "${item}" is a pattern or URL; not resolved`);
      } else if (isAbsolute(item) || item.startsWith('~')) {
        // OpenCode reads an absolute (or home) path as it is: inside the workspace it is one of
        // its files; anywhere else it is outside what this report may read.
        const inside = isAbsolute(item) ? relative(root, item) : '..';
        if (inside.startsWith('..') || isAbsolute(inside))
          warn(`${config}: instructions entry "${item}" is outside the workspace; not read`);
        else if (!paths.includes(inside)) paths.push(inside);
      } else {
        const joined = relative(root, join(root, base, item));
        if (joined.startsWith('..')) warn(`${config}: instructions entry "${item}" is outside the workspace; not read`);
        else if (!paths.includes(joined)) paths.push(joined);
      }
    }
  }
  return paths;
}

export function skillMeta(text: string): { name?: string; description?: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match) return {};
  try {
    const data: unknown = parseYaml(match[1]!);
    if (typeof data !== 'object' || data === null) return {};
    const { name, description } = data as Record<string, unknown>;
    return {
      ...(typeof name === 'string' ? { name } : {}),
      ...(typeof description === 'string' ? { description } : {}),
    };
  } catch {
    return {};
  }
}

export const OPENCODE_LAYOUT: WorkspaceLayout = {
  configFiles: CONFIG_FILES,
  parseConfig,
  instructionPaths,
  agentConfig,
  skillDirs: SKILL_DIRS,
  // A read of a candidate skill puts text in context although the cache itself never counts.
  pathRules: [
    {
      under: ALL_SKILLS_DIR,
      source: 'unknown_tool_payload',
      read: (rest) => `Read candidate skill (not enabled): ${rest}`,
    },
  ],
  skillFile: SKILL_FILE,
  skillMeta,
  excludedDirs: [
    {
      dir: ALL_SKILLS_DIR,
      label: `Candidate skill cache (${ALL_SKILLS_DIR})`,
      reason: 'Cached candidates, not enabled skills: never in the model context.',
    },
  ],
};
