/**
 * A turn as the chat sees it: each ACP `session/update` of the agent made into the chat's events
 * (src/shared/agent.ts) — text, reasoning, each tool call by OpenCode's own tool name with the
 * workspace-relative paths it touched, usage. Pure but for the tool names it remembers per call.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { relative, sep } from 'node:path';
import type { AgentEvent } from '../../shared/agent';

/** A streamed call's input, output and error, bounded (the saved call keeps them whole). */
export const STREAMED_INPUT_CHARS = 16_000;
// Well above what the chat shows (8,000 characters), so that it can say how much more there is.
export const STREAMED_OUTPUT_CHARS = 64_000;

export type Usage = { used: number; size: number; cost: { amount: number; currency: string } | null };

/**
 * The events of one session's turn. OpenCode announces a call titled with its tool's name, then
 * retitles it as it runs: the first name is kept for every later update of the call.
 */
export function turnEvents(
  root: string,
  onUsage: (usage: Usage) => void,
  /** The runtime's own name of a call's tool, where its updates carry it (runtime-seam.ts `toolName`). */
  toolName?: (update: { _meta?: Record<string, unknown> | null }) => string | null,
) {
  const toolNames = new Map<string, string>();
  // A later update may come without a title (Claude Code's): the call keeps its latest one.
  const titles = new Map<string, string>();
  return (update: SessionUpdate): AgentEvent | null => {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        return update.content.type === 'text' ? { type: 'text', text: update.content.text } : null;
      case 'agent_thought_chunk':
        return update.content.type === 'text' ? { type: 'reasoning', text: update.content.text } : null;
      case 'tool_call':
      case 'tool_call_update': {
        const status = update.status ?? 'pending';
        const paths = (update.locations ?? []).flatMap((l) => (l.path ? [workspacePath(root, l.path)] : []));
        const named = toolName?.(update);
        if (named) toolNames.set(update.toolCallId, named);
        else if (update.sessionUpdate === 'tool_call' && update.title && /^[\w-]+$/.test(update.title))
          toolNames.set(update.toolCallId, update.title);
        const tool = toolNames.get(update.toolCallId);
        if (update.title) titles.set(update.toolCallId, update.title);
        return {
          type: 'tool',
          toolCallId: update.toolCallId,
          title: displayTitle(root, titles.get(update.toolCallId) ?? update.toolCallId),
          ...(update.kind ? { kind: update.kind } : {}),
          status,
          ...(paths.length ? { paths } : {}),
          ...(tool ? { tool } : {}),
          ...toolDetails(update.rawInput, update.rawOutput, status === 'failed'),
        };
      }
      case 'usage_update': {
        const cost = update.cost ? { amount: update.cost.amount, currency: update.cost.currency } : null;
        onUsage({ used: update.used, size: update.size, cost });
        return { type: 'usage', used: update.used, size: update.size, cost };
      }
      default:
        return null;
    }
  };
}

export function toolDetails(
  rawInput: unknown,
  rawOutput: unknown,
  failed: boolean,
): { input?: Record<string, unknown>; output?: string; error?: string } {
  const out: { input?: Record<string, unknown>; output?: string; error?: string } = {};
  if (typeof rawInput === 'object' && rawInput !== null && !Array.isArray(rawInput)) {
    const entries = Object.entries(rawInput as Record<string, unknown>);
    if (entries.length && JSON.stringify(rawInput).length <= STREAMED_INPUT_CHARS)
      out.input = rawInput as Record<string, unknown>;
  }
  // Claude Code's output is the result's text itself.
  if (typeof rawOutput === 'string' && rawOutput !== '') rawOutput = { output: rawOutput };
  if (typeof rawOutput === 'object' && rawOutput !== null) {
    const { output, error } = rawOutput as { output?: unknown; error?: unknown };
    const bounded = (text: string) =>
      text.length > STREAMED_OUTPUT_CHARS ? `${text.slice(0, STREAMED_OUTPUT_CHARS)}…` : text;
    if (typeof output === 'string' && output !== '') out.output = bounded(output);
    if (typeof error === 'string' && error !== '') out.error = bounded(error);
    else if (failed && typeof output === 'string' && output !== '') out.error = bounded(output);
  }
  return out;
}

/**
 * A tool's title as the chat shows it: OpenCode titles a read with its path relative to the
 * project root it found (`/` outside a git repository), so paths inside the workspace are made
 * workspace-relative.
 */
export function displayTitle(root: string, title: string): string {
  const absolute = title.startsWith('/') ? title : `/${title}`;
  return absolute === root || absolute.startsWith(`${root}/`) ? workspacePath(root, absolute) : title;
}

/** A path the agent reported, relative to the workspace when inside it. */
export function workspacePath(root: string, path: string): string {
  const inside = relative(root, path);
  return inside.startsWith('..') ? path : inside.split(sep).join('/');
}
