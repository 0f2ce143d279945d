/**
 * The wire types: every shape that crosses HTTP (and the CLI's --json) is declared here once,
 * as a zod schema with its inferred type. Browser and Node code both import this module; it
 * must stay free of Node and DOM APIs.
 */
import { z } from 'zod';

/** The nine semantic sources of contract section 3, in report order. */
export const SOURCE_IDS = [
  'evidence',
  'skills_knowledge',
  'cluster_alert_metadata',
  'agent_instructions',
  'conversation',
  'assistant_reasoning',
  'attachment_metadata',
  'issue_source_files',
  'unknown_tool_payload',
] as const;

export type SourceId = (typeof SOURCE_IDS)[number];

export const SOURCE_LABELS: Record<SourceId, string> = {
  evidence: 'Evidence',
  skills_knowledge: 'Skills & Knowledge',
  cluster_alert_metadata: 'Cluster & Alert Metadata',
  agent_instructions: 'Agent/runtime instructions',
  conversation: 'Conversation',
  assistant_reasoning: 'Assistant reasoning (visible)',
  attachment_metadata: 'Attachment metadata',
  issue_source_files: 'Issue/source files',
  unknown_tool_payload: 'Unknown tool payload',
};

export const sourceIdSchema = z.enum(SOURCE_IDS);

export function isSourceId(value: unknown): value is SourceId {
  return typeof value === 'string' && (SOURCE_IDS as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------
// Errors

export const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

// ---------------------------------------------------------------------------------------------
// Workspace, messages, usage

export const sessionSummarySchema = z.object({
  id: z.string(),
  messageCount: z.number().int(),
  lastActiveAt: z.number(),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The most recently active session: the default for messages, usage and the report. */
  defaultSessionId: z.string().nullable(),
  sessions: z.array(sessionSummarySchema),
});
export type Workspace = z.infer<typeof workspaceSchema>;

/** A persisted OpenCode message; info and parts are passed through as stored (parsed JSON). */
export const chatMessageSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  timeCreated: z.number(),
  timeUpdated: z.number(),
  info: z.record(z.string(), z.unknown()),
  parts: z.array(z.record(z.string(), z.unknown())),
  /** Set when the stored row could not be read; the message is shown as unreadable. */
  problem: z.string().optional(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

export const messagesResponseSchema = z.object({
  sessionId: z.string().nullable(),
  messages: z.array(chatMessageSchema),
});
export type MessagesResponse = z.infer<typeof messagesResponseSchema>;

export const MAX_MESSAGE_TEXT = 100_000;

export const appendMessageRequestSchema = z.object({
  text: z.string().trim().min(1, 'text must not be empty').max(MAX_MESSAGE_TEXT),
  sessionId: z.string().min(1).max(200).optional(),
});
export type AppendMessageRequest = z.infer<typeof appendMessageRequestSchema>;

export const appendMessageResponseSchema = z.object({ message: chatMessageSchema });

export const usageSchema = z.object({
  sessionId: z.string().nullable(),
  /** null: no ACP usage_update recorded for the session yet. */
  latest: z
    .object({
      contextUsed: z.number(),
      contextSize: z.number().nullable(),
      percent: z.number().nullable(),
      recordedAt: z.string(),
    })
    .nullable(),
});
export type Usage = z.infer<typeof usageSchema>;

// ---------------------------------------------------------------------------------------------
// The context report (contract section 4, schemaVersion 1). Fields may be added, never removed.

export const ESTIMATORS = ['bpe', 'chars4'] as const;
export type EstimatorId = (typeof ESTIMATORS)[number];

export const duplicateReadSchema = z.object({
  /** How many times the same file (and range) is read in live context. */
  reads: z.number().int(),
  /** 1 for the first read, 2 for the second, … */
  ordinal: z.number().int(),
});

export const reportItemSchema = z.object({
  id: z.string(),
  label: z.string(),
  sourceRef: z.string(),
  estimatedTokens: z.number().int(),
  scaledTokens: z.number().int().nullable(),
  percentOfUsed: z.number().nullable(),
  bytes: z.number().int(),
  /** Workspace-relative path of the file this item carries, when it carries one. */
  path: z.string().optional(),
  duplicate: duplicateReadSchema.optional(),
});
export type ReportItem = z.infer<typeof reportItemSchema>;

export const reportSourceSchema = z.object({
  id: sourceIdSchema,
  label: z.string(),
  estimatedTokens: z.number().int(),
  scaledTokens: z.number().int().nullable(),
  percentOfUsed: z.number().nullable(),
  bytes: z.number().int(),
  itemCount: z.number().int(),
  items: z.array(reportItemSchema),
  /** What `items` leaves out when it is cut short (zero when it lists every item). */
  more: z.object({
    itemCount: z.number().int(),
    estimatedTokens: z.number().int(),
    scaledTokens: z.number().int().nullable(),
    bytes: z.number().int(),
  }),
});
export type ReportSource = z.infer<typeof reportSourceSchema>;

export const excludedSchema = z.object({
  label: z.string(),
  reason: z.string(),
  bytes: z.number().int(),
  count: z.number().int().optional(),
});
export type Excluded = z.infer<typeof excludedSchema>;

export const contextReportSchema = z.object({
  schemaVersion: z.literal(1),
  workspaceId: z.string(),
  sessionId: z.string().nullable(),
  generatedAt: z.string(),
  actual: z
    .object({
      contextUsed: z.number().int(),
      contextSize: z.number().int().nullable(),
      percent: z.number().nullable(),
      recordedAt: z.string(),
      source: z.literal('acp'),
    })
    .nullable(),
  estimate: z.object({
    method: z.string(),
    estimator: z.enum(ESTIMATORS),
    totalTokens: z.number().int(),
    totalBytes: z.number().int(),
    itemCount: z.number().int(),
    scale: z.number().nullable(),
  }),
  /** Provider-reported tokens of the session's latest assistant message; null when none reported. */
  providerTokens: z
    .object({
      messageId: z.string(),
      input: z.number().nullable(),
      output: z.number().nullable(),
      cacheRead: z.number().nullable(),
      cacheWrite: z.number().nullable(),
      /** cacheRead / (input + cacheRead) × 100; null unless both were reported. */
      cacheReadSharePercent: z.number().nullable(),
    })
    .nullable(),
  sources: z.array(reportSourceSchema).length(SOURCE_IDS.length),
  duplicates: z.object({
    files: z.number().int(),
    extraReads: z.number().int(),
    repeatedEstimatedTokens: z.number().int(),
    repeatedScaledTokens: z.number().int().nullable(),
  }),
  excluded: z.array(excludedSchema),
  notes: z.array(z.string()),
  warnings: z.array(z.string()),
});
export type ContextReport = z.infer<typeof contextReportSchema>;
