/**
 * The kinds of tool a runtime has, as rules that attribute a call to a source: a tool that reads
 * a file, one that runs a shell command, one that loads a skill, one that fetches from the web,
 * one whose input names a path. A runtime adapter maps its own tool names to these (OpenCode's:
 * core/opencode/tools.ts), the way it defines its tools; a tool no name maps is read by the shape
 * of its input (`ruleByShape`). Pure.
 */
import type { SourceId } from '../../shared/sources';
import { classifyPath, describeScope, toWorkspacePath, type PathClass } from './paths';
import { shellPaths } from './shell-paths';
import type { AttributionContext } from './types';
import { preview } from './text';

type Json = Record<string, unknown>;

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
  /** The subagent a call handed work to, and the session it worked in. */
  subagent?: { sessionId: string; description: string; agent?: string };
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

/**
 * The scope of a message's tool calls: its roots (the workspace, and the folders the agent
 * recorded), the folder its commands ran in (workspace-relative, '' at the root), the workspace.
 */
export function toolScope(roots: readonly string[], cwdInside: string, context: AttributionContext): ToolScope {
  const workspacePath = (recorded: string) => toWorkspacePath(recorded, roots);
  const classify = (path: string) => classifyPath(path, context);
  return {
    workspacePath,
    classify,
    // Workspace paths named by a shell command decide its source; the largest file wins.
    shellSource(command) {
      let best: { source: SourceId; path: string; size: number } | null = null;
      for (const candidate of shellPaths(command)) {
        // Relative paths are relative to the folder the command ran in.
        const named = candidate.startsWith('/') || cwdInside === '' ? candidate : `${cwdInside}/${candidate}`;
        const path = workspacePath(named);
        if (path === null || path === '' || path === '.') continue;
        const classified = classify(path);
        if (classified.source === 'unknown_tool_payload') continue;
        const size = context.fileSize(path);
        // A bare word (`ls evidence`, but also a grep pattern) names a path only if it exists.
        if (size === null && !/[/.]/.test(candidate)) continue;
        if (!best || (size ?? -1) > best.size) best = { source: classified.source, path, size: size ?? -1 };
      }
      return best && { source: best.source, path: best.path };
    },
  };
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The path a tool's input names (`filePath`, `file_path` or `path`). */
const recordedPath = (input: Json): string | undefined =>
  str(input.filePath) ?? str(input.file_path) ?? str(input.path);

/** A tool whose input names a path: the path's source (Unknown tool payload outside the workspace). */
export const pathTool: ToolRule = (call, scope) => {
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
export const skillTool: ToolRule = (call) => {
  const skill = str(call.input.name) ?? str(call.metadata.name) ?? 'unnamed';
  return { source: 'skills_knowledge', label: `Loaded skill: ${skill}`, skill };
};

/** `read`: a file (or a range of its lines); the same file and range read again is a duplicate. */
export const readTool: ToolRule = (call, scope) => {
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
export const shellTool: ToolRule = (call, scope) => {
  const command = str(call.input.command);
  if (command === undefined) return pathTool(call, scope);
  const named = scope.shellSource(command);
  return {
    source: named?.source ?? 'unknown_tool_payload',
    label: `Shell: ${preview(command, 60)}`,
    ...(named ? { path: named.path } : {}),
  };
};

/**
 * `task`: hands work to a subagent, which works in a session of its own (the runtime records its
 * id in the call's metadata, `sessionId`); its answer comes back as the call's output.
 */
export const subagentTool: ToolRule = (call) => {
  const description = str(call.input.description) ?? preview(str(call.input.prompt) ?? 'a task', 60);
  const sessionId = str(call.metadata.sessionId);
  const agent = str(call.input.subagent_type);
  return {
    source: 'unknown_tool_payload',
    label: `Subagent: ${description}`,
    ...(sessionId ? { subagent: { sessionId, description, ...(agent ? { agent } : {}) } } : {}),
  };
};

/** `webfetch`: a page from the web, in no workspace source. */
export const fetchTool: ToolRule = (call) => ({
  source: 'unknown_tool_payload',
  label: `Web fetch: ${preview(str(call.input.url) ?? '', 60)}`,
});

/**
 * investibook's own context report, read through its MCP server (src/node/mcp): a tool payload
 * like any other, and one that names no workspace file, so Unknown tool payload (contract §3) —
 * only its label is its own.
 */
export const contextReportTool: ToolRule = () => ({ source: 'unknown_tool_payload', label: 'Context report (MCP)' });

/** A rule by the shape of the input, for a tool no name maps: a shell command, else a path. */
export function ruleByShape(call: ToolCall): ToolRule {
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
