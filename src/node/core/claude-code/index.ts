/**
 * Claude Code as the report's agent runtime: rows whose `messages_v2.runtime` is `claude-code`
 * hold its transcript's entries (entry.ts; docs/claude-code.md). Its request view is the main
 * chain of entries since the latest compact boundary (calls.ts), each entry attributed by
 * analyze.ts; its calls are its API responses with their usage; what it loads every call from
 * the workspace (CLAUDE.md, the skill listing) is in the transcript itself, as attachments, so
 * nothing is added from the folder. See core/runtime.ts for the seam.
 */
import type { AgentRuntime } from '../runtime';
import type { MessageMeta } from '../types';
import { CLAUDE_CODE_ADVICE } from './advice';
import { analyzeEntry } from './analyze';
import { EntryWindow, liveWindow, modelCalls, promptOf, responseStarts, tokensOf } from './calls';
import { entryHeader, type EntryHeader } from './entry';
import { sessionFacts, type ClaudeCodeFacts } from './facts';
import { claudeCodeRuntimeParts } from './runtime-parts';
import { claudeCodeNextPrompt } from './next-prompt';
import { CLAUDE_CODE_LAYOUT } from './workspace';
import { CLAUDE_CODE_WORDS } from './words';

/** What messages_v2.runtime says of Claude Code's rows. */
export const CLAUDE_CODE_ROWS = 'claude-code';

const RUNTIME_TEXT =
  "Claude Code's own system prompt and tool schemas (the tools whose schemas are deferred are listed in a reminder, counted with the conversation's reminders). The server never sees this text in the rows: its size is what the provider counted for the first model call beyond every entry of the transcript.";

const entries = (headers: readonly { data: EntryHeader }[]) => headers.map((h) => h.data);

export const claudeCodeRuntime: AgentRuntime<EntryHeader> = {
  id: 'claude-code@claude-agent-acp-0.101.0',
  rows: CLAUDE_CODE_ROWS,
  name: 'Claude Code',
  runtimeItem: { label: 'Claude Code system prompt and tool schemas', text: RUNTIME_TEXT },
  layout: CLAUDE_CODE_LAYOUT,
  words: CLAUDE_CODE_WORDS,

  header: entryHeader,
  facts: sessionFacts,
  liveWindow: (headers) => liveWindow(entries(headers)),

  session(headers) {
    const all = entries(headers);
    const messages: MessageMeta[] = all.map((e) => ({ id: e.id, userTurn: e.userTurn, lastActivity: e.time }));
    return { messages, calls: modelCalls(all), window: () => new EntryWindow(all) };
  },

  latestCount(headers) {
    const all = entries(headers);
    for (const index of responseStarts(all).reverse()) {
      const { usage, id } = all[index]!;
      if (!usage || promptOf(usage) === 0) continue;
      return { messageId: id, tokens: tokensOf(usage), convention: 'input-excludes-cache', prompt: promptOf(usage) };
    }
    return null;
  },

  nextPrompt: (headers) => claudeCodeNextPrompt(entries(headers)),
  analyze: (row, context) => analyzeEntry(row, { ...context, facts: context.facts as ClaudeCodeFacts }),
  // CLAUDE.md and the skill listing reach the model as attachments the transcript records.
  alwaysLoaded: () => [],
  window(usage) {
    const contextSize = usage?.contextSize ?? null;
    return contextSize
      ? { contextSize, reservedOutput: 0, usable: contextSize, autoCompactAt: null, basis: 'unknown' }
      : null;
  },
  runtimeParts: claudeCodeRuntimeParts,
  advice: CLAUDE_CODE_ADVICE,
};
