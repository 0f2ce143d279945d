/**
 * Claude Code's words in the report: what it keeps in its transcript but never sends, and how it
 * compacts.
 */
import type { RuntimeWords } from '../types';

const none = (label: string) => ({ label, reason: 'Claude Code has no such thing; never counted.' });

export const CLAUDE_CODE_WORDS: RuntimeWords = {
  excluded: {
    history: {
      label: 'History before the latest compaction',
      reason: "Replaced by Claude Code's compaction summary; the model no longer sees these entries.",
    },
    prunedOutputs: none('Pruned tool outputs'),
    failedReplies: none('Failed replies'),
    attachmentBodies: none('Attachment bodies (base64)'),
    ignoredText: none('Ignored text parts'),
    unsignedReasoning: none('Reasoning without a signature'),
    unencryptedReasoning: none('Reasoning without its encrypted content'),
    bookkeeping: {
      label: 'Bookkeeping entries (snapshots, compact boundaries, system notes)',
      reason: 'Kept by Claude Code in its transcript for itself; never sent to the model.',
    },
    notReceived: {
      label: 'Reasoning the provider does not receive back',
      reason: "The model's prompts did not grow by the reasoning sent back (measured): it is in no context.",
    },
  },
  ownPrompt: "Claude Code's own system prompt and tool schemas",
  pruned: 'cleared by Claude Code',
  windowNote(): string | null {
    return 'Auto-compaction point not shown: Claude Code decides when it compacts, and records only that it did (a compact boundary).';
  },
};
