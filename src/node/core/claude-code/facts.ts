/**
 * What every entry's analysis depends on, from all the session's headers: the model the next
 * request goes to, the folders Claude Code ran in, and every tool call by its id (a tool result,
 * in a user entry, is attributed by the call it answers, in an earlier assistant entry). Pure.
 */
import type { Header, SessionFacts } from '../runtime';
import type { EntryHeader, ToolUse } from './entry';
import { modelKey } from './calls';

export interface ClaudeCodeFacts extends SessionFacts {
  toolUses: Readonly<Record<string, ToolUse>>;
}

export function sessionFacts(headers: readonly Header<EntryHeader>[]): ClaudeCodeFacts {
  const entries = headers.map((h) => h.data);
  const model = entries.findLast((e) => e.type === 'assistant' && !e.sidechain && e.model)?.model;
  const toolUses: Record<string, ToolUse> = {};
  for (const entry of entries) Object.assign(toolUses, entry.toolUses);
  return {
    targetModel: modelKey(model),
    family: 'anthropic',
    sessionRoots: [...new Set(entries.flatMap((e) => (e.cwd ? [e.cwd] : [])))],
    toolUses,
  };
}
