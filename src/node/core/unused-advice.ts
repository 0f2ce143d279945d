/**
 * Advice on what the session carries and never used: the tools the model is sent in every
 * request and never called — built-in and MCP, for the agent of the call the total describes —
 * as one suggestion whose figure is the sum of their parts in the runtime item; and a skill
 * loaded but never named since. The change is the runtime's own configuration fragment
 * (`RuntimeAdvice`: OpenCode's opencode.json), which says what it really turns off. Pure.
 */
import { fmt } from '../../shared/format';
import { itemId, sum } from './figures';
import type { Counted, Item, ReportInput, RuntimePart, SuggestionDraft } from './types';

/** The report's own MCP tool: never suggested off (it is how the agent reads this report). */
export const REPORT_TOOL = 'investibook_context_report';
/** Fewer measured calls than this make "never called" weak evidence, and the suggestion says so. */
export const FEW_CALLS = 5;
const isReportTool = (server: string, tool: string) => tool === REPORT_TOOL || `${server}_${tool}` === REPORT_TOOL;

/**
 * The tools never called, turned off for the agent: Σ of their parts (a tool's part; of an MCP
 * server, the whole part when the change turns the server off, else its unused tools' share).
 */
export function unusedTools(input: ReportInput): SuggestionDraft[] {
  const split = input.runtimeSplit;
  const advice = input.runtime.advice;
  if (!split || !('parts' in split) || !advice) return [];
  const toolParts = split.parts.filter((p) => p.kind === 'tool' && p.name !== undefined);
  const servers = split.parts.filter((p) => p.kind === 'mcp_server' && p.name !== undefined && p.tools);
  const unusedBuiltIn = toolParts.filter((p) => p.called === false && p.name !== REPORT_TOOL).map((p) => p.name!);
  const mcp = servers.flatMap((s) => {
    const unused = s.tools!.filter((t) => !t.called && !isReportTool(s.name!, t.name)).map((t) => t.name);
    return unused.length ? [{ server: s.name!, tools: unused, whole: unused.length === s.tools!.length }] : [];
  });
  if (unusedBuiltIn.length === 0 && mcp.length === 0) return [];
  const agent = split.agent ?? input.agent ?? null;
  const change = advice.unusedTools({
    agent,
    sent: toolParts.map((p) => p.name!),
    tools: unusedBuiltIn,
    mcp,
    config: input.workspace.agentConfig,
  });
  if (change.tools.length === 0) return [];
  const off = new Set(change.tools);
  const tokens =
    sum(toolParts.filter((p) => off.has(p.name!)).map((p) => p.tokens)) +
    sum(servers.map((s) => serverShare(s, off, change.servers.includes(s.name!))));
  const n = change.tools.length;
  const who = agent ? `the ${agent} agent` : 'the agent';
  const kept = change.kept.length ? ` Left on: ${change.kept.map((k) => `${k.tool} (${k.why})`).join('; ')}.` : '';
  const calls = input.calibration.calls;
  const weak =
    calls < FEW_CALLS
      ? ` Weak evidence: the session made only ${fmt(calls)} model call${calls === 1 ? '' : 's'}, and a tool not called in so few says little of what the next task needs.`
      : '';
  const used = input.usage?.contextUsed ?? null;
  const whole = change.servers.length
    ? ` The MCP server${change.servers.length === 1 ? '' : 's'} ${change.servers.join(', ')} ${change.servers.length === 1 ? 'is' : 'are'} turned off whole (for every agent), instructions included.`
    : '';
  return [
    {
      kind: 'unused_tools',
      severity: 'info',
      title: `${n} tool${n === 1 ? '' : 's'} ${who} never called ${n === 1 ? 'is' : 'are'} sent in every call: ${change.tools.join(', ')}`,
      detail: `Their schemas are ${fmt(tokens)} tokens of ${input.runtime.name}'s own prompt (its parts, as recorded where the agent ran), in every request. Turning them off for ${who} removes them from every request from the agent's next start: put the change in ${advice.configFile}. A changed tool list breaks the provider's prompt cache once.${whole}${kept}${weak}`,
      // The runtime's item has no text to show: its parts are the detail.
      itemIds: [],
      figures: { tools: n, tokens, calls },
      tokens,
      horizon: 'configuration',
      ...(used !== null
        ? {
            once: {
              uncached: Math.max(0, used - tokens),
              basis: 'a changed tool list changes the start of every request: the whole prompt is read uncached once',
            },
          }
        : {}),
      agent,
      tools: change.tools,
      change: { kind: 'opencode_config', text: change.text, file: advice.configPath },
    },
  ];
}

/** An MCP server's tokens that the change frees: all of it turned off whole, else its tools turned off. */
function serverShare(server: RuntimePart, off: ReadonlySet<string>, whole: boolean): number {
  if (whole) return server.tokens;
  const tools = server.tools ?? [];
  const freed = sum(tools.filter((t) => off.has(t.name)).map((t) => t.estimate));
  return freed === 0 ? 0 : Math.round((server.tokens * freed) / Math.max(1, server.estimate));
}

/** A skill loaded and then never named again by anyone: its body may be dead weight. */
export function unusedSkills(input: ReportInput, counted: readonly Counted[]): SuggestionDraft[] {
  const scaledOf = new Map(counted.map((c) => [c.item.key, c.scaled]));
  const order = input.mentions.map((m) => m.messageId);
  const lastMention = new Map<string, number>();
  input.mentions.forEach(({ names }, index) => names.forEach((name) => lastMention.set(name, index)));
  const latestLoad = new Map<string, { load: Item; index: number; count: number }>();
  for (const item of input.calibration.view) {
    if (!item.skill) continue;
    const messageId = /^messages_v2\/(.+?)\/parts\//.exec(item.sourceRef)?.[1];
    const index = messageId === undefined ? -1 : order.indexOf(messageId);
    latestLoad.set(item.skill, { load: item, index, count: (latestLoad.get(item.skill)?.count ?? 0) + 1 });
  }
  const out: SuggestionDraft[] = [];
  const agent = input.agent ?? null;
  for (const [name, { load, index, count }] of latestLoad) {
    const laterMessages = order.length - index - 1;
    if (index < 0 || laterMessages === 0 || (lastMention.get(name) ?? -1) > index) continue;
    const scaled = scaledOf.get(load.key) ?? null;
    const tokens = scaled ?? load.tokens;
    const figure = scaled === null ? `≈${fmt(load.tokens)} estimated tokens` : `${fmt(scaled)} tokens`;
    const change = input.runtime.advice?.unusedSkill({ agent, skill: name });
    const who = agent ? `the ${agent} agent` : 'the agent';
    out.push({
      kind: 'unused_skill',
      severity: 'info',
      title: `Skill ${name} was loaded but not referenced since`,
      detail: `${count > 1 ? `Its latest of ${count} loads` : 'Loading it'} put ${figure} in context, in every call since; no later message names it in ${laterMessages} message${laterMessages === 1 ? '' : 's'}.${change ? ` If investigations here do not need it, turning it off for ${who} drops it from its skill catalog and keeps it from being loaded again; what it put in this session stays until a compaction, a revert or a new session, so it frees nothing now.` : ''}`,
      itemIds: [itemId(load.sourceRef)],
      figures: {
        estimatedTokens: load.tokens,
        loads: count,
        laterMessages,
        ...(scaled === null ? {} : { scaledTokens: scaled }),
      },
      tokens: 0,
      avoids: { tokens, per: 'load' },
      horizon: 'configuration',
      ...(change && input.usage
        ? {
            once: {
              uncached: input.usage.contextUsed,
              basis: 'the skill catalog is part of the skill tool: the whole prompt is read uncached once',
            },
          }
        : {}),
      ...(change
        ? {
            change: {
              kind: 'opencode_config' as const,
              text: change.text,
              file: change.file ?? input.runtime.advice!.configPath,
            },
          }
        : {}),
    });
  }
  return out;
}
