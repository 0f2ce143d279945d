/**
 * The prompt Claude Code would send next if a history change were made now, through its own
 * request view (calls.ts: the main chain since the latest compact boundary). What it keeps is
 * what the next call carries; the rest is what the change frees. Measured on the pinned Claude
 * Code (2.1.318) through the scripted model (docs/claude-code.md, "Advice"):
 *
 * - `/clear` and a hand-off (a new session): its first prompt is Claude Code's own system prompt
 *   and tools (the runtime item, never in the rows), the attachments it writes with every
 *   session's first prompt (its instructions — CLAUDE.md —, the skill, agent and deferred-tool
 *   listings, the environment, …: one of each kind, here the first in view) and the hand-off.
 * - `/compact`: the request restarts at its compact boundary with the summary, the command's own
 *   lines, the files and listings it attaches again and the last reply it keeps. With an earlier
 *   compaction in the session, all that is estimated by what followed it there (the boundary's
 *   `postTokens`, Claude Code's own count); without one nothing measured bounds the summary (its
 *   prompt sets no length; its call's output limit is the model's), so no figure is given.
 * - `/rewind` to before a prompt (made by hand): the history before that prompt stays. Pure.
 */
import type { NextPromptFacts } from '../types';
import type { EntryHeader } from './entry';
import { liveWindow } from './calls';

/** The lines `/compact` leaves in the history (as Claude Code writes them), which the next call carries. */
const COMPACT_LINES = [
  "<local-command-caveat>The command below was run directly in Claude Code, not sent to you as a request, and its output goes straight to the user. It's recorded here as context for later messages.</local-command-caveat>",
  '<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args></command-args>',
  '<local-command-stdout>Compacted PostCompact [callback] completed successfully</local-command-stdout>',
].join('\n');

/** The attachments Claude Code writes with a session's first prompt (the rest follow tool calls or compactions). */
const SESSION_START = new Set([
  'instructions',
  'skill_listing',
  'agent_listing_delta',
  'deferred_tools_delta',
  'environment',
  'model',
  'session_context',
  'date',
]);

export function claudeCodeNextPrompt(entries: readonly EntryHeader[]): NextPromptFacts {
  const view = liveWindow(entries).map((i) => entries[i]!);
  const startAttachments = (): string[] => {
    const seen = new Set<string>();
    return view.flatMap((e) => {
      if (!e.attachment || !SESSION_START.has(e.attachment) || seen.has(e.attachment)) return [];
      seen.add(e.attachment);
      return [e.id];
    });
  };
  // The boundaries' own counts of what followed them (the summary, the attachments, the kept reply).
  const summaries = entries.flatMap((e) => (e.compactBoundary && e.postTokens ? [e.postTokens] : []));
  return {
    messages: view.map((e) => ({ id: e.id, role: e.type === 'assistant' ? 'assistant' : 'user' })),
    // All that follows a compaction is in the estimate (the boundaries' postTokens).
    afterCompaction: () => ({ kept: [] }),
    // Its /rewind (made by hand in its interface) goes back to before a prompt: the history before it stays.
    afterRevert(messageId) {
      const at = view.findIndex((e) => e.id === messageId);
      return at < 0 ? null : { kept: view.slice(0, at).map((e) => e.id) };
    },
    afterNewSession: () => ({ kept: startAttachments() }),
    summaries,
    compactionRequestText: COMPACT_LINES,
    preserveRecent: () => 0,
    // Without an earlier compaction, nothing measured bounds Claude Code's summary: no figure.
    summaryFallback: null,
  };
}
