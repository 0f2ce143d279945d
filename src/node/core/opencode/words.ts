/**
 * OpenCode's words in the report: what it keeps of a session but never sends (and why), and how
 * it compacts (window.ts has the numbers).
 */
import { fmt } from '../../../shared/format';
import type { ContextWindow } from '../../../shared/wire';
import type { RuntimeWords } from '../types';

export const OPENCODE_WORDS: RuntimeWords = {
  // In the order the report lists them.
  excluded: {
    history: {
      label: 'History before the latest compaction',
      reason:
        'Replaced by the compaction summary; the model no longer sees these messages (OpenCode keeps only the tail it names).',
    },
    prunedOutputs: {
      label: 'Pruned tool outputs',
      reason: 'Cleared by OpenCode; the model sees "[Old tool result content cleared]" instead.',
    },
    failedReplies: {
      label: 'Failed replies',
      reason:
        'Assistant messages that ended in an error (other than an interruption with output) are never sent again.',
    },
    attachmentBodies: {
      label: 'Attachment bodies (base64)',
      reason: 'The model gets the file itself; the server counts its description only.',
    },
    ignoredText: { label: 'Ignored text parts', reason: 'Marked ignored; never sent to the model.' },
    unsignedReasoning: {
      label: 'Reasoning without a signature',
      reason: "Anthropic's API drops reasoning it cannot verify, so it is not sent again.",
    },
    unencryptedReasoning: {
      label: 'Reasoning without its encrypted content',
      reason:
        "OpenAI's API gets earlier reasoning back only as its encrypted content; these parts have none, so OpenCode does not send them.",
    },
    bookkeeping: {
      label: "OpenCode's own records (steps, patches, snapshots, agent switches, retries)",
      reason: 'Kept by OpenCode for itself; never sent to the model.',
    },
    notReceived: {
      label: 'Reasoning the provider does not receive back',
      reason:
        "OpenCode sends earlier reasoning back, but the model's prompts did not grow by it (measured): this provider drops it, so it is in no context.",
    },
  },
  ownPrompt: "OpenCode's own system prompt, environment and tool schemas",
  pruned: 'pruned by OpenCode',
  windowNote(window: ContextWindow): string | null {
    if (window.autoCompactAt !== null)
      return `Auto-compaction at ${fmt(window.autoCompactAt)} tokens: OpenCode compacts when a call's tokens (prompt and reply) reach the window minus the output it keeps free (${fmt(window.reservedOutput)}; ${windowBasis(window)}).`;
    if (window.basis === 'unknown')
      return "Auto-compaction point not shown: in a window this small the model's output limit decides it, and only OpenCode's model list knows that limit.";
    return null;
  },
};

function windowBasis(window: ContextWindow): string {
  if (window.basis === 'workspace-config') return "the model's limits in opencode.json";
  if (window.basis === 'catalog') return `the model's limits in ${window.source ?? "OpenCode's model list"}`;
  return "OpenCode's 32,000 cap, assumed: the model's own output limit is not known here";
}
