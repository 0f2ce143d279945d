/**
 * How a tool call is attributed to a source: one rule per tool, the way OpenCode defines its
 * tools (a name, an input schema, what it does), looked up by the tool's name. A tool no rule
 * names — an MCP server's, a plugin's — is read by the shape of its input: a shell command, a
 * path, else nothing to go by. Contract §3's order holds around the rules: an explicit
 * `state.metadata.investibook.source` tag overrides any rule (attribute.ts applies it).
 *
 * Adding a tool is adding a rule here (and a test in test/node/core.test.ts).
 */
import type { Json } from '../../../shared/opencode/format';
import type { SourceId } from '../../../shared/sources';
import { describeScope, type PathClass } from '../paths';
import { preview } from '../text';

/** A tool call as the rules see it. */
export interface ToolCall {
  name: string;
  input: Json;
  metadata: Json;
}

/** What a rule decides. */
export interface ToolClass {
  source: SourceId;
  label: string;
  /** The workspace file it is about (for duplicates and the reader). */
  path?: string;
  /** Reads with the same key read the same file and range (see Contribution.readKey). */
  readKey?: string;
  /** The skill a `skill` call loaded. */
  skill?: string;
}

/** What a rule may ask of the message the call is in. */
export interface ToolScope {
  /** A path the tool recorded, as a workspace path; null when it lies outside every root. */
  workspacePath(recorded: string): string | null;
  classify(path: string): PathClass;
  /** The source the workspace paths named by a shell command decide (the largest file), if any. */
  shellSource(command: string): { source: SourceId; path: string } | null;
}

export type ToolRule = (call: ToolCall, scope: ToolScope) => ToolClass;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The path a tool's input names (OpenCode's tools call it `filePath` or `path`). */
const recordedPath = (input: Json): string | undefined => str(input.filePath) ?? str(input.path);

/** A tool whose input names a path: the path's source (Unknown tool payload outside the workspace). */
const pathTool: ToolRule = (call, scope) => {
  const recorded = recordedPath(call.input);
  const path = recorded === undefined ? undefined : scope.workspacePath(recorded);
  const classified = path === undefined || path === null ? null : scope.classify(path);
  return {
    source: classified?.source ?? 'unknown_tool_payload',
    label: `Tool call: ${call.name} — ${summary(call, path)}`,
    ...(path ? { path } : {}),
  };
};

/** `skill`: loads a skill's SKILL.md into the conversation. */
const skillTool: ToolRule = (call) => {
  const skill = str(call.input.name) ?? str(call.metadata.name) ?? 'unnamed';
  return { source: 'skills_knowledge', label: `Loaded skill: ${skill}`, skill };
};

/** `read`: a file (or a range of its lines); the same file and range read again is a duplicate. */
const readTool: ToolRule = (call, scope) => {
  const recorded = recordedPath(call.input);
  if (recorded === undefined) return pathTool(call, scope);
  const path = scope.workspacePath(recorded);
  const classified = path === null ? null : scope.classify(path);
  const { offset, limit } = call.input;
  const range = [offset, limit].map((v) => (typeof v === 'number' ? v : '')).join(':');
  let label = classified?.readLabel ?? `Read file outside the workspace: ${recorded}`;
  if (range !== ':') label += ` (lines ${describeRange(offset, limit)})`;
  return {
    source: classified?.source ?? 'unknown_tool_payload',
    label,
    ...(path === null ? {} : { path, readKey: `read:${path}:${range}` }),
  };
};

/** `bash`: the workspace files its command names decide its source (the largest if several). */
const shellTool: ToolRule = (call, scope) => {
  const command = str(call.input.command);
  if (command === undefined) return pathTool(call, scope);
  const named = scope.shellSource(command);
  return {
    source: named?.source ?? 'unknown_tool_payload',
    label: `Shell: ${preview(command, 60)}`,
    ...(named ? { path: named.path } : {}),
  };
};

/** `webfetch`: a page from the web, in no workspace source. */
const fetchTool: ToolRule = (call) => ({
  source: 'unknown_tool_payload',
  label: `Web fetch: ${preview(str(call.input.url) ?? '', 60)}`,
});

/** OpenCode 1.18.33's built-in tools, by name. */
export const TOOL_RULES: Readonly<Record<string, ToolRule>> = {
  bash: shellTool,
  read: readTool,
  skill: skillTool,
  webfetch: fetchTool,
  edit: pathTool,
  write: pathTool,
  patch: pathTool,
  list: pathTool,
  glob: pathTool,
  grep: pathTool,
};

/** The rule for a call: its tool's, else one chosen by the shape of its input. */
export function toolRule(call: ToolCall): ToolRule {
  const named = Object.hasOwn(TOOL_RULES, call.name) ? TOOL_RULES[call.name] : undefined;
  if (named) return named;
  if (typeof call.input.command === 'string' && recordedPath(call.input) === undefined) return shellTool;
  return pathTool;
}

function summary(call: ToolCall, path: string | null | undefined): string {
  const { input } = call;
  const pattern = str(input.pattern) ?? str(input.query);
  if (pattern !== undefined) {
    const scope = path === undefined ? '' : ` in ${describeScope(path)}`;
    return `"${preview(pattern, 40)}"${scope}`;
  }
  if (path !== undefined) return describeScope(path);
  const first = Object.values(input).find((value) => typeof value === 'string');
  return typeof first === 'string' ? preview(first, 60) : call.name;
}

function describeRange(offset: unknown, limit: unknown): string {
  const start = typeof offset === 'number' ? offset : 1;
  return typeof limit === 'number' ? `${start}–${start + limit - 1}` : `${start}–end`;
}
