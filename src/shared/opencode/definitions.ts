/**
 * OpenCode's own definitions for a session — what it puts in every request besides the
 * conversation and the workspace's files — as recorded where the agent ran
 * (src/node/agent/opencode/runtime-definitions.ts) and stored with the session (`session_runtime`): the
 * tools its server lists for the session's provider and model, each MCP server's tools, the
 * facts of its environment block, and the agent's own prompt where it has one. The report reads
 * them to split the measured runtime item into parts; it never asks a runtime itself.
 *
 * JSON Schemas are kept as the text the server sent, so their key order (which the provider
 * counts) survives a database that reorders JSON keys (PostgreSQL's JSONB).
 */
import * as z from 'zod/mini';

export const DEFINITIONS_VERSION = 1;

const toolSchema = z.object({
  id: z.string(),
  description: z.string(),
  /** The JSON Schema of its input, as text. */
  parameters: z.string(),
});

const mcpServerSchema = z.object({
  /** The server's name in OpenCode's configuration. */
  name: z.string(),
  /** OpenCode's status for it (`connected`, `failed`, `disabled`, …): only a connected one's tools are sent. */
  status: z.string(),
  tools: z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.string() })),
  /** What the server says about itself at initialisation (OpenCode adds it to the system prompt). */
  instructions: z.optional(z.string()),
  /** The server offers resources (OpenCode then adds its three resource tools). */
  resources: z.optional(z.boolean()),
  /** Why its tools could not be listed. */
  problem: z.optional(z.string()),
});

export const openCodeDefinitionsSchema = z.object({
  kind: z.literal('opencode'),
  version: z.number(),
  /** The OpenCode that ran ("1.18.33"). */
  opencode: z.string(),
  agent: z.string(),
  providerID: z.string(),
  modelID: z.string(),
  /** The model's API id (the provider prompt and the environment block go by it). */
  apiId: z.string(),
  /** Tools sent to the model: the server's list for the provider and model, less `invalid` and what the rules remove. */
  tools: z.array(toolSchema),
  /** Tools the agent's and the session's permission rules remove from the request (`deny` for every pattern). */
  disabled: z.array(z.string()),
  mcp: z.array(mcpServerSchema),
  /** The facts of the environment block (null: not known). */
  environment: z.nullable(
    z.object({
      directory: z.string(),
      worktree: z.string(),
      git: z.boolean(),
      platform: z.string(),
      date: z.string(),
    }),
  ),
  /** The agent's own prompt, which replaces the provider prompt: its size only. */
  agentPrompt: z.nullable(z.object({ chars: z.number() })),
  /** What could not be recorded, in words (the rest stands). */
  problems: z.array(z.string()),
  /** Set when nothing could be recorded: why. */
  failed: z.optional(z.string()),
});
export type OpenCodeDefinitions = z.infer<typeof openCodeDefinitionsSchema>;
export type McpServerDefinitions = OpenCodeDefinitions['mcp'][number];
export type ToolDefinition = OpenCodeDefinitions['tools'][number];

/** Which agent and model a row of definitions is for: the `session_runtime` key. */
export const definitionsKey = (agent: string, providerID: string, modelID: string): string =>
  `${agent} ${providerID}/${modelID}`;

/** OpenCode's name for an MCP tool (`McpCatalog.toolName`): server and tool, sanitised, joined by `_`. */
export function mcpToolName(server: string, tool: string): string {
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, '_');
  return `${clean(server)}_${clean(tool)}`;
}

/** The parts of the system prompt OpenCode's environment block is made of. */
export type EnvironmentFacts = NonNullable<OpenCodeDefinitions['environment']>;
