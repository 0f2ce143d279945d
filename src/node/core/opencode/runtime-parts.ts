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
import type { RuntimeCall } from '../runtime';
import type { Estimator, RecordedRuntime, RuntimePartEstimate, RuntimePartsEstimate } from '../types';
import { PINNED_OPENCODE, pinnedDefinitions } from './pinned-definitions';

export const NO_DEFINITIONS =
  'no definitions of the runtime were recorded with this session (its rows come from elsewhere, or from before investibook recorded them)';

export function opencodeRuntimeParts(
  records: readonly RecordedRuntime[],
  call: RuntimeCall,
  estimator: Estimator,
): RuntimePartsEstimate {
  // None recorded where it ran (an import, rows from elsewhere): as the pinned OpenCode measures them.
  if (records.length === 0) return pinnedParts(call, estimator);
  const read = readRecords(records);
  const waiting = records.flatMap((record) => {
    const use = pending(record.definitions);
    return use ? [{ record, use }] : [];
  });
  if (read.length === 0 && waiting.length === 0)
    return { reason: 'the runtime definitions recorded with this session could not be read (not in a known shape)' };
  // The call's agent and model; a call that recorded no agent takes the model's definitions.
  const fits = (use: { agent: string; providerID: string; modelID: string }, anyAgent: boolean) =>
    (anyAgent || use.agent === call.agent) && `${use.providerID}/${use.modelID}` === call.model;
  const pick = (anyAgent: boolean) =>
    applicable(
      [
        ...read.filter((r) => fits(r.definitions, anyAgent)),
        ...waiting.filter((w) => fits(w.use, anyAgent)).map((w) => ({ record: w.record, definitions: null })),
      ],
      call.at,
    );
  const chosen = pick(false) ?? (call.agent === null ? pick(true) : undefined);
  // The set that applies is still being recorded (its row reserved at the turn's end).
  if (chosen && chosen.definitions === null) return { reason: BEING_RECORDED };
  const found = chosen;
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

/**
 * The parts of a session that recorded no definitions where it ran, as the pinned OpenCode
 * measures its agent's definitions for the call's model (pinned-definitions.ts); what its rows
 * cannot tell stays in the remainder, said.
 */
function pinnedParts(call: RuntimeCall, estimator: Estimator): RuntimePartsEstimate {
  const found = pinnedDefinitions(call.agent, call.model);
  if ('reason' in found)
    return {
      reason: `${NO_DEFINITIONS}, and ${found.reason}: its own prompt and tool schemas stay one measured block`,
    };
  const { definitions } = found;
  const record: RecordedRuntime = {
    key: `${definitions.agent} ${model(definitions)}`,
    parentSessionId: null,
    recordedAt: 0,
    definitions: JSON.stringify(definitions),
  };
  const estimate = opencodeRuntimeParts([record], { agent: definitions.agent, model: call.model }, estimator);
  if ('reason' in estimate) return estimate;
  return {
    ...estimate,
    notes: [
      `OpenCode's own prompt and tools are split as measured with OpenCode ${PINNED_OPENCODE} (its own server's definitions for the ${definitions.agent} agent and ${model(definitions)}), not recorded where the session ran: another version may send other definitions (the report's origin names the version an export ran)`,
      'The rows do not hold the environment block (the machine, the date) or the definitions of the MCP servers and skills the workspace had: they are in the part not itemised',
      ...estimate.notes.filter((n) => !n.startsWith("the provider prompt's size was measured on")),
    ],
    measuredWith: { runtime: 'OpenCode', version: PINNED_OPENCODE },
  };
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

const BEING_RECORDED =
  'OpenCode’s definitions for this agent and model are being recorded (they are asked for after the turn, which takes a few seconds): its own prompt and tool schemas are one measured block until then';

const model = (d: OpenCodeDefinitions) => `${d.providerID}/${d.modelID}`;

interface Read {
  record: RecordedRuntime;
  definitions: OpenCodeDefinitions;
}

const readRecords = (records: readonly RecordedRuntime[]): Read[] =>
  records.flatMap((record) => {
    const definitions = parse(record.definitions);
    return definitions ? [{ record, definitions }] : [];
  });

/**
 * Of one agent and model's definitions, those that describe a call made at `at`: the latest set
 * in use by then (a set recorded again after the agent's tools changed applies from the turn it
 * was seen in); a call before them all has the first.
 */
function applicable<T extends { record: RecordedRuntime }>(read: readonly T[], at: number | undefined): T | undefined {
  const byTime = [...read].sort((a, b) => a.record.recordedAt - b.record.recordedAt);
  if (at === undefined) return byTime.at(-1);
  return byTime.filter((r) => r.record.recordedAt <= at).at(-1) ?? byTime[0];
}

/** A row the bridge reserved right after a turn, its definitions not in yet: for which agent and model. */
function pending(text: string | null): { agent: string; providerID: string; modelID: string } | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as { kind?: unknown; agent?: unknown; providerID?: unknown; modelID?: unknown };
    const { agent, providerID, modelID } = value;
    return value.kind === 'pending' &&
      typeof agent === 'string' &&
      typeof providerID === 'string' &&
      typeof modelID === 'string'
      ? { agent, providerID, modelID }
      : null;
  } catch {
    return null;
  }
}

/**
 * When the runtime's own prompt changed in the session, as the definitions recorded for an agent
 * and model again show it (the agent was given other tools: investibook's MCP server, say): from
 * the turn they were recorded again in, with what changed in words — for the calibration, which
 * measures the runtime again there and says why.
 */
export function definitionChanges(records: readonly RecordedRuntime[]): { at: number; what: string; reason: string }[] {
  const read = readRecords(records);
  const changes: { at: number; what: string; reason: string }[] = [];
  const groups = new Map<string, Read[]>();
  for (const r of read) {
    const key = `${r.definitions.agent} ${model(r.definitions)}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const [key, group] of groups) {
    const byTime = group.sort((a, b) => a.record.recordedAt - b.record.recordedAt);
    for (let i = 1; i < byTime.length; i++) {
      const [before, after] = [byTime[i - 1]!.definitions, byTime[i]!.definitions];
      changes.push({
        at: byTime[i]!.record.recordedAt,
        what: `the ${key} definitions`,
        reason: changeWords(before, after),
      });
    }
  }
  // A pending row (definitions not in yet) already marks where a new set applies from.
  for (const record of records) {
    if (!pending(record.definitions) || !record.key.includes(' @')) continue;
    changes.push({
      at: record.recordedAt,
      what: 'the runtime',
      reason: 'the agent’s tools changed (their definitions are being recorded)',
    });
  }
  return changes;
}

/** "tools added: investibook_context_report (MCP server investibook)", "another workspace folder". */
function changeWords(before: OpenCodeDefinitions, after: OpenCodeDefinitions): string {
  const tools = (d: OpenCodeDefinitions) => [
    ...d.tools.map((t) => t.id),
    ...d.mcp.filter((m) => m.status === 'connected').flatMap((m) => m.tools.map((t) => mcpToolName(m.name, t.name))),
  ];
  const servers = (d: OpenCodeDefinitions) => d.mcp.filter((m) => m.status === 'connected').map((m) => m.name);
  const [was, now] = [new Set(tools(before)), new Set(tools(after))];
  const added = [...now].filter((t) => !was.has(t));
  const removed = [...was].filter((t) => !now.has(t));
  const newServers = servers(after).filter((s) => !servers(before).includes(s));
  const goneServers = servers(before).filter((s) => !servers(after).includes(s));
  const words = [
    added.length ? `tools added: ${added.join(', ')}` : null,
    removed.length ? `tools removed: ${removed.join(', ')}` : null,
    newServers.length ? `MCP server${newServers.length === 1 ? '' : 's'} ${newServers.join(', ')} added` : null,
    goneServers.length ? `MCP server${goneServers.length === 1 ? '' : 's'} ${goneServers.join(', ')} removed` : null,
    before.environment?.directory !== after.environment?.directory ? 'another workspace folder' : null,
    (before.agentPrompt?.chars ?? null) !== (after.agentPrompt?.chars ?? null) ? 'another agent prompt' : null,
  ].filter(Boolean);
  return words.length ? words.join('; ') : 'its definitions were recorded again';
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
