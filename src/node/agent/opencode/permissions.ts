/**
 * What the agent may do without asking, given to OpenCode through its own configuration.
 *
 * OpenCode (1.18.33) merges its configuration in layers — global, then the file named by
 * `OPENCODE_CONFIG`, then the project's `opencode.json` and `.opencode/opencode.json`, then
 * `OPENCODE_CONFIG_CONTENT` — key by key, and turns `permission` into rules evaluated last match
 * first, after its agents' own defaults (which allow everything not listed). So:
 *
 * - the server's defaults go in the `OPENCODE_CONFIG` layer, above the operator's global config
 *   and below the workspace: reading, searching and skills inside the workspace are allowed;
 *   so is investibook's own read-only MCP tool, the agent's context report; everything else
 *   (`*`: shell, edits, writes, web, reads outside the workspace, other MCP tools) is asked, and
 *   the server's policy answers (INVESTIBOOK_AGENT_PERMISSIONS, reject by default);
 * - a workspace's opencode.json may always tighten them; it may widen them only where the operator
 *   allows it (`INVESTIBOOK_AGENT_WORKSPACE_PERMISSIONS=widen`). Otherwise every `allow` it gives
 *   beyond the defaults is turned back into `ask`, in the highest layer
 *   (`OPENCODE_CONFIG_CONTENT`), where the workspace cannot override it.
 *
 * Whatever is allowed, the sandbox (sandbox.ts) bounds what it can reach.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, type ParseError } from 'jsonc-parser';
import { mcpToolName } from '../../../shared/opencode/definitions';
import { CONFIG_FILES } from '../../../shared/opencode/runtime';
import { CONTEXT_REPORT_TOOL, MCP_SERVER_NAME } from '../../mcp-names';

export type Action = 'allow' | 'ask' | 'deny';
/** OpenCode's permission value: one action, or actions by pattern (glob, last match wins). */
export type PermissionValue = Action | Record<string, Action>;
export type PermissionConfig = Record<string, PermissionValue>;

/**
 * The server's defaults. `*` first: OpenCode's own default for anything unlisted is `allow`, and
 * a later rule wins, so everything below is an exception to "ask".
 */
export const DEFAULT_PERMISSION: PermissionConfig = {
  '*': 'ask',
  read: { '*': 'allow', '*.env': 'ask', '*.env.*': 'ask', '*.env.example': 'allow' },
  list: 'allow',
  glob: 'allow',
  grep: 'allow',
  skill: 'allow',
  todowrite: 'allow',
  todoread: 'allow',
  // A subagent runs under the same rules; delegating is not a privilege of its own.
  task: 'allow',
  // The agent's own context report (investibook's MCP server, report-mcp.ts): read-only.
  investibook_context_report: 'allow',
  bash: 'ask',
  edit: 'ask',
  webfetch: 'ask',
  websearch: 'ask',
  codesearch: 'ask',
  external_directory: 'ask',
  doom_loop: 'ask',
};

/** OpenCode's wildcard: `*` any run of characters, `?` one, the whole text. */
export function wildcardMatch(pattern: string, text: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(text);
}

const rulesOf = (value: PermissionValue): [string, Action][] =>
  typeof value === 'string' ? [['*', value]] : (Object.entries(value) as [string, Action][]);

/** The action `config` gives a tool for an input, last matching rule first; `ask` when none. */
export function evaluate(config: PermissionConfig, permission: string, input: string): Action {
  let found: Action = 'ask';
  for (const [key, value] of Object.entries(config)) {
    if (!wildcardMatch(key, permission)) continue;
    for (const [pattern, action] of rulesOf(value)) if (wildcardMatch(pattern, input)) found = action;
  }
  return found;
}

/**
 * A workspace's permissions with every `allow` the defaults do not give turned into `ask`:
 * only the keys that changed, as an overlay. Null when nothing widens.
 */
export function tighten(workspace: PermissionConfig, defaults = DEFAULT_PERMISSION): PermissionConfig | null {
  const overlay: PermissionConfig = {};
  for (const [key, value] of Object.entries(workspace)) {
    if (!isPermissionValue(value)) continue;
    let changed = false;
    const rules = rulesOf(value).map(([pattern, action]): [string, Action] => {
      if (action !== 'allow' || evaluate(defaults, key, pattern) === 'allow') return [pattern, action];
      changed = true;
      return [pattern, 'ask'];
    });
    if (changed) overlay[key] = typeof value === 'string' ? 'ask' : Object.fromEntries(rules);
  }
  return Object.keys(overlay).length ? overlay : null;
}

const ACTIONS = new Set(['allow', 'ask', 'deny']);
function isPermissionValue(value: unknown): value is PermissionValue {
  if (typeof value === 'string') return ACTIONS.has(value);
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string' && ACTIONS.has(v))
  );
}

export interface WorkspacePermissions {
  /** Top-level `permission`, merged over the files. */
  permission: PermissionConfig;
  /** `agent.NAME.permission` of each agent the files configure. */
  agents: Record<string, PermissionConfig>;
  /** `mcp.NAME` entries, merged over the files (a later file's entry wins). */
  mcp: Record<string, Record<string, unknown>>;
  warnings: string[];
}

/** What a workspace's own OpenCode configuration says about permissions. */
export function readWorkspacePermissions(root: string): WorkspacePermissions {
  const out: WorkspacePermissions = { permission: {}, agents: {}, mcp: {}, warnings: [] };
  for (const name of CONFIG_FILES) {
    let text: string;
    try {
      text = readFileSync(join(root, name), 'utf8');
    } catch {
      continue;
    }
    const errors: ParseError[] = [];
    const config = parse(text, errors, { allowTrailingComma: true }) as unknown;
    if (errors.length || typeof config !== 'object' || config === null) {
      out.warnings.push(`${name} is not valid JSON; OpenCode will refuse it too`);
      continue;
    }
    const { permission, agent, mcp } = config as { permission?: unknown; agent?: unknown; mcp?: unknown };
    merge(out.permission, permission);
    if (typeof mcp === 'object' && mcp !== null) {
      for (const [server, entry] of Object.entries(mcp)) {
        if (typeof entry === 'object' && entry !== null) out.mcp[server] = { ...out.mcp[server], ...entry };
      }
    }
    if (typeof agent === 'object' && agent !== null) {
      for (const [name, settings] of Object.entries(agent)) {
        merge((out.agents[name] ??= {}), (settings as { permission?: unknown } | null)?.permission);
      }
    }
  }
  return out;
}

function merge(into: PermissionConfig, value: unknown): void {
  if (typeof value === 'string' && ACTIONS.has(value)) {
    // `"permission": "allow"` is OpenCode's shorthand for every tool.
    into['*'] = value as Action;
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [key, item] of Object.entries(value)) {
    if (!isPermissionValue(item)) continue;
    const before = into[key];
    into[key] =
      typeof item === 'object' && typeof before === 'object' ? { ...before, ...item } : (item as PermissionValue);
  }
}

/**
 * The highest configuration layer for a workspace whose config may not widen the defaults:
 * `OPENCODE_CONFIG_CONTENT`, or null when there is nothing to take back.
 */
export function tighteningOverlay(root: string): { content: string | null; warnings: string[] } {
  const found = readWorkspacePermissions(root);
  const permission = tighten(found.permission);
  const agent: Record<string, { permission: PermissionConfig }> = {};
  for (const [name, config] of Object.entries(found.agents)) {
    const overlay = tighten(config);
    if (overlay) agent[name] = { permission: overlay };
  }
  // A workspace MCP server whose tools OpenCode would name like investibook's own report tool
  // (`investibook_context` + `report` is `investibook_context_report`) would be allowed unasked:
  // it is turned off, its entry otherwise as the workspace wrote it.
  const mcp: Record<string, Record<string, unknown>> = {};
  for (const [server, entry] of Object.entries(found.mcp)) {
    if (!mcpToolName(MCP_SERVER_NAME, CONTEXT_REPORT_TOOL).startsWith(mcpToolName(server, ''))) continue;
    mcp[server] = { ...entry, enabled: false };
    found.warnings.push(`its MCP server "${server}" is turned off: its tools would be named like investibook's own`);
  }
  const overlay = {
    ...(permission ? { permission } : {}),
    ...(Object.keys(agent).length ? { agent } : {}),
    ...(Object.keys(mcp).length ? { mcp } : {}),
  };
  return { content: Object.keys(overlay).length ? JSON.stringify(overlay) : null, warnings: found.warnings };
}
