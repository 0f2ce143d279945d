/**
 * OpenCode's persisted message format (MessageV2 of opencode-ai 1.18.33,
 * packages/opencode/src/session/message-v2.ts), read tolerantly: rows come from another
 * program, so every field is checked and what cannot be read becomes a warning, never an
 * exception. The engine, the chat's message view, the demo builder and the tests all read
 * messages through this module. Browser-safe: no Node APIs.
 */

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** Texts OpenCode puts in front of the model in place of stored parts (toModelMessages). */
export const OPENCODE_TEXT = {
  prunedOutput: '[Old tool result content cleared]',
  interruptedTool: '[Tool execution was interrupted]',
  compactionRequest: 'What did we do so far?',
  subtask: 'The following tool was executed by the user',
  toolMedia: 'Attached media from tool result:',
  readCall: 'Called the Read tool with the following input: ',
} as const;

export interface Tokens {
  total?: number;
  input: number;
  output: number;
  reasoning: number;
  /** null when the provider reported no cache figures: never invented as 0. */
  cacheRead: number | null;
  cacheWrite: number | null;
}

export interface MessageInfo {
  role: 'user' | 'assistant';
  parentID?: string;
  providerID?: string;
  modelID?: string;
  agent?: string;
  /** The model a user message asked for. */
  model?: { providerID: string; modelID: string };
  /** Assistant: a compaction summary. */
  summary: boolean;
  finish?: string;
  /** The error's name (e.g. "MessageAbortedError", "APIError"), when there is one. */
  error?: string;
  tokens?: Tokens;
  /** Σ of its steps' costs (USD), when reported. */
  cost?: number;
  path?: { cwd?: string; root?: string };
  time: { created?: number; completed?: number };
  /**
   * What a user message asked of the runtime besides its text — the tools it turned on or off,
   * a system prompt of its own, a variant — as one comparable string: a change means OpenCode's
   * own prompt and tool schemas may have changed.
   */
  runtime?: string;
}

export interface TextPart {
  type: 'text';
  text: string;
  synthetic: boolean;
  ignored: boolean;
  metadata?: Json;
}
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  metadata?: Json;
}
export interface FilePart {
  type: 'file';
  mime: string;
  filename?: string;
  url: string;
  sourcePath?: string;
}
export type ToolStatus = 'pending' | 'running' | 'completed' | 'error';
export interface ToolPart {
  type: 'tool';
  tool: string;
  callID?: string;
  status: ToolStatus;
  input: Json;
  /** The input as OpenCode stored it, for counting (it may not be an object in bad rows). */
  rawInput: unknown;
  output?: string;
  error?: string;
  title?: string;
  metadata: Json;
  attachments: FilePart[];
  time: { start?: number; end?: number; compacted?: number };
}
export interface StepFinishPart {
  type: 'step-finish';
  tokens?: Tokens;
  /** What the provider charged for this step, in USD, as OpenCode priced it (absent: not reported). */
  cost?: number;
  reason?: string;
}
export interface CompactionPart {
  type: 'compaction';
  auto: boolean;
  overflow: boolean;
  tailStartId?: string;
}
export interface SubtaskPart {
  type: 'subtask';
  prompt: string;
  description: string;
  agent?: string;
}
/** Parts OpenCode keeps for itself and never sends: step-start, snapshot, patch, agent, retry. */
export interface BookkeepingPart {
  type: 'step-start' | 'snapshot' | 'patch' | 'agent' | 'retry';
}
export interface UnknownPart {
  type: 'unknown';
  name: string | null;
}

export type Part =
  | TextPart
  | ReasoningPart
  | FilePart
  | ToolPart
  | StepFinishPart
  | CompactionPart
  | SubtaskPart
  | BookkeepingPart
  | UnknownPart;

const BOOKKEEPING = new Set(['step-start', 'snapshot', 'patch', 'agent', 'retry']);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** A cost as OpenCode stores it: a finite, non-negative number (0 is "free" or "not priced"). */
const money = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

export function parseTokens(value: unknown): Tokens | undefined {
  if (!isObject(value)) return undefined;
  const cache: Json = isObject(value.cache) ? value.cache : {};
  const input = num(value.input);
  if (input === undefined) return undefined;
  const total = num(value.total);
  return {
    ...(total === undefined ? {} : { total }),
    input,
    output: num(value.output) ?? 0,
    reasoning: num(value.reasoning) ?? 0,
    cacheRead: num(cache.read) ?? null,
    cacheWrite: num(cache.write) ?? null,
  };
}

/** Reads `info`; anything that is not an object is read as a user message, with a warning. */
export function parseInfo(value: unknown, warn: (message: string) => void): MessageInfo {
  if (!isObject(value)) {
    warn('info is not a JSON object; read as a user message');
    return { role: 'user', summary: false, time: {} };
  }
  const role = value.role === 'assistant' ? 'assistant' : 'user';
  if (value.role !== 'assistant' && value.role !== 'user') warn(`info.role is ${describe(value.role)}; read as user`);
  const time = isObject(value.time) ? value.time : {};
  const model = isObject(value.model) ? value.model : undefined;
  const path = isObject(value.path) ? value.path : undefined;
  const error = value.error;
  const errorName =
    error === undefined || error === null ? undefined : isObject(error) ? (str(error.name) ?? 'error') : 'error';
  const tokens = parseTokens(value.tokens);
  const runtime = [value.tools, value.system, value.variant].some((v) => v !== undefined && v !== null)
    ? JSON.stringify([value.tools ?? null, value.system ?? null, value.variant ?? null])
    : undefined;
  return {
    role,
    ...(str(value.parentID) ? { parentID: str(value.parentID) } : {}),
    ...(str(value.providerID) ? { providerID: str(value.providerID) } : {}),
    ...(str(value.modelID) ? { modelID: str(value.modelID) } : {}),
    ...(str(value.agent) ? { agent: str(value.agent) } : {}),
    ...(model && str(model.providerID) && str(model.modelID)
      ? { model: { providerID: str(model.providerID)!, modelID: str(model.modelID)! } }
      : {}),
    summary: value.summary === true,
    ...(str(value.finish) ? { finish: str(value.finish) } : {}),
    ...(errorName ? { error: errorName } : {}),
    ...(tokens ? { tokens } : {}),
    ...(money(value.cost) !== undefined ? { cost: money(value.cost) } : {}),
    ...(path ? { path: { cwd: str(path.cwd), root: str(path.root) } } : {}),
    time: { created: num(time.created), completed: num(time.completed) },
    ...(runtime ? { runtime } : {}),
  };
}

function parseFile(value: Json): FilePart {
  const source = isObject(value.source) ? value.source : {};
  return {
    type: 'file',
    mime: str(value.mime) ?? 'application/octet-stream',
    ...(str(value.filename) ? { filename: str(value.filename) } : {}),
    url: str(value.url) ?? '',
    ...(str(source.path) ? { sourcePath: str(source.path) } : {}),
  };
}

/** Reads one part; `null` when the part cannot be read at all (with a warning). */
export function parsePart(value: unknown, warn: (message: string) => void): Part | null {
  if (!isObject(value)) {
    warn('part is not a JSON object; skipped');
    return null;
  }
  const type = str(value.type);
  switch (type) {
    case 'text':
    case 'reasoning': {
      const text = value.text;
      if (typeof text !== 'string') {
        warn(`${type} part has ${describe(text)} where text belongs; not counted`);
        return null;
      }
      const metadata = isObject(value.metadata) ? { metadata: value.metadata } : {};
      return type === 'text'
        ? { type, text, synthetic: value.synthetic === true, ignored: value.ignored === true, ...metadata }
        : { type, text, ...metadata };
    }
    case 'file':
      return parseFile(value);
    case 'tool':
      return parseTool(value, warn);
    case 'step-finish': {
      const tokens = parseTokens(value.tokens);
      return {
        type,
        ...(tokens ? { tokens } : {}),
        ...(money(value.cost) !== undefined ? { cost: money(value.cost) } : {}),
        ...(str(value.reason) ? { reason: str(value.reason) } : {}),
      };
    }
    case 'compaction':
      return {
        type,
        auto: value.auto === true,
        overflow: value.overflow === true,
        ...(str(value.tail_start_id) ? { tailStartId: str(value.tail_start_id) } : {}),
      };
    case 'subtask':
      return {
        type,
        prompt: str(value.prompt) ?? '',
        description: str(value.description) ?? '',
        ...(str(value.agent) ? { agent: str(value.agent) } : {}),
      };
    default:
      if (type && BOOKKEEPING.has(type)) return { type: type as BookkeepingPart['type'] };
      warn(`unknown part type ${JSON.stringify(type ?? null)}; not counted`);
      return { type: 'unknown', name: type ?? null };
  }
}

function parseTool(value: Json, warn: (message: string) => void): ToolPart {
  const tool = str(value.tool) ?? 'unknown';
  const state = isObject(value.state) ? value.state : null;
  if (!state) warn(`tool part "${tool}" has no state object; counted as an interrupted call`);
  const s = state ?? {};
  let status = str(s.status) as ToolStatus | undefined;
  if (state && !['pending', 'running', 'completed', 'error'].includes(status ?? '')) {
    warn(`tool "${tool}" has unknown status ${JSON.stringify(status ?? null)}; counted as interrupted`);
    status = undefined;
  }
  if (s.input !== undefined && !isObject(s.input)) warn(`tool "${tool}" input is ${describe(s.input)}, not an object`);
  if (status === 'completed' && typeof s.output !== 'string') {
    warn(`tool "${tool}" output is ${describe(s.output)}, not text; counted as empty`);
  }
  const time = isObject(s.time) ? s.time : {};
  const compacted = num(time.compacted);
  return {
    type: 'tool',
    tool,
    ...(str(value.callID) ? { callID: str(value.callID) } : {}),
    status: status ?? 'running',
    input: isObject(s.input) ? s.input : {},
    rawInput: s.input ?? {},
    ...(status === 'completed' ? { output: str(s.output) ?? '' } : {}),
    ...(status === 'error' ? { error: typeof s.error === 'string' ? s.error : JSON.stringify(s.error ?? '') } : {}),
    ...(str(s.title) ? { title: str(s.title) } : {}),
    metadata: isObject(s.metadata) ? s.metadata : {},
    attachments: Array.isArray(s.attachments) ? s.attachments.filter(isObject).map(parseFile) : [],
    time: {
      start: num(time.start),
      end: num(time.end),
      ...(compacted !== undefined || (time.compacted !== undefined && time.compacted !== null)
        ? { compacted: compacted ?? 0 }
        : {}),
    },
  };
}

/** A tool output OpenCode pruned: the model sees the placeholder instead. */
export const isPruned = (part: ToolPart): boolean => part.time.compacted !== undefined;

/** The model a message was produced by or asked for, as "provider/model". */
export function modelKey(info: MessageInfo): string | undefined {
  if (info.providerID && info.modelID) return `${info.providerID}/${info.modelID}`;
  if (info.model) return `${info.model.providerID}/${info.model.modelID}`;
  return undefined;
}

// The dynamic workspace context (contract §1) is investibook's own block, the same for every
// runtime: src/shared/workspace-context.ts.
export {
  WORKSPACE_CONTEXT_OPEN,
  isWorkspaceContext,
  parseWorkspaceContext,
  workspaceContextText,
  escapeXml,
  unescapeXml,
  type ContextSection,
} from '../workspace-context';

// ---------------------------------------------------------------------------------------------
// Files attached to a prompt: OpenCode reads them at prompt time into two synthetic text parts,
// "Called the Read tool with the following input: {…}" and the read output.

/** The read input of a synthetic "Called the Read tool…" text; null when it is not one. */
export function parseReadCall(text: string): { input: Json | null } | null {
  if (!text.startsWith(OPENCODE_TEXT.readCall)) return null;
  try {
    const input: unknown = JSON.parse(text.slice(OPENCODE_TEXT.readCall.length));
    return { input: isObject(input) ? input : null };
  } catch {
    return { input: null };
  }
}

/** Nested instructions a read appended (`<system-reminder>` with "Instructions from: PATH"). */
export interface Reminder {
  from: string;
  text: string;
}

const REMINDER_BLOCK = /\n*<system-reminder>\n?([\s\S]*?)\n?<\/system-reminder>/g;
const INSTRUCTIONS_FROM = /^Instructions from: ([^\n]+)\n/;

/** Cuts the instruction reminders out of a read output: the body and the reminders apart. */
export function splitReminders(output: string): { body: string; reminders: Reminder[] } {
  if (!output.includes('<system-reminder>')) return { body: output, reminders: [] };
  const reminders: Reminder[] = [];
  const body = output.replace(REMINDER_BLOCK, (whole: string, inner: string) => {
    // One block may carry several files, each "Instructions from: PATH\n…", joined by blank lines.
    const pieces = inner.split(/\n\n(?=Instructions from: )/);
    if (!pieces.every((piece) => INSTRUCTIONS_FROM.test(piece))) return whole;
    // The tags and the gap before them go with the first and last file of the block.
    const last = pieces.length - 1;
    pieces.forEach((piece, k) => {
      const head =
        k === 0 ? whole.slice(0, whole.indexOf('<system-reminder>') + '<system-reminder>'.length) + '\n' : '';
      const tail = k === last ? '\n</system-reminder>' : '';
      reminders.push({ from: INSTRUCTIONS_FROM.exec(piece)![1]!.trim(), text: `${head}${piece}${tail}` });
    });
    return '';
  });
  return { body, reminders };
}
