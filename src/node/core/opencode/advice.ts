/**
 * What OpenCode 1.18.33's own configuration can turn off, as fragments of opencode.json, each
 * checked against the pinned binary (test/agent/advice-config.test.ts):
 *
 * - a tool, for one agent: `agent.NAME.permission.TOOL: "deny"`. OpenCode leaves a tool out of
 *   the request when the last rule matching its permission denies every pattern
 *   (`Permission.disabled`); an agent's rules come after the top-level ones, so this holds over
 *   the server's defaults too. MCP tools go by the names the model is sent. `edit`, `write`
 *   and `apply_patch` share the `edit` permission, so they go together or not at all; the MCP
 *   resource tools share `read`, so they stay. (The older `tools: {TOOL: false}` form is turned
 *   into the same rule; the permission form is the one OpenCode documents now.)
 * - an MCP server that the workspace's config declares: `mcp.NAME.enabled: false` (for every
 *   agent; its instructions leave the prompt too). One it does not declare — given by the
 *   client over ACP, which OpenCode connects whatever its config says — has its tools denied.
 * - a skill, for one agent: `agent.NAME.permission.skill.SKILL: "deny"`: OpenCode drops it
 *   from that agent's catalog (`Skill.available`) and refuses to load it. The `skill` tool itself
 *   is left on: OpenCode sends the whole skill catalog only with it (`SystemPrompt.skills`), so
 *   turning it off would hide every skill, not just free its schema.
 */
import type { ConfigChange, RuntimeAdvice } from '../types';
import { readOutputLines } from './read-output';

/** Tools that are one permission in OpenCode: turned off together or not at all. */
const EDIT_TOOLS = ['edit', 'write', 'apply_patch', 'patch'];
const READ_TOOLS = ['list_mcp_resources', 'list_mcp_resource_templates', 'read_mcp_resource'];

type Permission = Record<string, 'deny' | Record<string, 'deny'>>;

const forAgent = (agent: string | null, permission: Permission) =>
  agent ? { agent: { [agent]: { permission } } } : { permission };

export const OPENCODE_ADVICE: RuntimeAdvice = {
  configFile: "the workspace's opencode.json (merged into what is there; OpenCode reads it when the agent starts)",
  configPath: 'opencode.json',

  unusedTools({ agent, sent, tools, mcp, config }): ConfigChange {
    const declared = new Set(config?.mcpServers ?? []);
    const servers = mcp.filter((s) => s.whole && declared.has(s.server)).map((s) => s.server);
    const named = [...tools, ...mcp.filter((s) => !servers.includes(s.server)).flatMap((s) => s.tools)];
    const kept: ConfigChange['kept'] = [];
    const denied: string[] = [];
    const permission: Permission = {};
    for (const tool of named) {
      if (READ_TOOLS.includes(tool)) {
        kept.push({ tool, why: 'it shares the read permission, which the agent needs' });
      } else if (tool === 'skill') {
        kept.push({ tool, why: 'OpenCode sends the skill catalog only with it: turning it off hides every skill' });
      } else if (EDIT_TOOLS.includes(tool)) {
        // Only when every edit tool the model is sent went unused.
        const used = EDIT_TOOLS.filter((t) => sent.includes(t) && !tools.includes(t));
        if (used.length === 0) {
          permission.edit = 'deny';
          denied.push(tool);
        } else kept.push({ tool, why: `it shares the edit permission with ${used.join(', ')}, which was called` });
      } else {
        permission[tool] = 'deny';
        denied.push(tool);
      }
    }
    const fragment = {
      ...(Object.keys(permission).length > 0 ? forAgent(agent, permission) : {}),
      ...(servers.length > 0 ? { mcp: Object.fromEntries(servers.map((s) => [s, { enabled: false }])) } : {}),
    };
    return {
      text: JSON.stringify(fragment),
      tools: [...denied, ...mcp.filter((s) => servers.includes(s.server)).flatMap((s) => s.tools)],
      servers,
      kept,
    };
  },

  unusedSkill({ agent, skill }): ConfigChange {
    return {
      text: JSON.stringify(forAgent(agent, { skill: { [skill]: 'deny' } })),
      tools: [],
      servers: [],
      kept: [],
    };
  },

  fileLines: readOutputLines,
};
