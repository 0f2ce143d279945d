/**
 * The kinds of tool a runtime has, as rules that attribute a call to what it touched (contract
 * §3): a tool that reads a file, one that edits or patches files, one that runs a shell command or
 * a terminal, one that loads a skill, one that fetches from the web, an MCP server's, a subagent.
 * A runtime adapter maps its own tool names to these (OpenCode's: core/opencode/tools.ts), the way
 * it defines its tools; a tool no name maps is read by the shape of its input (`ruleByShape`).
 * Unknown tool payload is left only for what names no path, address, working folder or owner.
 * Pure.
 */
import { mcpSourceId, type SourceId } from '../../shared/sources';
import { classifyPath, describeScope, folderOf, toWorkspacePath, type PathClass } from './paths';
import { shellPaths } from './shell-paths';
import type { AttributionContext, DeclaredSource } from './types';
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
  /** Where it belongs for sums by folder when no workspace path says: a folder outside, a web host. */
  folder?: string;
}

/** What a rule may ask of the message the call is in. */
export interface ToolScope {
  /** A path the tool recorded, as a workspace path; null when it lies outside every root. */
  workspacePath(recorded: string): string | null;
  classify(path: string): PathClass;
  /** The source the workspace paths named by a shell command decide (the largest file), if any. */
  shellSource(command: string): { source: SourceId; path: string } | null;
  /** The folder a command ran in: `workdir` (relative to the session's), else the session's. */
  workingFolder(workdir?: string): { path: string | null; shown: string } | null;
  /** The workspace's own declarations (`.investibook/sources.json`). */
  declared: readonly DeclaredSource[];
}

export type ToolRule = (call: ToolCall, scope: ToolScope) => ToolClass;

/**
 * The scope of a message's tool calls: its roots (the workspace, and the folders the agent
 * recorded), the folder its commands ran in (workspace-relative, '' at the root), the workspace.
 */
export function toolScope(
  roots: readonly string[],
  cwdInside: string,
  context: AttributionContext,
  cwd?: string,
): ToolScope {
  const workspacePath = (recorded: string) => toWorkspacePath(recorded, roots);
  const classify = (path: string) => classifyPath(path, context);
  return {
    workspacePath,
    classify,
    declared: context.declared ?? [],
    workingFolder(workdir) {
      const base = cwd ?? roots[0];
      const recorded = workdir && (workdir.startsWith('/') || !base) ? workdir : workdir ? `${base}/${workdir}` : base;
      if (recorded === undefined) return null;
      const path = workdir && !workdir.startsWith('/') && !cwd ? workspacePath(workdir) : workspacePath(recorded);
      return { path, shown: path === null ? recorded : describeScope(path) };
    },
    // Workspace paths named by a shell command decide its source; the largest file wins.
    shellSource(command) {
      let best: { source: SourceId; path: string; size: number } | null = null;
      for (const candidate of shellPaths(command)) {
        // Relative paths are relative to the folder the command ran in.
        const named = candidate.startsWith('/') || cwdInside === '' ? candidate : `${cwdInside}/${candidate}`;
        const path = workspacePath(named);
        if (path === null || path === '' || path === '.') continue;
        const classified = classify(path);
        const size = context.fileSize(path);
        // A bare word (`ls evidence`, but also a grep pattern) names a path only if it exists.
        if (size === null && !/[/.]/.test(candidate)) continue;
        // A folder of the table (evidence/…) says more than a file of the workspace's own.
        const rank = (size ?? -1) + (classified.byPath ? 0 : 2 ** 52);
        if (!best || rank > best.size) best = { source: classified.source, path, size: rank };
      }
      return best && { source: best.source, path: best.path };
    },
  };
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The path a tool's input names (`filePath`, `file_path` or `path`). */
const recordedPath = (input: Json): string | undefined =>
  str(input.filePath) ?? str(input.file_path) ?? str(input.path);

/**
 * A tool whose input names a path (an edit, a write, a search's folder): the path's source. A path
 * outside every root (an export's from another machine) is still a file by path; a search that
 * names no folder searched the folder it ran in.
 */
export const pathTool: ToolRule = (call, scope) => {
  const recorded = recordedPath(call.input);
  if (recorded === undefined) {
    if (!isSearch(call)) return unknownTool(call);
    const folder = scope.workingFolder();
    if (!folder) return unknownTool(call);
    return byFolder(call, folder, scope, `Tool call: ${call.name} — ${summary(call, folder.path ?? folder.shown)}`);
  }
  const path = scope.workspacePath(recorded);
  if (path === null) {
    return {
      source: 'issue_source_files',
      label: `Tool call: ${call.name} — outside the workspace: ${preview(recorded, 80)}`,
      folder: folderOf(recorded),
    };
  }
  return {
    source: scope.classify(path).source,
    label: `Tool call: ${call.name} — ${summary(call, path)}`,
    ...(path ? { path } : { folder: './' }),
  };
};

/** A tool that names nothing it touched: Unknown tool payload, its name kept. */
const unknownTool = (call: ToolCall): ToolClass => ({
  source: 'unknown_tool_payload',
  label: `Tool call: ${call.name} — ${summary(call, undefined)}`,
});

const isSearch = (call: ToolCall): boolean =>
  ['pattern', 'query', 'glob', 'include'].some((key) => typeof call.input[key] === 'string');

/** A call that belongs to the folder it ran in: that folder's source, or a file by path outside. */
function byFolder(
  call: ToolCall,
  folder: { path: string | null; shown: string },
  scope: ToolScope,
  label: string,
): ToolClass {
  if (folder.path === null)
    return { source: 'issue_source_files', label, folder: `${folder.shown.replace(/\/$/, '')}/` };
  return { source: scope.classify(folder.path).source, label, folder: folder.path === '' ? './' : `${folder.path}/` };
}

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
  // A file outside every root is still a file the agent read, by its path (an export's paths
  // are the author's machine's): Issue/source files, summed by its folder.
  return {
    source: classified?.source ?? 'issue_source_files',
    label,
    ...(path === null ? { folder: folderOf(recorded) } : { path, readKey: `read:${path}:${range}` }),
  };
};

/**
 * `bash` (and a terminal started with a command): the workspace files its command names decide its
 * source (the largest if several); a command that names none belongs to the folder it ran in.
 */
export const shellTool: ToolRule = (call, scope) => {
  const command = str(call.input.command);
  if (command === undefined) return pathTool(call, scope);
  const named = scope.shellSource(command);
  const label = `Shell: ${preview(command, 60)}`;
  if (named) return { source: named.source, label, path: named.path };
  const folder = scope.workingFolder(str(call.input.workdir) ?? str(call.input.cwd));
  return folder ? byFolder(call, folder, scope, label) : { source: 'unknown_tool_payload', label };
};

/**
 * A terminal's later reads and writes (`pty_read`, `pty_write`: OpenCode's pty plugin) name the
 * terminal, which runs in the session's folder: they belong to that folder like its command.
 */
export const terminalTool: ToolRule = (call, scope) => {
  const id = str(call.input.id) ?? str(call.input.pid) ?? 'a terminal';
  const label = `Terminal ${preview(id, 30)}: ${call.name}`;
  const folder = scope.workingFolder(str(call.input.workdir) ?? str(call.input.cwd));
  return folder ? byFolder(call, folder, scope, label) : { source: 'unknown_tool_payload', label };
};

/** `apply_patch` / `patch`: the files its patch text names; the first decides its source. */
export const patchTool: ToolRule = (call, scope) => {
  const text =
    str(call.input.patchText) ?? str(call.input.patch_text) ?? str(call.input.patch) ?? str(call.input.input);
  const files = text ? patchFiles(text) : [];
  if (files.length === 0) return pathTool(call, scope);
  const first = files[0]!;
  const path = scope.workspacePath(first);
  const more = files.length > 1 ? ` (+${files.length - 1} more)` : '';
  const shown = path ?? first;
  if (path === null)
    return { source: 'issue_source_files', label: `Patch: ${preview(shown, 70)}${more}`, folder: folderOf(first) };
  return {
    source: scope.classify(path).source,
    label: `Patch: ${preview(shown, 70)}${more}`,
    ...(path ? { path } : {}),
  };
};

/**
 * The files a patch adds, updates, deletes or moves to (OpenCode's and Codex's format: `*** Update
 * File: PATH`, `*** Move to: PATH`): every `*** Verb Noun: PATH` header line, by its shape.
 */
export function patchFiles(text: string): string[] {
  const files: string[] = [];
  for (const match of text.matchAll(/^\*\*\* [A-Za-z]+(?: [A-Za-z]+)?: (.+)$/gm)) {
    const file = match[1]!.trim();
    if (!files.includes(file)) files.push(file);
  }
  return files;
}

/**
 * `task`: hands work to a subagent, which works in a session of its own (the runtime records its
 * id in the call's metadata, `sessionId`); its answer comes back as the call's output — words the
 * subagent wrote for the agent, so the conversation's (its own session's report says what it read).
 */
export const subagentTool: ToolRule = (call) => {
  const description = str(call.input.description) ?? preview(str(call.input.prompt) ?? 'a task', 60);
  const sessionId = str(call.metadata.sessionId);
  const agent = str(call.input.subagent_type);
  return {
    source: 'conversation',
    label: `Subagent: ${description}`,
    ...(sessionId ? { subagent: { sessionId, description, ...(agent ? { agent } : {}) } } : {}),
  };
};

/** `webfetch`: a page from the web, by its address — a declaration's, else Web pages (by host). */
export const fetchTool: ToolRule = (call, scope) => {
  const url = str(call.input.url) ?? '';
  const claimed = declaredUrl(url, scope.declared);
  return {
    source: claimed?.id ?? 'web_pages',
    label: `Web page: ${preview(url, 70)}`,
    ...(hostOf(url) ? { folder: `${hostOf(url)}/` } : {}),
  };
};

/** `websearch`, `codesearch`: a search of the web, by its query (Web pages). */
export const webSearchTool: ToolRule = (call) => ({
  source: 'web_pages',
  label: `Web search: "${preview(str(call.input.query) ?? str(call.input.q) ?? '', 60)}"`,
});

/** The host of a web address, if it has one. */
export function hostOf(url: string): string | null {
  return /^[a-z][\w+.-]*:\/\/([^/?#:]+)/i.exec(url)?.[1]?.toLowerCase() ?? null;
}

/** The declaration that claims a page: its host, or its host and path prefix (`docs.example.com/api`). */
function declaredUrl(url: string, declared: readonly DeclaredSource[]): DeclaredSource | null {
  const host = hostOf(url);
  if (!host) return null;
  const rest = url.replace(/^[a-z][\w+.-]*:\/\//i, '').toLowerCase();
  return (
    declared.find((d) =>
      d.urls.some((claim) => {
        const c = claim.replace(/^[a-z][\w+.-]*:\/\//i, '').toLowerCase();
        return c.includes('/') ? rest.startsWith(c) : host === c || host.endsWith(`.${c}`);
      }),
    ) ?? null
  );
}

/**
 * An MCP server's tool (OpenCode names it `SERVER_TOOL`): its output belongs to its server, as the
 * workspace declares it, else a row of its own. A path in its input still decides first.
 */
export const mcpTool =
  (server: string): ToolRule =>
  (call, scope) => {
    if (recordedPath(call.input) !== undefined) return pathTool(call, scope);
    return {
      source: mcpSourceId(server),
      label: `MCP ${server}: ${call.name.slice(server.length + 1)} — ${summary(call, undefined)}`,
    };
  };

/** The agent's own notes and questions (`todowrite`, `question`): the conversation. */
export const conversationTool: ToolRule = (call) => ({
  source: 'conversation',
  label: call.name.startsWith('todo')
    ? `Todo list (${call.name})`
    : `Tool call: ${call.name} — ${summary(call, undefined)}`,
});

/**
 * investibook's own context report, read through its MCP server (src/node/mcp): like any MCP
 * server's output, its server's (contract §3) — only its label is its own.
 */
export const contextReportTool: ToolRule = () => ({
  source: mcpSourceId('investibook'),
  label: 'Context report (MCP)',
});

/**
 * A rule by the shape of the input, for a tool no name maps: a shell command, a path, a page;
 * else a tool named `SERVER_TOOL` is an MCP server's.
 */
export function ruleByShape(call: ToolCall): ToolRule {
  if (typeof call.input.command === 'string' && recordedPath(call.input) === undefined) return shellTool;
  if (recordedPath(call.input) !== undefined) return pathTool;
  if (typeof call.input.url === 'string' && hostOf(call.input.url)) return fetchTool;
  const server = /^([A-Za-z0-9-]+)_./.exec(call.name)?.[1];
  return server ? mcpTool(server) : pathTool;
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
