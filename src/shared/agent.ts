/**
 * The live agent on the wire (issue 15): its status, a prompt, and the events of a turn as the
 * server streams them (Server-Sent Events: `data:` is one JSON event per message). The server
 * speaks ACP with the agent process and persists what it produced in the runtime's own shapes;
 * the browser only ever sees these events and, after the turn, the persisted messages as the
 * runtime-neutral transcript (shared/transcript.ts): the live half and the saved half of it.
 *
 * Clients must ignore event types they do not know (a newer server may send more).
 */
import * as z from 'zod/mini';
import { toolCallFields } from './transcript';
import { sessionIdSchema } from './wire';

export const agentStatusSchema = z.object({
  /** Whether an agent is configured for this server (INVESTIBOOK_AGENT_COMMAND, npm run demo:agent). */
  configured: z.boolean(),
  /** How to attach one, in words, when none is configured. */
  hint: z.optional(z.string()),
  /**
   * Why no agent runs in this workspace though one is configured, in words, and how to attach
   * one: its folder came from an imported file (docs/security.md). A prompt answers 409
   * `agent_unavailable` with the same words.
   */
  unavailable: z.optional(z.string()),
  /** Sessions of this workspace with a turn in progress (the chat shows Stop for them). */
  running: z.array(z.object({ sessionId: z.string(), startedAt: z.string() })),
});
export type AgentStatus = z.infer<typeof agentStatusSchema>;

export const MAX_PROMPT_CHARS = 100_000;

export const agentPromptRequestSchema = z.object({
  text: z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_PROMPT_CHARS)),
  /** The chat session to continue; absent: a new session. */
  sessionId: z.optional(sessionIdSchema),
});
export type AgentPromptRequest = z.infer<typeof agentPromptRequestSchema>;

export const agentCancelRequestSchema = z.object({ sessionId: sessionIdSchema });

/**
 * A report's change made on the live agent (contract §7, `change.request`): POST …/agent/compact
 * `{sessionId}` summarizes that session now; POST …/agent/new-session `{sessionId, text}` starts
 * a new session with the hand-off `text` (the session it hands off from must be this workspace's).
 * Each answers like …/agent/prompt: the turn as Server-Sent Events.
 */
export const agentCompactRequestSchema = z.object({ sessionId: sessionIdSchema });
export const agentNewSessionRequestSchema = z.object({
  sessionId: sessionIdSchema,
  text: agentPromptRequestSchema.shape.text,
});
/**
 * POST …/agent/revert `{sessionId, messageId}` reverts that session to before the message (the
 * report's `change.messageId`): the history from it on is dropped, the files later turns changed
 * restored. It answers in the same style, with no reply: `turn`, `saved`, `done` (stop reason
 * `reverted`) or `error`.
 */
export const agentRevertRequestSchema = z.object({
  sessionId: sessionIdSchema,
  messageId: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,128}$/)),
});
export type AgentChangeRequest = { sessionId: string; text?: string; messageId?: string };

export const TOOL_STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;

export const agentEventSchema = z.discriminatedUnion('type', [
  /** First event of every turn: the session it runs in (a new one when the agent could not continue the asked one). */
  z.object({
    type: z.literal('turn'),
    turnId: z.string(),
    sessionId: z.string(),
    newSession: z.boolean(),
    /** Why a new session was started instead of the one asked for, in words. */
    note: z.optional(z.string()),
  }),
  /** A piece of the agent's reply (append to the text so far). */
  z.object({ type: z.literal('text'), text: z.string() }),
  /** A piece of visible reasoning. */
  z.object({ type: z.literal('reasoning'), text: z.string() }),
  /** A tool call, new or changed: show the latest state per toolCallId. */
  z.object({
    type: z.literal('tool'),
    toolCallId: z.string(),
    title: z.string(),
    kind: z.optional(z.string()),
    status: z.enum(TOOL_STATUSES),
    /** Workspace files the call touches, when the agent says. */
    paths: z.optional(z.array(z.string())),
    /** The runtime's tool name, input, output and error: the fields the saved call has (shared/transcript.ts). */
    ...toolCallFields,
  }),
  /** The agent asked permission for something; the server's policy answered. */
  z.object({ type: z.literal('permission'), title: z.string(), allowed: z.boolean() }),
  /** The agent's context total after a model call (ACP usage_update): also stored as a usage row. */
  z.object({
    type: z.literal('usage'),
    used: z.int(),
    size: z.int(),
    cost: z.nullable(z.object({ amount: z.number(), currency: z.string() })),
  }),
  /** The turn's messages are persisted (in the runtime's own shapes): refetch the history. */
  z.object({ type: z.literal('saved'), messages: z.int() }),
  /** The turn ended: `end_turn`, `cancelled`, `max_tokens`, `refusal`, … */
  z.object({ type: z.literal('done'), stopReason: z.string() }),
  /** The turn failed; what the user sent is kept. The next prompt starts the agent again if it died. */
  z.object({ type: z.literal('error'), code: z.string(), message: z.string() }),
]);
export type AgentEvent = z.infer<typeof agentEventSchema>;

/** Parses one SSE data line; null for an event this client does not know (never an error). */
export function parseAgentEvent(data: string): AgentEvent | null {
  try {
    const parsed = agentEventSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
