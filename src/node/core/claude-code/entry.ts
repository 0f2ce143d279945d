/**
 * Claude Code's transcript entries as its rows hold them (docs/claude-code.md): one transcript
 * line a row, `info` the entry without `message.content`, `parts` that content's blocks. This
 * module reads a row back, tolerantly (a field of the wrong type is absent), and makes its header:
 * what the window, the calls and the attribution of tool results need. Pure.
 */
import type { Header, ParsedRow } from '../runtime';

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/** An assistant message's usage, as Anthropic's Messages API reports it. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number | null;
  cacheWrite: number | null;
}

/** A tool call of an assistant entry: what its result is attributed by. */
export interface ToolUse {
  name: string;
  input: Json;
}

/** What the session-wide steps need of one entry. */
export interface EntryHeader {
  id: string;
  /** user, assistant, attachment, system… */
  type: string;
  /** A subagent's entry (Claude Code's sidechain): never in the main agent's requests. */
  sidechain: boolean;
  /** The API response an assistant entry is a block of (one response is written as several entries). */
  responseId?: string;
  model?: string;
  usage?: Usage;
  /** Milliseconds since the epoch. */
  time: number;
  cwd?: string;
  /** The entry's own uuid (what a compact boundary names the entries it keeps by). */
  uuid?: string;
  /** A `system` entry that marks a compaction: the request restarts from here. */
  compactBoundary: boolean;
  /** A compact boundary's entries kept from before it (`compactMetadata.preservedMessages.uuids`). */
  preserved?: string[];
  /** A compact boundary's `compactMetadata.postTokens`: Claude Code's count of the history it left after it. */
  postTokens?: number;
  /** An attachment entry's kind (`attachment.type`: instructions, skill_listing, file, …). */
  attachment?: string;
  /** The assistant entry's tool calls, by tool_use id. */
  toolUses?: Record<string, ToolUse>;
  /** A human prompt (not a tool result, not a meta entry): a new user turn. */
  userTurn: boolean;
}

export function usageOf(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  const input = num(value.input_tokens);
  const output = num(value.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  return {
    input,
    output,
    cacheRead: num(value.cache_read_input_tokens) ?? null,
    cacheWrite: num(value.cache_creation_input_tokens) ?? null,
  };
}

/** The blocks of a row: its parts when they are a list of objects (anything else is skipped). */
export function blocksOf(parts: unknown): Json[] {
  return Array.isArray(parts) ? parts.filter(isObject) : [];
}

export function entryHeader(row: ParsedRow, size: number, warn: (message: string) => void): Header<EntryHeader> {
  const info = isObject(row.info) ? row.info : {};
  if (!isObject(row.info)) warn(`messages_v2/${row.id}: info is not a JSON object; read as empty`);
  const message = isObject(info.message) ? info.message : {};
  const blocks = blocksOf(row.parts);
  const type = str(info.type) ?? 'unknown';
  const toolUses: Record<string, ToolUse> = {};
  for (const block of blocks) {
    if (block.type !== 'tool_use' || !str(block.id)) continue;
    toolUses[block.id as string] = { name: str(block.name) ?? '', input: isObject(block.input) ? block.input : {} };
  }
  const usage = type === 'assistant' ? usageOf(message.usage) : undefined;
  const time = Date.parse(str(info.timestamp) ?? '');
  const sessions = subagentSessions(info);
  const compactBoundary = type === 'system' && info.subtype === 'compact_boundary';
  const kept = isObject(info.compactMetadata) ? info.compactMetadata.preservedMessages : undefined;
  const preserved = compactBoundary && isObject(kept) && Array.isArray(kept.uuids) ? kept.uuids.filter(str) : [];
  const postTokens =
    compactBoundary && isObject(info.compactMetadata) ? num(info.compactMetadata.postTokens) : undefined;
  const attachment = type === 'attachment' && isObject(info.attachment) ? str(info.attachment.type) : undefined;
  return {
    id: row.id,
    size,
    ...(sessions.length > 0 ? { sessions } : {}),
    data: {
      id: row.id,
      type,
      sidechain: info.isSidechain === true,
      ...(str(message.id) ? { responseId: str(message.id) } : {}),
      ...(str(message.model) ? { model: str(message.model) } : {}),
      ...(usage ? { usage } : {}),
      time: Number.isFinite(time) ? time : 0,
      ...(str(info.cwd) ? { cwd: str(info.cwd) } : {}),
      ...(str(info.uuid) ? { uuid: str(info.uuid) } : {}),
      compactBoundary,
      ...(preserved.length > 0 ? { preserved: preserved as string[] } : {}),
      ...(postTokens !== undefined ? { postTokens } : {}),
      ...(attachment ? { attachment } : {}),
      ...(Object.keys(toolUses).length > 0 ? { toolUses } : {}),
      userTurn:
        type === 'user' &&
        info.isMeta !== true &&
        info.isCompactSummary !== true &&
        !blocks.some((b) => b.type === 'tool_result'),
    },
  };
}

/**
 * The subagent sessions a tool result names: Claude Code's Task/Agent result records the agent's
 * id (`toolUseResult.agentId`), whose transcript import stores as the session `SESSION/agent-ID`.
 */
function subagentSessions(info: Json): string[] {
  const result = isObject(info.toolUseResult) ? info.toolUseResult : undefined;
  const agent = str(result?.agentId);
  const session = str(info.sessionId);
  return agent && session ? [subagentSessionId(session, agent)] : [];
}

/** The session id under which a subagent's transcript is stored. */
export const subagentSessionId = (session: string, agentId: string): string => `${session}/agent-${agentId}`;
