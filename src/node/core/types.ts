/**
 * The core's types, in one module: what the runtime adapter hands the core (messages, calls,
 * contributions), what the core's stages pass each other (items, the calibration), and what
 * the report is built from. Types only, and the empty values of two of them: every stage
 * imports from here, never from another stage, so no import cycle can form.
 */
import type { SourceId } from '../../shared/sources';
import type { Change, ContextWindow, EstimatorId, Excluded, Suggestion } from '../../shared/wire';
import type { ProviderFamily, Encoding } from './providers';

/** A provider's count for one model call, in the runtime's convention (see `TokenConvention`). */
export interface Tokens {
  total?: number;
  input: number;
  output: number;
  reasoning: number;
  /** null when the provider reported no cache figures: never invented as 0. */
  cacheRead: number | null;
  cacheWrite: number | null;
}

// ── Inputs: usage and the workspace ──────────────────────────────────────────────────────────

/** The agent-reported total: the newest usable ACP usage_update of the session. */
export interface UsageInput {
  contextUsed: number;
  contextSize: number | null;
  recordedAt: number;
  /**
   * Where the total comes from: 'acp' (default), the agent's usage_update; 'provider', a model
   * call's prompt as the provider counted it (no ACP total: an imported session, a subagent's).
   */
  source?: 'acp' | 'provider';
  /** The session's cost so far, as the agent reported it (cumulative), when it did. */
  cost?: { amount: number; currency: string } | null;
}

export interface ModelLimits {
  context?: number;
  input?: number;
  output?: number;
}

/** What the workspace's opencode.json says about compaction and the models' limits. */
export interface AgentConfig {
  compactionAuto?: boolean;
  compactionReserved?: number;
  /** By "provider/model". */
  models: Record<string, ModelLimits>;
  /** MCP servers the workspace's config files declare (enabled or not), by name. */
  mcpServers?: string[];
}

export interface WorkspaceSnapshot {
  root: string;
  /** Always-loaded instruction files, workspace-relative, in load order. */
  instructions: { path: string; text: string }[];
  /** Enabled skills (never the candidate cache). */
  skills: { name: string; description: string; path: string }[];
  excluded: Excluded[];
  warnings: string[];
  /** Path, size and mtime of every file read: part of the snapshot digest. */
  stamps: { path: string; size: number; mtimeMs: number }[];
  /** Compaction settings and model limits from opencode.json, when it has any. */
  agentConfig?: AgentConfig;
  /**
   * Sizes of the files (a folder: 0) whose reads decide a source — the source table's folders and
   * the instruction files — by workspace-relative path: a shell command naming several is
   * attributed to the largest. A path not listed is taken not to exist.
   */
  files: Record<string, number>;
  /** The listing stopped at its cap (a warning says so). */
  filesTruncated?: boolean;
  /** The workspace's own sources and claims (`.investibook/sources.json`), conflicts already settled. */
  declaredSources?: DeclaredSource[];
}

/** A source the workspace declares, or claims for one of the nine (contract §3). */
export interface DeclaredSource {
  id: string;
  label: string;
  /** Workspace paths (globs: `docs/**`). */
  paths: string[];
  /** Tool names, and MCP servers as `mcp:SERVER`. */
  tools: string[];
  /** Hosts, or host and path prefixes, of fetched pages. */
  urls: string[];
}

// ── From the runtime adapter: contributions and the session's shape ─────────────────────────

export interface Contribution {
  /** Identity across model calls: the same key is the same content in the same form. */
  key: string;
  source: SourceId;
  label: string;
  /** Internal locator: messages_v2/ID/parts/N[#…] or file:PATH. */
  sourceRef: string;
  /** The texts the model reads for this item (estimated, never stored in the report). */
  texts: string[];
  bytes: number;
  path?: string;
  /** Where it belongs for sums by folder when `path` does not say (a folder outside, a web host). */
  folder?: string;
  /** Reads with the same key read the same file (and range)… */
  readKey?: string;
  /** …and with the same content hash, the same content: a true duplicate. */
  contentKey?: string;
  /** The skill a `skill` call loaded. */
  skill?: string;
  /** When this form of the item is in view (a pruned output: whole until, placeholder from). */
  until?: number;
  from?: number;
  /**
   * Which model call of its message made it (the number of steps that finished before its part):
   * an item is in view from the next call on.
   */
  segment?: number;
  /** How many of `texts`, from the first, the model wrote itself (its reply, reasoning, a tool call's input). */
  producedTexts?: number;
  /** Images (and PDFs) the model is shown with this item, with their sizes where known. */
  images?: { mime: string; width?: number; height?: number }[];
  /** Visible reasoning, which some providers never receive back. */
  reasoning?: boolean;
  /** The tool a tool call's item is of (its name as the runtime sends it). */
  tool?: string;
  /** A call that handed work to a subagent: the session the subagent worked in. */
  subagent?: { sessionId: string; description: string; agent?: string };
}

/** A folder of the runtime's whose reads belong to a source, and how a read there is labelled. */
export interface RuntimePathRule {
  under: string;
  source: SourceId;
  read: (rest: string) => string;
}

export interface AttributionContext {
  /** Workspace root now; roots recorded in assistant info are added per message. */
  root: string;
  instructionFiles: ReadonlySet<string>;
  /** Folders the runtime loads skills from (workspace-relative): their files are Skills & Knowledge. */
  skillDirs?: readonly string[];
  /** The runtime's own folders that belong to a source (its layout's pathRules). */
  pathRules?: readonly RuntimePathRule[];
  /**
   * Folders the agent recorded it ran in anywhere in the session (assistant `info.path`): user
   * messages record none, yet their attached files carry absolute paths.
   */
  sessionRoots?: readonly string[];
  /** Size of a workspace file in bytes (0 for a folder), or null when there is none (shell paths). */
  fileSize: (path: string) => number | null;
  /** Enabled skill names to look for in the conversation. */
  skillNames?: readonly string[];
  /** The workspace's own sources and what they claim (`.investibook/sources.json`). */
  declared?: readonly DeclaredSource[];
  /**
   * History only feeds the calibration and the timeline: no content keys (duplicates) and no
   * skill mentions (unused skills) are worked out for it.
   */
  light?: boolean;
  /** Hash of a file's content, to tell a re-read of the same content from a changed file (default: keyHash, which does not collide). */
  hash?: (text: string) => string;
}

export interface MessageContributions {
  contributions: Contribution[];
  /** Enabled skills this message names outside of loading them. */
  mentions: string[];
  warnings: string[];
}

/** A message as the calibration walks it: no runtime format, only what the walk asks. */
export interface MessageMeta {
  id: string;
  /** A new user turn (not a compaction request): providers may drop reasoning here. */
  userTurn: boolean;
  /** When the message was last worked on: its completion, else its creation. */
  lastActivity: number;
}

/** The runtime's history window, kept up to date one message at a time. */
export interface WindowWalk {
  /** Message indices in view, in request order. */
  readonly order: readonly number[];
  /** Adds message `index`; true when the view restarted (a compaction completed). */
  append(index: number): boolean;
}

/** The session as its runtime describes it to the calibration. */
export interface SessionShape {
  messages: readonly MessageMeta[];
  /** Every model call, in order. */
  calls: readonly ModelCall[];
  /** A fresh walk of the history window. */
  window(): WindowWalk;
}

// ── Estimates ───────────────────────────────────────────────────────────────────────────────

export interface Estimator {
  readonly id: EstimatorId;
  /** Which tokenizer exactly (`bpe:claude×1.1`): analyses made with another are not reused. */
  readonly key: string;
  /** The BPE table, for counting elsewhere (threads). */
  readonly encoding?: Encoding;
  readonly multiplier?: number;
  /** Human name, reported as `estimate.method`. */
  readonly method: string;
  count(text: string): number;
  /** Texts above this length are estimated from samples (a warning says so). */
  readonly sampleLimit?: number;
}

export interface Omissions {
  prunedOutputs: { count: number; bytes: number };
  ignoredText: { count: number; bytes: number };
  attachmentBodies: { count: number; bytes: number };
  failedReplies: { count: number; bytes: number };
  unsignedReasoning: { count: number; bytes: number };
  unencryptedReasoning: { count: number; bytes: number };
  bookkeeping: { count: number; bytes: number };
}

export const emptyOmissions = (): Omissions => ({
  prunedOutputs: { count: 0, bytes: 0 },
  ignoredText: { count: 0, bytes: 0 },
  attachmentBodies: { count: 0, bytes: 0 },
  failedReplies: { count: 0, bytes: 0 },
  unsignedReasoning: { count: 0, bytes: 0 },
  unencryptedReasoning: { count: 0, bytes: 0 },
  bookkeeping: { count: 0, bytes: 0 },
});

export interface MessageAnalysis {
  items: Item[];
  /** Same order as `items`, only when texts were kept. */
  texts?: string[][];
  omissions: Omissions;
  mentions: string[];
  /** What the model quoted in this message (`code spans` of what it wrote); absent for history. */
  quotes?: string[];
  warnings: string[];
  /**
   * How many times the provider is sent this message's hidden reasoning: OpenCode sends each
   * summary part of an OpenAI reasoning item as an item of its own, every one with the item's
   * whole encrypted content, so the provider counts the reasoning once a part (weighted by each
   * item's share when a message has several). Absent: once, or none to send.
   */
  reasoningCopies?: number;
  /** The estimator's key: an analysis is reused only with the same tokenizer. */
  estimator: Estimator['key'];
}

/** What the runtime adapter makes of one message before estimating: its contributions and what it leaves out. */
export interface RuntimeAnalysis extends MessageContributions {
  omissions: Omissions;
  /** See MessageAnalysis. */
  reasoningCopies?: number;
}

// ── Calibration ─────────────────────────────────────────────────────────────────────────────

export interface Item extends Omit<Contribution, 'texts'> {
  /** Estimated tokens, images included. */
  tokens: number;
  /** The message it comes from (absent: always loaded, or the runtime's own). */
  messageId?: string;
  /** Estimated with the cheap estimator (history): good for sharing growth, not for judging it. */
  rough?: boolean;
  /** Of `tokens`, what the model wrote itself (reply, reasoning, a tool call's input). */
  produced?: number;
  /** Of `tokens`, what its images cost by the provider family's published rule. */
  vision?: number;
}

export type TokenConvention = 'input-excludes-cache' | 'input-includes-cache';

export interface ModelCall {
  /** Index of the assistant message that made the call. */
  message: number;
  /** Which of the message's steps (OpenCode makes one call a step; its items of earlier steps are in view). */
  segment: number;
  messageId: string;
  time: number;
  /** The compaction (summary) call: a different request, not part of the chain. */
  compaction: boolean;
  /** Provider-measured prompt tokens; null when the call recorded none (failed, aborted). */
  prompt: number | null;
  tokens: Tokens | null;
  /** Output and reasoning tokens it produced. */
  produced: number;
  /** What the provider charged for it, in USD, as the runtime recorded it; null: not reported. */
  cost: number | null;
  /** "provider/model". */
  model: string | undefined;
  /** The runtime's agent that made the call (OpenCode's `build`, `plan`, a subagent's…), when recorded. */
  agent?: string;
  family: ProviderFamily;
  /** What the runtime sent besides the conversation depends on: agent, model, tools, system. */
  runtime: string;
}

export type TimelineEvent = 'compaction' | 'pruning' | 'skill' | 'overhead_change' | 'hidden_reasoning' | 'unexplained';

export interface TimelinePoint {
  /** 1-based number of the model call in the session (main calls only). */
  call: number;
  messageId: string;
  at: number;
  promptTokens: number;
  runtimeOverhead: number;
  bySource: Record<SourceId, number>;
  /** Hidden reasoning the provider kept in this prompt (measured). */
  hiddenReasoning: number;
  /** What no item, image, hidden reasoning or runtime change explains, carried since. */
  unexplained: number;
  /** The model called, and the tokenizer that shared its growth. */
  model: string | null;
  tokenizer: string;
  /** The largest items this call added, with what they cost (`measured`: the provider's growth, not an estimate). */
  added: { key: string; label: string; source: SourceId; tokens: number; measured: boolean }[];
  /** Everything this call added: its items' estimate, and the hidden reasoning its prompt gained (measured). */
  addedEstimate: number;
  hiddenAdded: number;
  /** What its prompt lost besides: earlier reasoning the provider dropped at this user message. */
  dropped: number;
  events: TimelineEvent[];
}

export interface RuntimeChange {
  messageId: string;
  call: number;
  delta: number;
  /** What the rows show changed: agent, model, tools, system prompt, instructions, skills. */
  reason: string;
  /** A re-measure held to what the runtime is made of (calibration-steps.ts `boundRuntime`). */
  bound?: RuntimeBound;
}

/** What a re-measured runtime was held to, and what of it could not agree. */
export interface RuntimeBound {
  /** What the call's prompt left for the runtime. */
  measured: number;
  /** What the runtime is made of, by `basis`, and the range a measure must fall in to agree with it. */
  expected: number;
  basis: 'recorded definitions' | 'the runtime before the switch';
  low: number;
  high: number;
  /** Measured beyond the range, booked as unexplained (0: it agreed). */
  unexplained: number;
}

/** What the runtime is made of for a call, where something tells (the definitions recorded for its agent and model). */
export type RuntimeExpected = (call: ModelCall) => number | null;

export interface CalibrationInput {
  /** The session's messages, calls and window, as the runtime adapter reads them. */
  session: SessionShape;
  /** Per message, every item it can put in view (both forms of a pruned output). */
  items: readonly (readonly Item[])[];
  /** Instructions and the skill catalog: in every request, from the first call on. */
  alwaysLoaded: readonly Item[];
  usage: UsageInput | null;
  /** Files the runtime puts in every request that changed on disk, and when (instructions, skills). */
  /** When the runtime's prompt may have changed: a file on disk (`what` changed), or the definitions (`reason`). */
  changes?: readonly { at: number; what: string; reason?: string }[];
  /** Per message, how many times its hidden reasoning is sent (analyze.ts `reasoningCopies`). */
  reasoningCopies?: readonly (number | undefined)[];
  /** The context as of this main call (1-based, measured), instead of the agent's latest total. */
  asOfCall?: number;
  /** What the runtime is made of for a call's agent and model, where it was recorded (the live agent). */
  runtimeExpected?: RuntimeExpected;
}

export interface Calibration {
  /** What each item, source and remainder cost over the session (null: no call was walked). */
  cost: SessionCost | null;
  /** measured: step data explains the total; scaled: none (or contradicting), estimates scaled to the total. */
  mode: 'measured' | 'scaled' | 'estimate-only';
  /** Why the report fell back to scaling although calls were measured. */
  scaledBecause?: 'contradicting';
  /** What is in context now (the next request), in request order. */
  view: Item[];
  /** Tokens of each item of `view` as measured at the reference call (absent: pending). */
  measured: Map<string, number>;
  /** Whether each of those came from measured growth or fell back to its estimate. */
  measuredBasis: Map<string, 'measured' | 'estimated'>;
  runtimeOverhead: number | null;
  /** Where the runtime was measured, and every later change the rows showed. */
  runtimeChanges: RuntimeChange[];
  reference: { messageId: string; promptTokens: number; call: number; matchesUsage: boolean } | null;
  /** The agent's total is the prompt of a compaction call (the history sent to be summarised). */
  totalIsCompaction: boolean;
  /** In view now but added after the reference call: not in the agent's total yet (unless `afterLastCall`). */
  pending: Item[];
  /** In the reference call, gone from the context since (pruned or compacted after it). */
  left: { items: number; tokens: number; reason: 'pruned' | 'compacted' | 'both' | null };
  /** Hidden reasoning the provider kept in the reference call's prompt, by the call that produced it. */
  hidden: { tokens: number; calls: { call: number; messageId: string; tokens: number }[] };
  /** The agent's total is newer than every persisted call: the gap, shared by what was added since. */
  afterLastCall: { tokens: number; shares: Map<string, number> } | null;
  /** Tokens no source, image, hidden reasoning or runtime change explains (at the reference, and any gap to the total). */
  unexplained: number;
  /** Visible reasoning the provider was shown to not count (measured): in no source. */
  notReceived: Item[];
  /** What the provider does with reasoning, as the session's counts show it, and which of it they could show. */
  policy: ReasoningPolicy;
  asks: { hidden: boolean; turn: boolean; reasoning: boolean; reasoningTurn: boolean };
  /** The provider's documented rule, and how the session's counts stood to it. */
  rule: RuleJudgement;
  /** How many reasoning parts the provider dropped at later user messages (of `notReceived`). */
  droppedAtTurn: number;
  /** @deprecated the runtime changes as deltas (`runtimeChanges`). */
  overheadChanges: { messageId: string; delta: number }[];
  timeline: TimelinePoint[];
  /** Calls that measured a prompt (the numbered ones), and those that measured none. */
  calls: number;
  uncountedCalls: number;
  /** History messages (before the latest compaction, outside its tail). */
  history: number[];
}

/** What the provider does with reasoning, for a whole session. */
export interface ReasoningPolicy {
  /** Keeps a call's hidden reasoning in the next prompt (OpenAI, Anthropic). */
  keepsHidden: boolean;
  /** Drops the hidden reasoning it kept at a new user message. */
  dropsAtTurn: boolean;
  /** Counts the visible reasoning sent back (a local model may not). */
  receives: boolean;
  /** Counts it only for the current turn: earlier turns' reasoning is dropped at a new user message (DeepSeek, GLM). */
  reasoningTurnOnly: boolean;
  /** …except the reasoning of a turn that made tool calls, kept for the session (DeepSeek's thinking mode). */
  keepsToolTurns?: boolean;
}

/** What a provider keeps of earlier reasoning, as it documents it (provider-rules.ts). */
export interface ReasoningRule {
  id: string;
  /** Whose rule, through which API, for which models. */
  provider: string;
  /** What the provider keeps, in words; without a rule, why there is none. */
  says: string;
  /** The questions of the reasoning policy the rule answers; the counts decide the rest. */
  answers: Partial<ReasoningPolicy>;
  /** Where it is written (absent: no rule). */
  source?: { url: string; quote: string };
}

/** The questions a reasoning policy answers, by the walk's name for each (`Calibration.asks`). */
export type PolicyQuestion = 'hidden' | 'turn' | 'reasoning' | 'reasoningTurn';

/**
 * One call's counts on one question of the policy: the growth the rule's answer leaves
 * unexplained against the other answer's, where at least REASONING_AT_STAKE tokens were at stake.
 */
export interface PolicyVote {
  call: number;
  question: PolicyQuestion;
  /** The reasoning the two answers differ by. */
  stake: number;
  /** What each answer leaves of the call's growth beyond its new items' estimates. */
  ruleResidual: number;
  otherResidual: number;
  /** Which answer the counts favour by more than half the stake (neither: too close to tell). */
  favours: 'rule' | 'other' | 'neither';
}

/** How the session's counts stood to the provider's rule (reasoning-policy.ts `judgeRule`). */
export interface RuleJudgement {
  rule: ReasoningRule;
  /** The model whose rule it is, and the session's other models with another rule. */
  model: string | null;
  others: string[];
  /** The calls whose counts tested the rule (stake ≥ REASONING_AT_STAKE, at a clean boundary). */
  votes: PolicyVote[];
  /** Questions the counts overturned: they contradicted the rule overwhelmingly. */
  overturned: PolicyQuestion[];
  /** Questions the counts contradicted, not overwhelmingly: the rule kept. */
  contradicted: PolicyQuestion[];
}

/** What a runtime keeps of a session but never sends, by kind. */
export type ExcludedKind = 'history' | 'notReceived' | keyof Omissions;

/** The runtime's own words in the report: what it leaves out and why, and how it compacts. */
export interface RuntimeWords {
  excluded: Record<ExcludedKind, { label: string; reason: string }>;
  /** Its own prompt, as a noun phrase ("OpenCode's own system prompt, environment and tool schemas"). */
  ownPrompt: string;
  /** What pruning is called ("pruned by OpenCode"). */
  pruned: string;
  /** How the runtime compacts at this window, for the notes; null: nothing to say. */
  windowNote(window: ContextWindow): string | null;
}

// ── Cost over the session (costs.ts) ──

/** Per-token prices (money per token), as the session's costs and counts show them. */
export interface Prices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What one bucket (an item, the runtime, hidden reasoning…) cost over the session. */
export interface Spend {
  /** Money, in the currency of the calls' costs. */
  money: number;
  /** Prompt tokens billed (every call it was in, again), of which read from the cache. */
  input: number;
  cacheRead: number;
  /** Output tokens it was produced with. */
  output: number;
  /** Calls it was billed in. */
  calls: number;
}

export type CostBucket = 'runtime' | 'hidden_reasoning' | 'unexplained' | 'compaction';

export interface SessionCost {
  /** Σ of the calls' costs; null when no call reported one. */
  total: number | null;
  calls: number;
  callsWithCost: number;
  /** Calls whose cost was 0 (a free or unpriced model). */
  freeCalls: number;
  tokens: { input: number; cacheRead: number; cacheWrite: number; output: number };
  prices: Prices | null;
  /** The prices reproduce every call's cost (to a millionth), or only approximately (tiers, rounding). */
  pricesFit: 'exact' | 'approximate' | null;
  /**
   * Where no call reported a cost: the calls were priced from the catalog's list prices
   * (catalog-prices.ts), and this says whose and what they are. Absent: the calls' own costs.
   */
  pricesSource?: string;
  /** By item key: what each item cost (items no longer in view included). */
  items: Map<string, Spend & { source: SourceId }>;
  /** Keys of items that left the view before the end. */
  left: Set<string>;
  buckets: Record<CostBucket, Spend>;
  /**
   * Money per prompt token carried into a call, in the latest priced call (what one token more
   * or less costs each later call, cache reads and fresh input as that call had them); null: no
   * call was priced.
   */
  perCallRate: number | null;
  /** Tokens read from and written to the cache by the priced calls. */
  pricedCache: { read: number; write: number };
}

// ── The runtime item in parts (runtime-parts.ts) ──

/**
 * What the runtime was for a session, as recorded where the agent ran (`session_runtime`): its
 * definitions in its own shape, as JSON text, for one key (agent and model); read by the runtime
 * adapter only.
 */
export interface RecordedRuntime {
  key: string;
  /** The session whose call made this one (a subagent's session). */
  parentSessionId: string | null;
  recordedAt: number;
  definitions: string | null;
}

export type RuntimePartKind = 'system_prompt' | 'agent_prompt' | 'environment' | 'tool' | 'mcp_server' | 'framing';

/** One part of the runtime's own prompt, as the adapter estimates it from the recorded definitions. */
export interface RuntimePartEstimate {
  kind: Exclude<RuntimePartKind, 'framing'>;
  label: string;
  estimate: number;
  /** The tool's name, or the MCP server's. */
  name?: string;
  /** An MCP server's tools (as sent), each with its own estimate. */
  tools?: { name: string; estimate: number }[];
}

/** Parts measured with the pinned runtime rather than recorded where the session ran (an import): which, and its version. */
export interface MeasuredWith {
  runtime: string;
  version: string;
}

/** The adapter's answer: the parts for that call, or why there are none. */
export type RuntimePartsEstimate =
  | { parts: RuntimePartEstimate[]; recordedAt: number; notes: string[]; measuredWith?: MeasuredWith }
  | { reason: string };

/** A part of the measured runtime item: its share of it (Σ = the item), and its own estimate. */
export interface RuntimePart extends Omit<RuntimePartEstimate, 'kind' | 'tools'> {
  kind: RuntimePartKind;
  tokens: number;
  /** A tool: whether the session ever called it; an MCP server: each of its tools. */
  called?: boolean;
  tools?: { name: string; estimate: number; called: boolean }[];
}

export type RuntimeSplit =
  | {
      parts: RuntimePart[];
      /** What the parts' estimates add up to, and the measured item they share. */
      estimated: number;
      measured: number;
      recordedAt: number;
      agent: string | null;
      model: string | null;
      notes: string[];
      measuredWith?: MeasuredWith;
    }
  | { reason: string };

/** What a subagent's own session consumed, as its report tells it (null: its session is not stored). */
export interface SubagentSummary {
  /** Its context at its last measured call (its report's total). */
  total: number | null;
  contextSize: number | null;
  calls: number;
  /** Its largest sources (and remainder rows), largest first. */
  largest: { id: string; label: string; tokens: number }[];
  cost: { amount: number; currency: string } | null;
}

// ── Advice (suggestions.ts; the runtime's own changes: RuntimeAdvice) ──

/** A suggestion as its kind makes it: what it frees in tokens (a bound when `upTo`), not yet in shares and money. */
export interface SuggestionDraft extends Omit<
  Suggestion,
  'frees' | 'change' | 'oneTime' | 'breakEvenCalls' | 'paysBack'
> {
  /** What the next call's prompt loses if the change is made now (0: it only prevents growth). */
  tokens: number;
  upTo?: boolean;
  /** Part of `tokens` is estimated (a summary not yet written). */
  estimate?: boolean;
  /** What making it costs once, in tokens, priced in price.ts. */
  once?: OneTimeTokens;
  /** What the change acts on: the history (a compaction ends it anyway) or the runtime's configuration. */
  horizon?: 'history' | 'configuration';
  change?: Change;
}

/**
 * A change's one-time cost in tokens: the next prompt's tokens the provider reads uncached
 * again (`uncached`), and a call of its own the change makes (a compaction's summary call).
 */
export interface OneTimeTokens {
  uncached: number;
  call?: { input: number; output: number };
  basis: string;
}

/** A line of a file as a read showed it to the model: its number in the file, its text. */
export interface FileLine {
  n: number;
  text: string;
}

/** The narrower read a large file read could have been (narrower-read.ts). */
export interface NarrowerRead {
  /** How many lines the file has, as the read said. */
  totalLines: number;
  /** The section to read instead, by line number (inclusive), and what it is. */
  range?: { from: number; to: number; what: string };
  /** A fixed string to search the file for, how many of its lines hold it, and what it is. */
  pattern?: { text: string; lines: number; what: string };
}

/** What a change to the runtime's configuration turns off: the fragment, and what it really removes. */
export interface ConfigChange {
  /** The fragment, as JSON text the runtime accepts as its configuration. */
  text: string;
  /** The tools (by the names the model is sent) it removes from every request of the agent. */
  tools: string[];
  /** The MCP servers it turns off whole (their instructions too). */
  servers: string[];
  /** Tools named that it cannot remove on their own, with why. */
  kept: { tool: string; why: string }[];
  /** The file it goes in, when not the runtime's configuration file (Claude Code: a skill's SKILL.md). */
  file?: string;
}

/** The runtime's own ways to turn off what a session never used, as changes a user can paste. */
export interface RuntimeAdvice {
  /** Where a configuration fragment goes, in words ("the workspace's opencode.json"). */
  readonly configFile: string;
  /** That file's path in the workspace ("opencode.json"), for the change's `file`. */
  readonly configPath: string;
  /**
   * For `agent` (null: every agent): the tools never called (built-in, and each MCP server's by
   * the names the model is sent; `whole` when none of that server's was called).
   */
  unusedTools(what: {
    agent: string | null;
    /** Every built-in tool the model is sent, and of those the ones never called. */
    sent: readonly string[];
    tools: readonly string[];
    mcp: readonly { server: string; tools: readonly string[]; whole: boolean }[];
    config: AgentConfig | undefined;
  }): ConfigChange;
  /** Keeps `agent` from loading a skill (and drops it from the agent's skill catalog). */
  unusedSkill(what: { agent: string | null; skill: string }): ConfigChange;
  /** A file's lines as a read tool's output showed them to the model; null: not a read output. */
  fileLines(text: string): { lines: FileLine[]; total: number } | null;
  /**
   * History changes made by hand in the runtime's own interface: `notLive`, those its live agent
   * is not asked for here; `own`, how to make each in its interface (absent: OpenCode's words).
   */
  readonly byHand?: { notLive: readonly string[]; own: Readonly<Record<string, string>> };
}

// ── The report's input ──────────────────────────────────────────────────────────────────────

export interface ReportInput {
  workspaceId: string;
  sessionId: string | null;
  generatedAt: string;
  snapshotId: string;
  estimator: { id: EstimatorId; method: string };
  /** The agent runtime: its name, its own item's label, its words for what it leaves out, its advice. */
  runtime: { name: string; label: string; words: RuntimeWords; advice?: RuntimeAdvice };
  /** The agent of the call the total describes (null: not recorded). */
  agent?: string | null;
  /** What the model quoted (`code spans`) in each message in view, in view order. */
  quotes?: { messageId: string; quotes: string[] }[];
  /** The narrower read each large file read could have been, by item key. */
  narrowing?: ReadonlyMap<string, NarrowerRead>;
  workspace: WorkspaceSnapshot;
  calibration: Calibration;
  history: { messages: number; bytes: number };
  omissions: Omissions;
  usage: UsageInput | null;
  provider: { messageId: string; tokens: Tokens; convention: TokenConvention; prompt: number } | null;
  /** The model requests go to ("provider/model"), for its limits. */
  targetModel?: string | undefined;
  /** The model's window as the runtime budgets it. */
  window: ContextWindow | null;
  /** How the provider family charges an image, by its published rule (for the images' note). */
  imageRule?: string;
  /** The report describes this earlier call (its prompt is the total). */
  asOf?: { call: number; of: number; messageId: string; at: number };
  /** Skill names each message mentions, in view order (for "loaded but never used"). */
  mentions: { messageId: string; names: string[] }[];
  /** The runtime's request view with a change made (absent: the runtime builds none). */
  next?: NextPromptFacts;
  /** The latest reply's text, for a new session's hand-off (absent: none). */
  latestReply?: string;
  /** The runtime item in parts (absent: not measured), or why it stays one block. */
  runtimeSplit?: RuntimeSplit;
  /** The subagents' sessions the session's calls made, by session id (null: not stored here). */
  subagents?: ReadonlyMap<string, SubagentSummary | null>;
  /** This session is a subagent's: the session whose call made it. */
  parentSessionId?: string;
  /** Where an imported session came from (contract §8). */
  origin?: SessionOrigin;
  warnings: string[];
  itemsLimit: number | 'all';
}

/**
 * The prompt the runtime would send next with a change made, through its own request view
 * (OpenCode: opencode/next-prompt.ts). Message ids; the items of the kept messages are what the
 * next call still carries.
 */
export interface NextPromptFacts {
  /** The messages in view now, in request order, with their role. */
  messages: readonly { id: string; role: 'user' | 'assistant' }[];
  /** Compact now: the messages kept (its tail), and where the tail starts. */
  afterCompaction(tokensOf: (messageId: string) => number, preserve: number): { kept: string[]; tailStartId?: string };
  /** Revert to before `messageId`: the messages kept (null: no such message in the session). */
  afterRevert(messageId: string): { kept: string[] } | null;
  /** Output tokens of the session's earlier compaction summaries. */
  summaries: readonly number[];
  /** The runtime's fixed text of a compaction request, as the next call sends it. */
  compactionRequestText: string;
  /** `compaction.preserve_recent_tokens` for a usable window (the tail's budget). */
  preserveRecent(usable: number | null): number;
  /**
   * A new session: the messages whose items its first prompt carries again (Claude Code attaches
   * its instructions and listings to every session's first prompt). Absent: none (OpenCode's
   * new session is its own prompt and the hand-off).
   */
  afterNewSession?(): { kept: string[] };
  /**
   * The summary's size when the session has no earlier one to go by, and why (absent: OpenCode's
   * template); null: nothing bounds it, and compacting now gets no figure.
   */
  summaryFallback?: { tokens: number; basis: string } | null;
}

/** An item as the report counts it: its estimate and what it costs in the total. */
export interface Counted {
  item: Item;
  scaled: number | null;
  measured: boolean;
  order: number;
}

/** Where an imported session came from (its import's record): no agent ever reports on it. */
export interface SessionOrigin {
  kind: string;
  title: string | null;
  directory: string | null;
  files?: string[];
  /** The runtime version it ran, as its import recorded it. */
  version?: string | null;
}
