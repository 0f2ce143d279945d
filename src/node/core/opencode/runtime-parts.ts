/**
 * OpenCode's own item in parts, from the definitions recorded where the agent ran
 * (src/shared/opencode/definitions.ts): the provider prompt (or the agent's own prompt), the
 * environment block, each tool's schema as the model is sent it, and each MCP server's tools
 * (and instructions) as one group — each with an estimate in the report's tokenizer. The
 * provider prompt's size is the one measured through the runtime (provider-prompt-sizes.ts);
 * the rest is estimated from the recorded text. The core shares the measured item among them.
 * Pure.
 */
import { mcpToolName, openCodeDefinitionsSchema, type OpenCodeDefinitions } from '../../../shared/opencode/definitions';
import { MEASURED_WITH, PROVIDER_PROMPT_SIZES } from '../../../shared/opencode/provider-prompt-sizes';
import { PROVIDER_PROMPTS, providerPromptId } from '../../../shared/opencode/provider-prompts';
import { environmentBlock, mcpInstructionsBlock, mcpParameters, wireTool } from '../../../shared/opencode/runtime';
import type { Estimator, RecordedRuntime, RuntimePartEstimate, RuntimePartsEstimate } from '../types';

export const NO_DEFINITIONS =
  'no definitions of the runtime were recorded with this session (its rows come from elsewhere, or from before investibook recorded them), so its own prompt and tool schemas stay one measured block';

export function opencodeRuntimeParts(
  records: readonly RecordedRuntime[],
  call: { agent: string | null; model: string | null },
  estimator: Estimator,
): RuntimePartsEstimate {
  if (records.length === 0) return { reason: NO_DEFINITIONS };
  const read = records.flatMap((record) => {
    const definitions = parse(record.definitions);
    return definitions ? [{ record, definitions }] : [];
  });
  if (read.length === 0)
    return { reason: 'the runtime definitions recorded with this session could not be read (not in a known shape)' };
  const model = (d: OpenCodeDefinitions) => `${d.providerID}/${d.modelID}`;
  // The call's agent and model; a call that recorded no agent takes the model's definitions.
  const found =
    read.find((r) => r.definitions.agent === call.agent && model(r.definitions) === call.model) ??
    (call.agent === null ? read.find((r) => model(r.definitions) === call.model) : undefined);
  if (!found) {
    const recorded = read.map((r) => `${r.definitions.agent} ${model(r.definitions)}`).join(', ');
    return {
      reason: `no definitions were recorded for the call the total describes (${call.agent ?? 'an agent'} on ${call.model ?? 'an unknown model'}; recorded: ${recorded})`,
    };
  }
  const { definitions, record } = found;
  if (definitions.failed) return { reason: `the runtime's definitions could not be recorded: ${definitions.failed}` };
  const notes = [...definitions.problems];
  const parts: RuntimePartEstimate[] = [];

  if (definitions.agentPrompt) {
    parts.push({
      kind: 'agent_prompt',
      label: `System prompt: the ${definitions.agent} agent's own prompt`,
      estimate: Math.ceil(definitions.agentPrompt.chars / 4),
    });
  } else {
    const id = providerPromptId(definitions.apiId, definitions.providerID);
    const size = PROVIDER_PROMPT_SIZES[id];
    if (size) {
      const tokens = estimator.encoding
        ? Math.round(size.tokens[estimator.encoding] * (estimator.multiplier ?? 1))
        : Math.ceil(size.chars / 4);
      parts.push({
        kind: 'system_prompt',
        label: `System prompt: OpenCode's ${PROVIDER_PROMPTS[id].label} prompt`,
        name: id,
        estimate: tokens,
      });
    } else notes.push(`the size of OpenCode's ${id} prompt was not measured`);
    if (definitions.opencode !== MEASURED_WITH.opencode)
      notes.push(
        `the provider prompt's size was measured on OpenCode ${MEASURED_WITH.opencode}; this session ran ${definitions.opencode}`,
      );
  }
  if (definitions.environment) {
    const text = environmentBlock(definitions, definitions.environment);
    parts.push({ kind: 'environment', label: 'Environment block', estimate: estimator.count(text) });
  }
  for (const tool of definitions.tools) {
    parts.push({
      kind: 'tool',
      label: `Tool: ${tool.id}`,
      name: tool.id,
      estimate: estimator.count(wireTool(tool.id, tool.description, tool.parameters)),
    });
  }
  parts.push(...mcpParts(definitions, estimator, notes));
  return { parts, recordedAt: record.recordedAt, notes };
}

/** Each connected MCP server as one part: its tools' schemas and its instructions. */
function mcpParts(definitions: OpenCodeDefinitions, estimator: Estimator, notes: string[]): RuntimePartEstimate[] {
  const parts: RuntimePartEstimate[] = [];
  for (const server of definitions.mcp) {
    if (server.problem) notes.push(`MCP server ${server.name}: ${server.problem}`);
    if (server.status !== 'connected') continue;
    const tools = server.tools.map((t) => {
      const name = mcpToolName(server.name, t.name);
      return { name, estimate: estimator.count(wireTool(name, t.description, mcpParameters(t.inputSchema))) };
    });
    const instructions = server.instructions
      ? estimator.count(mcpInstructionsBlock(server.name, server.instructions))
      : 0;
    if (tools.length === 0 && instructions === 0) continue;
    if (server.resources)
      notes.push(`MCP server ${server.name} offers resources: OpenCode's three resource tools are not listed here`);
    parts.push({
      kind: 'mcp_server',
      label: `MCP server: ${server.name} (${tools.length} tool${tools.length === 1 ? '' : 's'}${instructions ? ', instructions' : ''})`,
      name: server.name,
      estimate: tools.reduce((n, t) => n + t.estimate, 0) + instructions,
      tools,
    });
  }
  return parts;
}

function parse(text: string | null): OpenCodeDefinitions | null {
  if (text === null) return null;
  try {
    const parsed = openCodeDefinitionsSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
