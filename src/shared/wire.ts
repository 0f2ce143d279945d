/**
 * The wire types: every shape that crosses HTTP (and the CLI's --json) is declared here once,
 * as a zod schema with its inferred type. Browser and Node code both import this module; it
 * must stay free of Node and DOM APIs.
 */
// zod/mini: the same schemas at a fraction of the bundle size (the web app's initial JS budget).
import * as z from 'zod/mini';

import { ESTIMATORS, type EstimatorId } from './estimators';
import { isSourceId, SOURCE_IDS, SOURCE_LABELS, type SourceId } from './sources';
import { transcriptMessageSchema } from './transcript';

export { isSourceId, SOURCE_IDS, SOURCE_LABELS, type SourceId };

/**
 * A source id on the wire: any string, so a client keeps working when a newer server reports a
 * source it does not know (it shows the label the report carries).
 */
export const sourceIdSchema = z.string().check(z.minLength(1));

// ---------------------------------------------------------------------------------------------
// Errors

export const errorBodySchema = z.object({
  // requestId: the answer's X-Request-Id, to find its lines in the server's log (an addition).
  error: z.object({ code: z.string(), message: z.string(), requestId: z.optional(z.string()) }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

// ---------------------------------------------------------------------------------------------
// Workspace, messages, usage

export const sessionSummarySchema = z.object({
  id: z.string(),
  messageCount: z.int(),
  lastActiveAt: z.number(),
  /** How the chat names the session: its first user message, cut (null: none to name it by). */
  title: z.optional(z.nullable(z.string())),
  /** The session's latest ACP total and window (null: none reported yet). */
  contextUsed: z.optional(z.nullable(z.int())),
  contextSize: z.optional(z.nullable(z.int())),
  /**
   * Where the session came from when it did not run through this server's agent (investibook
   * import): 'opencode_export', a file `opencode export` printed; 'opencode', the user's own
   * OpenCode asked. Absent: the session ran here.
   */
  origin: z.optional(
    z.object({
      kind: z.string(),
      /** When it was first imported, and when an import last changed it (epoch ms). */
      importedAt: z.number(),
      updatedAt: z.number(),
      /** OpenCode's title of the session, and the session whose task call made it (a subagent's). */
      title: z.nullable(z.string()),
      parentSessionId: z.nullable(z.string()),
      /** The file it was imported from, as named to the import (absent: OpenCode was asked, or imported before files were kept). */
      file: z.optional(z.string()),
    }),
  ),
  /**
   * A subagent's session: the session whose `task` call made it (the switcher lists it under that
   * one), as the bridge recorded it or the import found it.
   */
  parentSessionId: z.optional(z.string()),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;

export const workspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The most recently active session: the default for messages, usage and the report. */
  defaultSessionId: z.nullable(z.string()),
  sessions: z.array(sessionSummarySchema),
  /** The workspace folder (the chat shows the paths inside it relative to it). */
  root: z.optional(z.string()),
});
export type Workspace = z.infer<typeof workspaceSchema>;

/** The workspaces a user may see, with their folders (the CLI finds its own from a folder). */
export const workspaceListSchema = z.object({
  workspaces: z.array(z.object({ id: z.string(), name: z.string(), root: z.string() })),
});
export type WorkspaceList = z.infer<typeof workspaceListSchema>;

/**
 * A persisted message. `info` and `parts` are passed through as stored (parsed JSON), in the
 * shapes of the runtime that wrote it (`runtime`); `transcript` is what the chat shows of it,
 * the same for every runtime (shared/transcript.ts) — the browser reads only that.
 */
export const chatMessageSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  timeCreated: z.number(),
  timeUpdated: z.number(),
  info: z.record(z.string(), z.unknown()),
  parts: z.array(z.record(z.string(), z.unknown())),
  /** The runtime whose shapes `info` and `parts` are in (messages_v2.runtime; absent: OpenCode's). */
  runtime: z.optional(z.string()),
  /** The message as the chat shows it, whatever the runtime; absent only when `problem` says why it cannot be shown. */
  transcript: z.optional(transcriptMessageSchema),
  /** Set when the stored row could not be read; the message is shown as unreadable. */
  problem: z.optional(z.string()),
  /** What was left out or corrected to show the rest (a part nested too deep, a timestamp that is not a number). */
  warnings: z.optional(z.array(z.string())),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

export const messagesResponseSchema = z.object({
  sessionId: z.nullable(z.string()),
  messages: z.array(chatMessageSchema),
});
export type MessagesResponse = z.infer<typeof messagesResponseSchema>;

export const MAX_MESSAGE_TEXT = 100_000;

/**
 * A session id a client names (OpenCode's are `ses_…`): 1–200 characters, none of them a control
 * character — a NUL could never be stored by every database alike.
 */
export const sessionIdSchema = z.string().check(
  z.minLength(1),
  z.maxLength(200),
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  z.regex(/^[^\u0000-\u001f\u007f]*$/, 'a session id has no control characters'),
);

export const appendMessageRequestSchema = z.object({
  text: z.string().check(z.trim(), z.minLength(1, 'text must not be empty'), z.maxLength(MAX_MESSAGE_TEXT)),
  sessionId: z.optional(sessionIdSchema),
});
export type AppendMessageRequest = z.infer<typeof appendMessageRequestSchema>;

export const appendMessageResponseSchema = z.object({ message: chatMessageSchema });

/** Where a total comes from: the agent's ACP usage_update, or the provider's count of a model call. */
export const TOTAL_SOURCES = ['acp', 'provider'] as const;
export type TotalSource = (typeof TOTAL_SOURCES)[number];

export const usageSchema = z.object({
  sessionId: z.nullable(z.string()),
  /**
   * The session's latest total: its last ACP usage_update, else (none recorded: a session
   * imported from an OpenCode export) its last measured model call's prompt as the provider
   * counted it (`source`); null while neither exists.
   */
  latest: z.nullable(
    z.object({
      contextUsed: z.number(),
      contextSize: z.nullable(z.number()),
      percent: z.nullable(z.number()),
      recordedAt: z.string(),
      source: z.optional(z.enum(TOTAL_SOURCES)),
    }),
  ),
});
export type Usage = z.infer<typeof usageSchema>;

// ---------------------------------------------------------------------------------------------
// The context report (contract section 4, schemaVersion 1). Fields may be added, never removed.

export { ESTIMATORS, type EstimatorId };

export const duplicateReadSchema = z.object({
  /** How many times the same file (and range) is read in live context. */
  reads: z.int(),
  /** 1 for the first read, 2 for the second, … */
  ordinal: z.int(),
});

/** Billed tokens and money of one item, source or row over the session. */
export const itemCostSchema = z.object({
  /** Money, in `cost.currency`; null when no call reported a cost. */
  amount: z.nullable(z.number()),
  /** Prompt tokens billed for it, call after call, and of those read from the provider's cache. */
  inputTokens: z.int(),
  cacheReadTokens: z.int(),
  /** Output tokens it was produced with. */
  outputTokens: z.int(),
  /** Model calls it was billed in. */
  calls: z.int(),
});
export type ItemCost = z.infer<typeof itemCostSchema>;

/**
 * A part of the runtime's own measured item (its system prompt, environment block, each tool's
 * schema, each MCP server's tools, framing and the rest): its share of the item (Σ = the item's
 * scaledTokens) and its own estimate from the definitions recorded where the agent ran.
 */
export const runtimePartSchema = z.object({
  /** `system_prompt`, `agent_prompt`, `environment`, `tool`, `mcp_server`, `framing`; a client shows another by its label. */
  kind: z.string(),
  label: z.string(),
  tokens: z.int(),
  estimatedTokens: z.int(),
  percentOfUsed: z.nullable(z.number()),
  /** A tool's name, an MCP server's name, the provider prompt's id. */
  name: z.optional(z.string()),
  /** A tool: whether the session ever called it. */
  called: z.optional(z.boolean()),
  /** An MCP server: its tools as sent (`server_tool`), each with its estimate and whether the session called it. */
  tools: z.optional(z.array(z.object({ name: z.string(), estimatedTokens: z.int(), called: z.boolean() }))),
});
export type RuntimePart = z.infer<typeof runtimePartSchema>;

/** What a subagent's own session consumed (a `task` call's item): its total and largest sources, and where its report is. */
export const subagentSchema = z.object({
  /** Its session: its report is `?session_id=` this (the CLI's `--session`). */
  sessionId: z.string(),
  description: z.string(),
  agent: z.optional(z.string()),
  /** Whether its session is stored in this workspace (false: its rows never reached the database). */
  stored: z.boolean(),
  /** Its context at its last measured call, and the window (null: not measured). */
  total: z.optional(z.nullable(z.int())),
  contextSize: z.optional(z.nullable(z.int())),
  calls: z.optional(z.int()),
  largest: z.optional(z.array(z.object({ id: z.string(), label: z.string(), tokens: z.int() }))),
  cost: z.optional(z.nullable(z.object({ amount: z.number(), currency: z.string() }))),
});
export type Subagent = z.infer<typeof subagentSchema>;

export const reportItemSchema = z.object({
  id: z.string(),
  label: z.string(),
  sourceRef: z.string(),
  estimatedTokens: z.int(),
  scaledTokens: z.nullable(z.int()),
  percentOfUsed: z.nullable(z.number()),
  bytes: z.int(),
  /** Workspace-relative path of the file this item carries, when it carries one. */
  path: z.optional(z.string()),
  duplicate: z.optional(duplicateReadSchema),
  /** Position in request order (0 = first thing the model reads). */
  order: z.int(),
  /** True when scaledTokens is what the provider measured this item's call to add. */
  measured: z.optional(z.boolean()),
  /** The runtime's own system prompt and tool schemas: measured, its text never visible here. */
  runtime: z.optional(z.boolean()),
  /** What this item cost over the session: every call it was in (see `cost`). */
  cost: z.optional(itemCostSchema),
  /** The runtime's item in parts, when its definitions were recorded (`calibration.runtime.parts` says why not). */
  parts: z.optional(z.array(runtimePartSchema)),
  /** A call that handed work to a subagent: what the subagent's own session consumed. */
  subagent: z.optional(subagentSchema),
});
export type ReportItem = z.infer<typeof reportItemSchema>;

/** The kinds of cost row that are no source; a client shows one it does not know by its label. */
export const COST_ROW_KINDS = ['runtime', 'hidden_reasoning', 'unexplained', 'compaction'] as const;

/**
 * What the session cost, and what each source, item and row of it cost — over every model call,
 * the content no longer in context included. Σ sources[].amount + Σ rows[].amount = total, and
 * Σ of their input tokens = tokens.input (every call's prompt).
 */
export const sessionCostSchema = z.object({
  currency: z.string(),
  total: z.nullable(z.number()),
  calls: z.int(),
  callsWithCost: z.int(),
  tokens: z.object({ input: z.int(), cacheRead: z.int(), cacheWrite: z.int(), output: z.int() }),
  /** Per million tokens, as the calls' costs show them; null when they do not tell. */
  prices: z.nullable(
    z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() }),
  ),
  pricesFit: z.nullable(z.enum(['exact', 'approximate'])),
  /**
   * Where no call reported a cost and the model's list prices are known: the calls were priced
   * from them, and this names the catalog, the model and the prices. Absent: the calls' own costs.
   */
  pricesSource: z.optional(z.string()),
  sources: z.array(
    z.extend(itemCostSchema, {
      id: z.string(),
      label: z.string(),
      /** Of `amount`, what content no longer in context cost while it was in (pruned, compacted). */
      leftAmount: z.nullable(z.number()),
      leftItems: z.int(),
    }),
  ),
  rows: z.array(z.extend(itemCostSchema, { kind: z.string(), label: z.string() })),
  notes: z.array(z.string()),
  /**
   * What the cache saved over the priced calls: the tokens read from and written to it
   * (`tokens`) at the input rate (`atInputRate`), less what was billed for them (`billed`).
   * Null: no call was priced, or the costs do not tell the prices apart.
   */
  cacheSavings: z.optional(
    z.nullable(z.object({ amount: z.number(), tokens: z.int(), atInputRate: z.number(), billed: z.number() })),
  ),
});
export type SessionCostReport = z.infer<typeof sessionCostSchema>;

/** How a figure was made: measured by provider counts, estimated, a mix, or scaled in proportion. */
export const BASES = ['measured', 'estimated', 'mixed', 'scaled'] as const;
export type Basis = (typeof BASES)[number];

export const reportSourceSchema = z.object({
  id: sourceIdSchema,
  label: z.string(),
  estimatedTokens: z.int(),
  scaledTokens: z.nullable(z.int()),
  percentOfUsed: z.nullable(z.number()),
  bytes: z.int(),
  itemCount: z.int(),
  items: z.array(reportItemSchema),
  /** How its scaledTokens were made (absent when there is no total to share). */
  basis: z.optional(z.enum(BASES)),
  /**
   * Its items summed by the folder they are about ("docs/external/duckdb/", a web host "docs.rs/"),
   * where two or more share one: the largest first, over every item (not only those `items` shows).
   */
  folders: z.optional(
    z.array(
      z.object({
        folder: z.string(),
        itemCount: z.int(),
        estimatedTokens: z.int(),
        scaledTokens: z.nullable(z.int()),
        percentOfUsed: z.nullable(z.number()),
      }),
    ),
  ),
  /** What `items` leaves out when it is cut short (zero when it lists every item). */
  more: z.object({
    itemCount: z.int(),
    estimatedTokens: z.int(),
    scaledTokens: z.nullable(z.int()),
    bytes: z.int(),
  }),
});
export type ReportSource = z.infer<typeof reportSourceSchema>;

export const excludedSchema = z.object({
  label: z.string(),
  reason: z.string(),
  bytes: z.int(),
  count: z.optional(z.int()),
});
export type Excluded = z.infer<typeof excludedSchema>;

export const SUGGESTION_KINDS = [
  'duplicate_read',
  'large_item',
  'unused_tools',
  'unused_skill',
  'pruned_outputs',
  'near_compaction',
  'compact_now',
  'new_session',
  'revert_read',
  'prune_forecast',
] as const;

/**
 * The kinds of change a suggestion hands over: a fragment of the agent runtime's configuration
 * (JSON the pinned OpenCode accepts), a sentence to send the agent, a workspace file to shorten,
 * a compaction now, a new session started with a hand-off, a revert to before a message.
 */
export const CHANGE_KINDS = [
  'opencode_config',
  'ask_agent',
  'workspace_file',
  'compact',
  'new_session',
  'revert',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/**
 * What making a suggestion's change now takes out of the prompt the runtime sends next (its
 * request view with the change made, contract §7): tokens, their share of the used context,
 * and — where the session's calls were priced — the money per call at its own rates. 0 for a
 * change that only prevents later growth. `estimate`: part of it is estimated (a compaction's
 * summary before it is written). `upTo`: the figure is a bound (a file shortened by as much as
 * the user decides).
 */
export const freesSchema = z.object({
  tokens: z.int(),
  percentOfUsed: z.nullable(z.number()),
  upTo: z.optional(z.boolean()),
  estimate: z.optional(z.boolean()),
  /** In `cost.currency`: the tokens at what a carried prompt token cost in the latest priced call. */
  costPerCall: z.optional(z.number()),
});
export type Frees = z.infer<typeof freesSchema>;

/** Later growth a change prevents: per re-read of a file, per load of a skill, per call from the next agent start. */
export const avoidsSchema = z.object({ tokens: z.int(), per: z.enum(['re-read', 'load', 'call']) });
export type Avoids = z.infer<typeof avoidsSchema>;

/**
 * What making the change costs once: the prompt the provider reads uncached again (a changed
 * tool list, system prompt or history breaks its prompt cache from there on), plus the
 * compaction's own call; money where the calls were priced.
 */
export const oneTimeSchema = z.object({
  tokens: z.int(),
  cost: z.optional(z.number()),
  /** What the tokens are, in words. */
  basis: z.string(),
});
export type OneTime = z.infer<typeof oneTimeSchema>;

/** The change itself: `text` is the JSON, the sentence or what to do with `file`. */
export const changeSchema = z.object({
  kind: z.enum(CHANGE_KINDS),
  text: z.string(),
  /** workspace_file: the workspace-relative file; opencode_config: the file it goes in. */
  file: z.optional(z.string()),
  /** revert: the message from which the history is dropped. */
  messageId: z.optional(z.string()),
  /**
   * The agent route that makes the change on the live agent (never the debug API); absent on a
   * report as of an earlier call and on a session with no live agent (an import).
   */
  request: z.optional(
    z.object({ method: z.literal('POST'), path: z.string(), body: z.optional(z.record(z.string(), z.unknown())) }),
  ),
});
export type Change = z.infer<typeof changeSchema>;

/**
 * The report in a few figures, first: where the context went, what to do about it, what it costs
 * and how much room is left. Every figure is one the report carries elsewhere too.
 */
export const verdictSchema = z.object({
  biggestSource: z.nullable(
    z.object({ id: z.string(), label: z.string(), tokens: z.int(), percentOfUsed: z.nullable(z.number()) }),
  ),
  /** The largest item a user can act on (the runtime's own prompt is not one). */
  biggestItem: z.nullable(
    z.object({
      id: z.string(),
      label: z.string(),
      source: z.string(),
      tokens: z.int(),
      percentOfUsed: z.nullable(z.number()),
    }),
  ),
  /** `suggestions[0]`, the one that frees the most: what to do about it. */
  action: z.nullable(
    z.object({ kind: z.string(), title: z.string(), itemIds: z.array(z.string()), frees: z.optional(freesSchema) }),
  ),
  /** Of the last prompt, read from the provider's cache (null: not reported). */
  cacheReadPercent: z.nullable(z.number()),
  /** The session's cost so far, as the agent reported it (null: not reported). */
  cost: z.nullable(z.object({ amount: z.number(), currency: z.string() })),
  /** Room before OpenCode compacts (null: the window is not known). */
  headroom: z.nullable(
    z.object({
      used: z.int(),
      usable: z.int(),
      left: z.int(),
      percentOfUsable: z.number(),
      /** Model calls until OpenCode compacts by itself at the recent growth rate; null: `callsLeftBecause`. */
      callsLeft: z.nullable(z.int()),
      /** The rate: tokens per call, over how many model calls (from call `fromCall` to `toCall`). */
      /**
       * The rate: the median growth per call (`perCall`) over the calls `fromCall`–`toCall` since
       * the last compaction (`calls` steps), and the calls left at its lower and upper quartile.
       */
      callsLeftBasis: z.optional(
        z.object({
          perCall: z.int(),
          calls: z.int(),
          fromCall: z.int(),
          toCall: z.int(),
          range: z.optional(z.object({ low: z.int(), high: z.int() })),
        }),
      ),
      callsLeftBecause: z.optional(z.string()),
    }),
  ),
  /** Hidden reasoning the provider kept in the prompt, when there is any. */
  hiddenReasoning: z.optional(z.int()),
});
export type Verdict = z.infer<typeof verdictSchema>;

/**
 * Advice computed from the report's own figures, never guessed; ordered by `frees.tokens`,
 * largest first. `change` is absent only on a notice that is no change to make (pruned outputs,
 * a near compaction: they free nothing themselves).
 */
export const suggestionSchema = z.object({
  kind: z.enum(SUGGESTION_KINDS),
  severity: z.enum(['info', 'warning']),
  title: z.string(),
  detail: z.string(),
  itemIds: z.array(z.string()),
  figures: z.record(z.string(), z.number()),
  frees: freesSchema,
  avoids: z.optional(avoidsSchema),
  oneTime: z.optional(oneTimeSchema),
  /** Calls after which what the change saves a call has paid its one-time cost (where priced). */
  breakEvenCalls: z.optional(z.int()),
  /** false: it will not pay back over the session's likely rest (it follows all that do). */
  paysBack: z.optional(z.boolean()),
  change: z.optional(changeSchema),
  /** unused_tools: the agent whose tools they are, and the tools (built-in and MCP, by the names the model is sent). */
  agent: z.optional(z.nullable(z.string())),
  tools: z.optional(z.array(z.string())),
});
export type Suggestion = z.infer<typeof suggestionSchema>;

/** The kinds of remainder row; a client shows one it does not know by its label. */
export const REMAINDER_KINDS = ['hidden_reasoning', 'after_last_call', 'left_since_call', 'unexplained'] as const;

export const remainderRowSchema = z.object({
  kind: z.string(),
  label: z.string(),
  tokens: z.int(),
  percentOfUsed: z.nullable(z.number()),
  /** Why these tokens are here, in words: where the figure comes from. */
  reason: z.string(),
});
export type RemainderRow = z.infer<typeof remainderRowSchema>;

export const calibrationSchema = z.object({
  /**
   * measured: per-call provider counts explain the total; scaled: there are none, so estimates
   * are scaled to the total in proportion; estimate-only: no total yet (pending).
   */
  mode: z.enum(['measured', 'scaled', 'estimate-only']),
  /**
   * Model calls of the session whose prompt the provider counted — the calls that have a number
   * (`?call=N`, the timeline): compaction calls, and calls that measured nothing, not counted.
   */
  calls: z.int(),
  /** Calls that failed or were stopped before the provider counted a prompt: no number, no point. */
  uncountedCalls: z.optional(z.int()),
  /** The call the total describes: its prompt is the agent's total when matchesUsage. */
  reference: z.nullable(
    z.object({ messageId: z.string(), call: z.int(), promptTokens: z.int(), matchesUsage: z.boolean() }),
  ),
  /** The total is a compaction call's prompt (the history sent to be summarised), not a request's. */
  totalIsCompaction: z.optional(z.boolean()),
  /** System prompt, environment and tool schemas: the prompt beyond what the server can see. */
  runtimeOverhead: z.nullable(z.int()),
  /** Calls where the runtime was measured again, with the change (deprecated: see `runtime`). */
  overheadChanges: z.array(z.object({ messageId: z.string(), delta: z.int() })),
  /**
   * Where OpenCode's own prompt and tool schemas were measured (the first call) and measured
   * again, with what the rows show changed ("another model", "instructions changed on disk"…).
   */
  runtime: z.optional(
    z.object({
      changes: z.array(
        z.object({
          call: z.int(),
          messageId: z.string(),
          delta: z.int(),
          reason: z.string(),
          /**
           * A re-measure held to what the runtime is made of: `basis` ('recorded definitions', or
           * 'the runtime before the switch' when none were recorded), `expected` and the range
           * [`low`, `high`] a measure must fall in to agree, what the prompt left (`measured`), and
           * what could not agree (`unexplained`, in the unexplained row; 0 when it agreed).
           */
          bound: z.optional(
            z.object({
              measured: z.int(),
              expected: z.int(),
              basis: z.string(),
              low: z.int(),
              high: z.int(),
              unexplained: z.int(),
            }),
          ),
        }),
      ),
      /**
       * The item in parts: from the definitions recorded for the agent and model of the call the
       * total describes (`recorded`), the parts' own estimates against the measured item; or why
       * it stays one block (`reason`).
       */
      parts: z.optional(
        z.object({
          recorded: z.boolean(),
          reason: z.optional(z.string()),
          agent: z.optional(z.nullable(z.string())),
          model: z.optional(z.nullable(z.string())),
          recordedAt: z.optional(z.string()),
          estimatedTokens: z.optional(z.int()),
          measuredTokens: z.optional(z.int()),
          notes: z.optional(z.array(z.string())),
          /**
           * Parts measured with the pinned runtime, none having been recorded where the session ran
           * (an import, rows from elsewhere): its name and version (`origin.version`: the session's).
           */
          measuredWith: z.optional(z.object({ runtime: z.string(), version: z.string() })),
        }),
      ),
    }),
  ),
  /**
   * What the provider does with reasoning, as the session's counts show it (null: they did not
   * ask): keeps hidden reasoning in later prompts, drops it at a new user message, receives the
   * visible reasoning sent back, counts that only for the current turn.
   */
  reasoning: z.optional(
    z.object({
      keepsHidden: z.nullable(z.boolean()),
      dropsHiddenAtTurn: z.nullable(z.boolean()),
      receivesVisible: z.nullable(z.boolean()),
      visibleCurrentTurnOnly: z.nullable(z.boolean()),
      /**
       * The provider's documented rule the session was walked under (by the model of most of its
       * calls): what it answers of the four above, in words, with its source; `answers` empty and
       * no `source` where none is documented (the counts decide).
       */
      rule: z.optional(
        z.object({
          id: z.string(),
          provider: z.string(),
          says: z.string(),
          model: z.nullable(z.string()),
          answers: z.record(z.string(), z.boolean()),
          source: z.optional(z.object({ url: z.string(), quote: z.string() })),
          /** The session's other models whose rule is another one (not applied). */
          otherModels: z.array(z.string()),
        }),
      ),
      /**
       * How the counts stood to the rule: `confirmed` (calls favour it, none the other answer),
       * `contradicted` (some calls favour the other answer, not overwhelmingly: the rule kept),
       * `overturned` (overwhelming: the counts' answer taken), `untested` (no call had enough
       * reasoning at stake), `no_rule` (the counts decided). Clients show an unknown one by `said`.
       */
      verdict: z.optional(z.string()),
      /** The verdict in words, with the calls that contradict the rule. */
      said: z.optional(z.string()),
      evidence: z.optional(
        z.object({
          /** Calls whose counts favour the rule, and the other answer (each with ≥ `stakeAtLeast` at stake). */
          confirming: z.int(),
          contradicting: z.int(),
          stakeAtLeast: z.int(),
          /** Of the answers above, those the counts overturned and those they contradicted (kept). */
          overturned: z.array(z.string()),
          contradicted: z.array(z.string()),
          /** The calls that contradict the rule (the first 20): the answer, the reasoning at stake, what each answer leaves unexplained. */
          calls: z.array(
            z.object({
              call: z.int(),
              question: z.string(),
              stake: z.int(),
              ruleResidual: z.int(),
              otherResidual: z.int(),
            }),
          ),
        }),
      ),
    }),
  ),
  /** measured calls exist but contradict the total (none equals it, and it is not newer): figures scaled. */
  scaledBecause: z.optional(z.string()),
  /** Part of the total in no source: the remainder rows (`remainder`), summed and by kind. */
  unattributed: z.object({
    tokens: z.int(),
    /** In the reference call, gone since (pruned or compacted after it). */
    leftSinceCall: z.int(),
    leftReason: z.nullable(z.enum(['pruned', 'compacted', 'both'])),
    /** What no item, image, hidden reasoning or runtime change explains. */
    unexplained: z.int(),
    /** Hidden reasoning the provider kept in the prompt (measured). */
    hiddenReasoning: z.optional(z.int()),
    /** The total is newer than every persisted call: the gap, shared by what was added since. */
    afterLastCall: z.optional(z.int()),
  }),
});
export type CalibrationSummary = z.infer<typeof calibrationSchema>;

export const pendingSchema = z.object({
  label: z.string(),
  estimatedTokens: z.int(),
  bytes: z.int(),
  itemCount: z.int(),
  items: z.array(z.extend(reportItemSchema, { source: sourceIdSchema })),
});
export type PendingContext = z.infer<typeof pendingSchema>;

/** The events a timeline point may carry today; clients must tolerate others (a newer server's). */
export const TIMELINE_EVENTS = [
  'compaction',
  'pruning',
  'skill',
  'overhead_change',
  'hidden_reasoning',
  'unexplained',
] as const;
export type TimelineEvent = (typeof TIMELINE_EVENTS)[number];

export const timelinePointSchema = z.object({
  call: z.int(),
  messageId: z.string(),
  at: z.string(),
  promptTokens: z.int(),
  runtimeOverhead: z.int(),
  bySource: z.record(z.string(), z.int()),
  /** Hidden reasoning the provider kept in this prompt, and what nothing explains (carried). */
  hiddenReasoning: z.optional(z.int()),
  unexplained: z.optional(z.int()),
  /** The model called, and the tokenizer whose estimates shared its growth. */
  model: z.optional(z.nullable(z.string())),
  tokenizer: z.optional(z.string()),
  /** What the call added: its new items' estimate, and the hidden reasoning its prompt gained. */
  addedEstimate: z.optional(z.int()),
  hiddenAdded: z.optional(z.int()),
  /** What its prompt lost besides: earlier reasoning the provider dropped at this user message. */
  dropped: z.optional(z.int()),
  /**
   * The largest items the call added; `measured` when their tokens are the measured growth. An
   * item still in context carries its report figure and `itemId`, the same as in every other view.
   */
  added: z.array(
    z.object({
      label: z.string(),
      source: z.string(),
      tokens: z.int(),
      measured: z.optional(z.boolean()),
      itemId: z.optional(z.string()),
    }),
  ),
  /** TIMELINE_EVENTS, as strings: an unknown event is ignored, never an error. */
  events: z.array(z.string()),
});
export type TimelinePoint = z.infer<typeof timelinePointSchema>;

/**
 * The model's window as OpenCode budgets it (session/compaction: `usable`): the output it keeps
 * free, and where it compacts on its own. The output limit comes from the workspace's
 * opencode.json when it names the model's limits, else OpenCode's cap of 32,000 is assumed.
 */
export const contextWindowSchema = z.object({
  contextSize: z.int(),
  /** Tokens kept free for the reply (and, with limit.input, OpenCode's `reserved`). */
  reservedOutput: z.int(),
  /** contextSize − reservedOutput: what a prompt may fill. */
  usable: z.int(),
  /** Where OpenCode compacts by itself (the prompt plus the last reply reaching `usable`); null when off. */
  autoCompactAt: z.nullable(z.int()),
  /**
   * 'workspace-config' (opencode.json names the model's limits), 'assumed' (OpenCode's 32,000
   * cap), 'unknown' (a window no larger than the cap: the output limit decides, and only
   * OpenCode's model list has it), 'catalog' (OpenCode's own model list, `source`: the rows carry
   * no window, as in an import).
   */
  basis: z.string(),
  /** Where the limits come from, in words, when they are the catalog's. */
  source: z.optional(z.string()),
  /** The model's list prices per million tokens, when the catalog has them. */
  prices: z.optional(
    z.object({
      input: z.number(),
      output: z.number(),
      cacheRead: z.optional(z.number()),
      cacheWrite: z.optional(z.number()),
    }),
  ),
});
export type ContextWindow = z.infer<typeof contextWindowSchema>;

export const contextReportSchema = z.object({
  schemaVersion: z.literal(1),
  workspaceId: z.string(),
  sessionId: z.nullable(z.string()),
  generatedAt: z.string(),
  /**
   * The agent runtime whose session this is (contract §10): `name` as its rows say it
   * (messages_v2.runtime: 'opencode', 'claude-code'; a client shows one it does not know by
   * `title`), `title` in words ("OpenCode", "Claude Code"). Absent from a server before it:
   * OpenCode's.
   */
  runtime: z.optional(z.object({ name: z.string(), title: z.string() })),
  /**
   * Where the session came from when it did not run through this server's agent: `files`, the
   * export files the report was made from (`debug context --export`); `kind` as the import
   * recorded it ('opencode_export', 'opencode'); `directory`, the folder the session ran in.
   */
  origin: z.optional(
    z.object({
      kind: z.string(),
      files: z.optional(z.array(z.string())),
      title: z.optional(z.nullable(z.string())),
      directory: z.optional(z.nullable(z.string())),
      /** The runtime version the session ran, as its export says (null: it does not say). */
      version: z.optional(z.nullable(z.string())),
    }),
  ),
  /** Digest of the report's inputs; item content is served only for the same snapshot. */
  snapshotId: z.string(),
  actual: z.nullable(
    z.object({
      contextUsed: z.int(),
      contextSize: z.nullable(z.int()),
      percent: z.nullable(z.number()),
      recordedAt: z.string(),
      /**
       * Where the total comes from: 'acp', the agent's last ACP usage_update; 'provider', the
       * prompt of the session's last measured model call as the provider counted it (no ACP
       * total was recorded: a session imported from an OpenCode export, a subagent's).
       */
      source: z.enum(TOTAL_SOURCES),
    }),
  ),
  estimate: z.object({
    method: z.string(),
    estimator: z.enum(ESTIMATORS),
    totalTokens: z.int(),
    totalBytes: z.int(),
    itemCount: z.int(),
    scale: z.nullable(z.number()),
  }),
  /** Provider-reported tokens of the session's latest assistant message; null when none reported. */
  providerTokens: z.nullable(
    z.object({
      messageId: z.string(),
      input: z.nullable(z.number()),
      output: z.nullable(z.number()),
      cacheRead: z.nullable(z.number()),
      cacheWrite: z.nullable(z.number()),
      /** The prompt this call sent: input + cache under the convention the data follows. */
      promptTokens: z.optional(z.nullable(z.number())),
      /** Whether `input` already includes the cached tokens (OpenAI style) or not (OpenCode's own). */
      convention: z.optional(z.enum(['input-excludes-cache', 'input-includes-cache'])),
      /** cacheRead / promptTokens × 100; null unless both were reported. */
      cacheReadSharePercent: z.nullable(z.number()),
    }),
  ),
  /** How the figures relate to the provider's own counts (see docs/opencode.md). */
  calibration: z.optional(calibrationSchema),
  /** In context now but added after the call the total describes: not in the total yet. */
  pending: z.optional(pendingSchema),
  /** The prompt of every measured model call, by source (downsampled to at most 200 points). */
  timeline: z.optional(z.array(timelinePointSchema)),
  /** The window's budget (null without a window size from the agent). */
  window: z.optional(z.nullable(contextWindowSchema)),
  /** The report in a few figures, to show first (null: estimates only, no total yet). */
  verdict: z.optional(z.nullable(verdictSchema)),
  /** Every known source, in table order (contract §3: all nine, even when empty). */
  sources: z.array(reportSourceSchema),
  /**
   * What the sources cannot hold, each with its reason (contract §4): Σ sources[].scaledTokens +
   * Σ remainder[].tokens = actual.contextUsed. Empty rows are left out.
   */
  remainder: z.optional(z.array(remainderRowSchema)),
  duplicates: z.object({
    files: z.int(),
    extraReads: z.int(),
    repeatedEstimatedTokens: z.int(),
    repeatedScaledTokens: z.nullable(z.int()),
  }),
  excluded: z.array(excludedSchema),
  suggestions: z.array(suggestionSchema),
  notes: z.array(z.string()),
  warnings: z.array(z.string()),
  /**
   * Present when the report describes an earlier model call (`?call=N`, `--call N`): that call,
   * of how many, its message and time. `actual` is then that call's measured prompt.
   */
  asOf: z.optional(z.object({ call: z.int(), of: z.int(), messageId: z.string(), at: z.string() })),
  /**
   * Present when the session is a subagent's: the session whose call made it. Such a session has
   * no ACP total of its own, so without one its report is as of its last measured call (`asOf`).
   */
  parentSessionId: z.optional(z.string()),
  /** What the session cost, by source, item and row (absent: no measured call). */
  cost: z.optional(sessionCostSchema),
});
export type ContextReport = z.infer<typeof contextReportSchema>;

export { ITEM_PAGE_CHARS } from './item-pages';

/** One zero-based page of an item's text, as the model sees it (base64 and binary omitted). */
export const itemContentSchema = z.object({
  snapshotId: z.string(),
  itemId: z.string(),
  label: z.string(),
  source: sourceIdSchema,
  sourceRef: z.string(),
  page: z.int(),
  pageCount: z.int(),
  pageSize: z.int(),
  totalChars: z.int(),
  text: z.string(),
  omissions: z.array(z.string()),
});
export type ItemContent = z.infer<typeof itemContentSchema>;

/** The live context in request order: one block per item, with a bounded preview. */
export const readerPageSchema = z.object({
  snapshotId: z.string(),
  page: z.int(),
  pageCount: z.int(),
  blockCount: z.int(),
  blocks: z.array(
    z.object({
      itemId: z.string(),
      order: z.int(),
      source: sourceIdSchema,
      label: z.string(),
      estimatedTokens: z.int(),
      /** The item's figure in the report (measured or scaled), the same as everywhere else; null when pending. */
      tokens: z.optional(z.nullable(z.int())),
      bytes: z.int(),
      preview: z.string(),
      truncated: z.boolean(),
    }),
  ),
});
export type ReaderPage = z.infer<typeof readerPageSchema>;
