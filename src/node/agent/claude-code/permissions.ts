/**
 * The server's permission policy in Claude Code's terms: a `permissions` block of its settings,
 * written into the workspace agent's private HOME (`$HOME/.claude/settings.json`, the "user"
 * tier), never into the workspace's `.claude/settings*.json`.
 *
 * Claude Code (2.1.318) merges `permissions.allow`, `ask` and `deny` over every tier (user,
 * project, local, flag) and evaluates deny, then ask, then the permission mode, then allow: an
 * `ask` rule holds whatever another tier allows, and whatever mode a workspace picks. So:
 *
 * - reading and searching inside the workspace are Claude Code's own default (its read-only
 *   tools run unasked in the working folder, and ask outside it), as OpenCode's defaults allow;
 *   skills, todos, subagents and investibook's own read-only MCP tool are allowed;
 * - the shell, edits, writes, notebooks and the web are asked, and the server's policy answers
 *   over ACP (INVESTIBOOK_AGENT_PERMISSIONS, reject by default); so are reads of `.env` files;
 * - with INVESTIBOOK_AGENT_WORKSPACE_PERMISSIONS=tighten (the default) these `ask` rules are
 *   written, so a workspace's `allow` never widens them; with `widen` they are left out and a
 *   workspace's own rules may allow more (Claude Code still asks for what nobody allowed);
 * - `defaultMode: "default"` (asking goes to the client, never to Claude Code's classifier on the
 *   model) and bypass mode disabled.
 *
 * Whatever is allowed, the sandbox (sandbox.ts) bounds what it can reach.
 */
import { CONTEXT_REPORT_TOOL, MCP_SERVER_NAME } from '../../mcp-names';

/** Claude Code's `permissions` settings (its documented keys). */
export interface ClaudePermissions {
  allow: string[];
  ask: string[];
  deny: string[];
  defaultMode: 'default';
  disableBypassPermissionsMode: 'disable';
}

/** investibook's report tool as Claude Code names an MCP server's tool: `mcp__SERVER__TOOL`. */
export const CLAUDE_REPORT_TOOL = `mcp__${MCP_SERVER_NAME}__${CONTEXT_REPORT_TOOL}`;

/** Allowed unasked: nothing here writes or leaves the sandbox (a subagent runs under the same rules). */
const ALLOWED = ['Skill', 'TodoWrite', 'Task', 'Agent', CLAUDE_REPORT_TOOL];

/** Asked, the server answering: what changes files, runs programs, or reaches the web; secrets' files. */
const ASKED = [
  'Bash',
  'Edit',
  'MultiEdit',
  'Write',
  'NotebookEdit',
  'WebFetch',
  'WebSearch',
  'Read(**/.env)',
  'Read(**/*.env)',
  'Read(**/.env.*)',
];

export function claudePermissions(workspacePermissions: 'tighten' | 'widen'): ClaudePermissions {
  return {
    allow: [...ALLOWED],
    ask: workspacePermissions === 'tighten' ? [...ASKED] : [],
    deny: [],
    defaultMode: 'default',
    disableBypassPermissionsMode: 'disable',
  };
}

/**
 * The private settings file: the policy, and nothing that would send data elsewhere (no
 * telemetry, no feedback surveys; CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC says it too).
 */
export function claudeSettings(workspacePermissions: 'tighten' | 'widen'): Record<string, unknown> {
  return {
    permissions: claudePermissions(workspacePermissions),
    includeCoAuthoredBy: false,
    feedbackSurveyRate: 0,
  };
}
