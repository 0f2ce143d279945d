/**
 * Suggestions from the report's own figures, never guesses: the same content read again, one
 * item dominating the used context, pruned outputs, a nearly full window, skills loaded but
 * never named since, and MCP tools never called whose schemas every request carries. Pure.
 */
import { fmt, fmtBytes } from '../../shared/format';
import type { Suggestion } from '../../shared/wire';
import type { Counted, Item, ReportInput } from './types';
import type { DuplicateMark } from './duplicates';
import { itemId, percentOf, percentOfWindow, sum } from './figures';

/** One item above this share of the used context is worth a look. */
export const LARGE_ITEM_PERCENT = 20;
/** Above this share of the window, compaction is near. */
export const NEAR_COMPACTION_PERCENT = 80;

export interface SuggestFacts {
  input: ReportInput;
  counted: readonly Counted[];
  duplicates: Map<Item, DuplicateMark>;
  used: number | null;
}

export function suggest({ input, counted, duplicates, used }: SuggestFacts): Suggestion[] {
  const figures = figuresOf(counted);
  return [
    ...duplicateReads(duplicates, used, figures),
    ...largeItems(counted, used, figures),
    ...runtimeLimits(input),
    ...unusedSkills(input, figures),
    ...unusedMcpTools(input),
  ];
}

/** Each item's figure in the report, and how a suggestion tells it. */
interface Figures {
  cost(item: Item): number | null;
  /** One figure per item: the report's (measured or scaled); the estimate only while there is no total. */
  tokensOf(item: Item): string;
}

function figuresOf(counted: readonly Counted[]): Figures {
  const scaledOf = new Map(counted.map((c) => [c.item.key, c.scaled]));
  const cost = (item: Item) => scaledOf.get(item.key) ?? null;
  return {
    cost,
    tokensOf: (item) => {
      const scaled = cost(item);
      return scaled === null ? `≈${fmt(item.tokens)} estimated tokens` : `${fmt(scaled)} tokens`;
    },
  };
}

/** The same content read again: each extra read repeats tokens. */
function duplicateReads(duplicates: Map<Item, DuplicateMark>, used: number | null, { cost }: Figures): Suggestion[] {
  const groups = new Map<string, Item[]>();
  for (const [item] of duplicates) {
    const key = `${item.readKey}\u0000${item.contentKey}`;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()].map((group) => {
    const extra = group.slice(1);
    const repeated = sum(extra.map((i) => i.tokens));
    const repeatedScaled = used === null ? null : sum(extra.map((i) => cost(i) ?? 0));
    const what = group[0]!.path ?? group[0]!.label;
    return {
      kind: 'duplicate_read',
      severity: 'warning',
      title: `${what} is in context ${group.length} times`,
      detail: `The same content was read ${group.length} times; the ${extra.length === 1 ? 'extra read repeats' : `${extra.length} extra reads repeat`} ${repeatedScaled === null ? `≈${fmt(repeated)} estimated tokens` : `${fmt(repeatedScaled)} tokens`}. Ask the agent to refer to the earlier read instead of reading again.`,
      itemIds: group.map((i) => itemId(i.sourceRef)),
      figures: {
        reads: group.length,
        repeatedEstimatedTokens: repeated,
        ...(repeatedScaled === null ? {} : { repeatedScaledTokens: repeatedScaled }),
      },
    };
  });
}

/** One item above LARGE_ITEM_PERCENT of the used context. */
function largeItems(counted: readonly Counted[], used: number | null, { tokensOf }: Figures): Suggestion[] {
  if (used === null || used <= 0) return [];
  const out: Suggestion[] = [];
  for (const c of counted) {
    // The runtime's own prompt is not something a narrower read can shrink.
    if (c.scaled === null || c.item.sourceRef.startsWith('runtime:')) continue;
    const share = percentOf(c.scaled, used)!;
    if (share <= LARGE_ITEM_PERCENT) continue;
    out.push({
      kind: 'large_item',
      severity: 'warning',
      title: `${c.item.label} is ${share.toFixed(1)}% of the used context`,
      detail: `One item holds ${tokensOf(c.item)} of ${fmt(used)}. If only part of it is needed, a narrower read (a range, a grep) keeps the rest out.`,
      itemIds: [itemId(c.item.sourceRef)],
      figures: { percentOfUsed: share, scaledTokens: c.scaled, estimatedTokens: c.item.tokens },
    });
  }
  return out;
}

/** What the runtime does when the window fills: outputs it pruned, a compaction near. */
function runtimeLimits(input: ReportInput): Suggestion[] {
  const out: Suggestion[] = [];
  const pruned = input.omissions.prunedOutputs;
  if (pruned.count > 0) {
    out.push({
      kind: 'pruned_outputs',
      severity: 'info',
      title: `${pruned.count} tool output${pruned.count === 1 ? ' was' : 's were'} pruned`,
      detail: `${input.runtime.name} cleared ${fmtBytes(pruned.bytes)} of old tool output to make room; the model now sees a placeholder. If the agent needs that output again it has to re-run the tool.`,
      itemIds: [],
      figures: { count: pruned.count, bytes: pruned.bytes },
    });
  }
  const usage = input.usage;
  const windowPercent = usage ? percentOfWindow(usage) : null;
  if (usage && windowPercent !== null && windowPercent >= NEAR_COMPACTION_PERCENT) {
    out.push({
      kind: 'near_compaction',
      severity: 'warning',
      title: `The context window is ${windowPercent.toFixed(1)}% full: compaction is near`,
      detail: `${fmt(usage.contextUsed)} of ${fmt(usage.contextSize)} tokens are used. When the window fills, ${input.runtime.name} compacts the history into a summary and the details above leave the context.`,
      itemIds: [],
      figures: { percent: windowPercent, contextUsed: usage.contextUsed, contextSize: usage.contextSize ?? 0 },
    });
  }
  return out;
}

/** A skill loaded and then never named again by anyone: its body may be dead weight. */
function unusedSkills(input: ReportInput, { cost, tokensOf }: Figures): Suggestion[] {
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
  const out: Suggestion[] = [];
  for (const [name, { load, index, count }] of latestLoad) {
    const laterMessages = order.length - index - 1;
    if (index < 0 || laterMessages === 0 || (lastMention.get(name) ?? -1) > index) continue;
    const scaled = cost(load);
    out.push({
      kind: 'unused_skill',
      severity: 'info',
      title: `Skill ${name} was loaded but not referenced since`,
      detail: `${count > 1 ? `Its latest of ${count} loads` : 'Loading it'} put ${tokensOf(load)} in context; no later message names it in ${laterMessages} message${laterMessages === 1 ? '' : 's'}.`,
      itemIds: [itemId(load.sourceRef)],
      figures: {
        estimatedTokens: load.tokens,
        loads: count,
        laterMessages,
        ...(scaled === null ? {} : { scaledTokens: scaled }),
      },
    });
  }
  return out;
}

/**
 * MCP servers whose tools the session never called: their schemas (and instructions, when no
 * tool of the server was called) are in every request, by the runtime's recorded parts.
 */
function unusedMcpTools(input: ReportInput): Suggestion[] {
  const split = input.runtimeSplit;
  if (!split || !('parts' in split)) return [];
  const out: Suggestion[] = [];
  for (const server of split.parts) {
    if (server.kind !== 'mcp_server' || !server.tools) continue;
    const unused = server.tools.filter((t) => !t.called);
    if (unused.length === 0) continue;
    const whole = unused.length === server.tools.length;
    const estimate = sum(server.tools.map((t) => t.estimate));
    // The server's share of the measured item, in proportion to what its unused tools' schemas weigh.
    const tokens = whole
      ? server.tokens
      : Math.round((server.tokens * sum(unused.map((t) => t.estimate))) / Math.max(1, server.estimate || estimate));
    const n = unused.length;
    out.push({
      kind: 'unused_mcp_tools',
      severity: 'info',
      title: `${n} MCP tool${n === 1 ? '' : 's'} of ${server.name} you never called cost ${fmt(tokens)} tokens in every call`,
      detail: `${whole ? `No tool of the MCP server ${server.name} was called` : `${unused.map((t) => t.name).join(', ')} ${n === 1 ? 'was' : 'were'} never called`}, yet ${input.runtime.name} sends ${n === 1 ? 'its schema' : 'their schemas'} in every request. ${input.runtime.words.disableMcpServer} or deny ${n === 1 ? 'the tool' : 'those tools'} for this agent when the investigation does not need ${n === 1 ? 'it' : 'them'}.`,
      // The runtime's item has no text to show: its parts are the detail.
      itemIds: [],
      figures: { tools: n, of: server.tools.length, tokens },
    });
  }
  return out;
}
