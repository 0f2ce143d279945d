/**
 * The seam between the report and an agent runtime. The core knows sources, estimates, the
 * calibration by the provider's counts and the report; everything that depends on how one agent
 * runtime stores a session and builds its requests is behind this interface: how a stored row
 * reads, which messages the next request holds and in what form, which model calls were made
 * and what the provider counted for each, what the runtime loads into every request from the
 * workspace, how its tools are attributed to sources, and how it budgets the window.
 *
 * OpenCode is the first implementation (core/opencode/); docs/architecture.md has the recipe for
 * another. Only core/opencode/** may import the OpenCode format module (lint).
 */
import type { TranscriptMessage, TranscriptRow } from '../../shared/transcript';
import type { ContextWindow } from '../../shared/wire';
import type { ProviderFamily } from './providers';
import type {
  AgentConfig,
  AttributionContext,
  Contribution,
  Estimator,
  NextPromptFacts,
  RuntimeAdvice,
  RecordedRuntime,
  RuntimeAnalysis,
  RuntimePathRule,
  RuntimePartsEstimate,
  RuntimeWords,
  SessionShape,
  TokenConvention,
  Tokens,
  UsageInput,
  WorkspaceSnapshot,
} from './types';

/** A call whose runtime item is split: its agent and model, and when it was made. */
export interface RuntimeCall {
  agent: string | null;
  model: string | null;
  at?: number;
}

/** One stored message's JSON columns, parsed (undefined: not valid JSON — warned by the core). */
export interface ParsedRow {
  id: string;
  info: unknown;
  parts: unknown;
}

/**
 * What the session-wide steps need of one message, without its content: cheap to keep for every
 * message and memoised by the core (by id and stamp). `H` is the runtime's own form.
 */
export interface Header<H = unknown> {
  id: string;
  /** Bytes of the stored row (the excluded history is told in bytes). */
  size: number;
  data: H;
  /**
   * The sessions this message's calls made (subagents'), named by its parts: the caller reads
   * them with the session (a superset of the items' subagents is fine; one missing is named
   * without its figures).
   */
  sessions?: readonly string[];
}

/** What the analysis of every message depends on besides the message itself. */
export interface SessionFacts {
  /** "provider/model" the next request goes to. */
  targetModel: string | undefined;
  /** Its provider family: the tokenizer that estimates best, and the vision rule. */
  family: ProviderFamily;
  /** Folders the agent recorded it ran in (for absolute paths in messages that record none). */
  sessionRoots: string[];
}

/** The provider's latest count, as the report's `provider` block tells it. */
export interface LatestCount {
  messageId: string;
  tokens: Tokens;
  convention: TokenConvention;
  prompt: number;
}

/** Where the runtime reads the workspace: pure rules; the service does the reading. */
export interface WorkspaceLayout {
  /** Config files, in the order they apply (a later one wins). */
  configFiles: readonly string[];
  /** A config file's text as the runtime parses it. */
  parseConfig(text: string): { parsed: unknown } | { error: string };
  /** Instruction files to read, from the configs' parsed JSON (warnings for entries not followed). */
  instructionPaths(
    configs: readonly { path: string; parsed: unknown }[],
    root: string,
    warn: (message: string) => void,
  ): string[];
  /** Compaction settings and model limits, from the configs. */
  agentConfig(configs: readonly { path: string; parsed: unknown }[]): AgentConfig;
  /** Folders whose sub-folders hold one enabled skill each, and the file that defines it. */
  skillDirs: readonly string[];
  /** The runtime's own folders whose reads belong to a source, before the source table's rules. */
  pathRules: readonly RuntimePathRule[];
  skillFile: string;
  /** A skill file's name and description (frontmatter). */
  skillMeta(text: string): { name?: string; description?: string };
  /** Folders the runtime keeps beside the skills but never loads (told as excluded, with their size). */
  excludedDirs: readonly { dir: string; label: string; reason: string }[];
}

export interface AgentRuntime<H = unknown> {
  /** Stable id, part of every memo key ("opencode@1.18.33"). */
  readonly id: string;
  /** What the rows it wrote say in messages_v2.runtime ("opencode"): the report reads them with it. */
  readonly rows: string;
  /** The runtime's name in the report's words ("OpenCode"). */
  readonly name: string;
  /** Its own part of every request, which the server never sees: label and explanation. */
  readonly runtimeItem: { label: string; text: string };
  /** Its words in the report: what it leaves out and why, how it compacts. */
  readonly words: RuntimeWords;
  readonly layout: WorkspaceLayout;

  /**
   * The chat's transcript of its rows (shared/transcript.ts): one message a row, in the rows'
   * order — a session's rows of this runtime together, since a call's answer may be in a later row.
   * Absent: the chat shows its rows as messages it cannot show.
   */
  chatTranscript?(rows: readonly TranscriptRow[]): TranscriptMessage[];

  /** A row's header (warnings name the message). */
  header(row: ParsedRow, size: number, warn: (message: string) => void): Header<H>;
  /** What every message's analysis depends on, from all headers. */
  facts(headers: readonly Header<H>[]): SessionFacts;
  /** Indices of the messages the next request holds (the others are history). */
  liveWindow(headers: readonly Header<H>[]): readonly number[];
  /** The session as the calibration walks it: messages, model calls and their counts, the window. */
  session(headers: readonly Header<H>[], usage: UsageInput | null): SessionShape;
  /** The provider's latest count. */
  latestCount(headers: readonly Header<H>[], usage: UsageInput | null): LatestCount | null;

  /**
   * One message as the next request holds it: parsed, put through the runtime's request view,
   * attributed to sources by its rules (`light`: history, no duplicate keys or mentions).
   */
  analyze(row: ParsedRow, context: AttributionContext & { facts: SessionFacts; light: boolean }): RuntimeAnalysis;
  /** What the runtime puts in every request from the workspace (instructions, the skill catalog). */
  alwaysLoaded(workspace: WorkspaceSnapshot): Contribution[];
  /** The prompt it would send next with a change made, through its request view (absent: it builds none). */
  nextPrompt?(headers: readonly Header<H>[]): NextPromptFacts;
  /** How the runtime's own configuration turns off what a session never used (absent: it has none). */
  readonly advice?: RuntimeAdvice;
  /** The model's window as the runtime budgets it (auto-compaction point). */
  window(usage: UsageInput | null, config: AgentConfig | undefined, model: string | undefined): ContextWindow | null;
  /**
   * Its own item in parts, each with an estimate, for a call of `agent` to `model`: from the
   * definitions recorded where the agent ran (never by asking the runtime); the reason in words
   * when none fit. Absent: this runtime records none, and its item stays one block.
   */
  runtimeParts?(records: readonly RecordedRuntime[], call: RuntimeCall, estimator: Estimator): RuntimePartsEstimate;
  /** Where the recorded definitions show the runtime's own prompt changed, and why, in words. */
  definitionChanges?(records: readonly RecordedRuntime[]): { at: number; what: string; reason: string }[];
}
