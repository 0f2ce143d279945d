/**
 * The chat's transcript, whatever runtime wrote it (issue 40): what the chat shows of a stored
 * message — its author, its text, visible reasoning, tool calls (name, title, a one-line summary
 * of the input, status, input and output previews), attachments, the workspace context the server
 * added, a compaction, how a reply ended. Each runtime maps its own rows to it on the server
 * (core/<runtime>/chat-transcript.ts, chosen by the rows' runtime through report/runtimes.ts);
 * the server validates every message with this schema before it sends it, and the browser reads
 * nothing else of a stored message. The live half is the agent's events (shared/agent.ts), whose
 * tool call is made of the same fields (`toolCallFields`).
 *
 * Browser-safe: no Node or DOM APIs.
 */
import * as z from 'zod/mini';

/** What the server sends of a tool's input, output or error at most (the rest is cut, saying how much). */
export const TRANSCRIPT_TEXT_CHARS = 8000;

/** A text cut to TRANSCRIPT_TEXT_CHARS, saying how much was left out. */
export function previewText(text: string): string {
  return text.length > TRANSCRIPT_TEXT_CHARS
    ? `${text.slice(0, TRANSCRIPT_TEXT_CHARS)}\n… ${(text.length - TRANSCRIPT_TEXT_CHARS).toLocaleString('en-US')} more characters`
    : text;
}

/** A saved call's state: still asked, running, answered, failed (the turn ended with it unfinished: pending or running). */
export const SAVED_TOOL_STATUSES = ['pending', 'running', 'completed', 'error'] as const;
export type SavedToolStatus = (typeof SAVED_TOOL_STATUSES)[number];

/** The fields a tool call has saved and live alike: the runtime's own tool name, its title, what it answered. */
export const toolCallFields = {
  /** The runtime's own name for the tool, the one the model is sent: "bash", "read" (OpenCode), "Bash", "Read" (Claude Code). */
  tool: z.optional(z.string()),
  /** The call's input as the agent gave it (absent when too large to stream). */
  input: z.optional(z.record(z.string(), z.unknown())),
  /** What it answered, cut to a few thousand characters; why it failed. */
  output: z.optional(z.string()),
  error: z.optional(z.string()),
};

export const transcriptToolSchema = z.object({
  type: z.literal('tool'),
  callId: z.string(),
  tool: z.string(),
  /** The runtime's title of the call, when it gave one. */
  title: z.optional(z.string()),
  /** One line of what it did — the file read, the command run, the pattern searched — as the runtime's mapper reads its input. */
  summary: z.string(),
  status: z.enum(SAVED_TOOL_STATUSES),
  /** The failure was a refusal: by the server's policy, or by the workspace's own rules. */
  refused: z.optional(z.enum(['policy', 'rules'])),
  /** The input as text (a shell command as itself, else JSON), cut: null when it had none. */
  input: z.nullable(z.string()),
  output: z.optional(z.string()),
  error: z.optional(z.string()),
  /** The runtime pruned the output: the model now sees a placeholder instead. */
  pruned: z.optional(z.boolean()),
});
export type TranscriptTool = z.infer<typeof transcriptToolSchema>;

export const transcriptPartSchema = z.discriminatedUnion('type', [
  /** Words of the user, or of the agent (shown as Markdown). */
  z.object({ type: z.literal('text'), text: z.string() }),
  /** The agent's visible reasoning (shown folded). */
  z.object({ type: z.literal('reasoning'), text: z.string() }),
  transcriptToolSchema,
  /** An attachment: its name and media type. */
  z.object({ type: z.literal('file'), name: z.string(), mime: z.string() }),
  /** The workspace context the server added for the model (contract §1): the labels of its sections. */
  z.object({ type: z.literal('context'), sections: z.array(z.string()) }),
]);
export type TranscriptPart = z.infer<typeof transcriptPartSchema>;

/**
 * `message`: a message of its role; `summary`: the summary a compaction wrote (assistant);
 * `compaction`: where the runtime compacted (`auto`: by itself, else on request); `hidden`: the
 * runtime's own bookkeeping (a tool result delivered as a message, an attachment, a note for
 * the model), which the chat shows elsewhere or not at all.
 */
export const TRANSCRIPT_KINDS = ['message', 'summary', 'compaction', 'hidden'] as const;

export const transcriptMessageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  kind: z.enum(TRANSCRIPT_KINDS),
  /** A compaction: whether the runtime made it by itself. */
  auto: z.optional(z.boolean()),
  parts: z.array(transcriptPartSchema),
  /** How a reply ended when not by itself: stopped by the user, or failed (and why, in words). */
  outcome: z.optional(
    z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('stopped') }),
      z.object({ kind: z.literal('failed'), message: z.string() }),
    ]),
  ),
});
export type TranscriptMessage = z.infer<typeof transcriptMessageSchema>;

/** A stored row as a runtime's mapper gets it: parsed, with what could not be shown already left out. */
export interface TranscriptRow {
  id: string;
  info: Record<string, unknown>;
  parts: Record<string, unknown>[];
}
