/**
 * OpenCode's request view, reproduced from persisted rows: which messages and parts the model
 * receives, and in what form. It mirrors opencode-ai 1.18.33, session/message-v2.ts:
 *
 * - `filterCompacted` → HistoryWindow: the history starts at the latest *completed* compaction
 *   (a `summary: true` reply with a finish and no error, whose parent user message carries a
 *   `compaction` part). When that part names `tail_start_id`, the messages from there up to the
 *   compaction request stay in view, read after the summary: [request, summary, tail…, rest].
 * - `toModelMessages` → sentParts: per message, which parts go out and as what.
 *
 * Pure: parsed messages in, view out. Each rule names the OpenCode behaviour it mirrors.
 */
import {
  OPENCODE_TEXT,
  isPruned,
  modelKey,
  type FilePart,
  type MessageInfo,
  type Part,
  type ToolPart,
} from '../../../shared/opencode/format';

export interface StoredMessage {
  id: string;
  info: MessageInfo;
  /** Parsed parts, index-aligned with the stored array (null: unreadable, already warned). */
  parts: readonly (Part | null)[];
}

export type ToolResult =
  /** completed: the output, with any attachments */
  | { form: 'output'; text: string; media: FilePart[] }
  /** completed, then pruned (`time.compacted`): the placeholder, attachments dropped */
  | { form: 'pruned'; text: string }
  /** error: the error text */
  | { form: 'error'; text: string }
  /** error with `metadata.interrupted` and `metadata.output`: that output */
  | { form: 'interrupted-output'; text: string }
  /** pending or running: the interrupted placeholder */
  | { form: 'interrupted'; text: string };

export type SentPart =
  | { kind: 'text'; index: number; text: string; synthetic: boolean }
  | { kind: 'reasoning'; index: number; text: string; metadata?: Record<string, unknown> }
  | { kind: 'file'; index: number; file: FilePart }
  | { kind: 'compaction'; index: number; text: string }
  | { kind: 'subtask'; index: number; text: string; description: string }
  | { kind: 'tool'; index: number; tool: ToolPart; result: ToolResult };

export type OmissionKind =
  'ignored-text' | 'file-read-at-prompt' | 'unsigned-reasoning' | 'unencrypted-reasoning' | 'bookkeeping' | 'unknown';

export interface Omission {
  index: number;
  kind: OmissionKind;
  bytes: number;
}

export interface MessageView {
  /** Nothing of this message is sent (why), or null when it is sent. */
  skipped: null | 'error' | 'empty';
  sent: SentPart[];
  omitted: Omission[];
}

export interface ViewOptions {
  /** "provider/model" of the request being built: reasoning of another model goes as text. */
  targetModel?: string | undefined;
  /** Build the view as of this time: outputs pruned later are still whole. Default: now. */
  asOf?: number | undefined;
}

const utf8 = new TextEncoder();
const bytesOf = (text: string): number => utf8.encode(text).length;

/** `isMedia` in OpenCode: images and PDFs. */
export const isMedia = (mime: string): boolean => mime.startsWith('image/') || mime === 'application/pdf';

/** Providers whose SDK drops reasoning without a signature (@ai-sdk/anthropic). */
const needsReasoningSignature = (info: MessageInfo): boolean => /anthropic/i.test(info.providerID ?? '');

export function messageView(message: StoredMessage, options: ViewOptions = {}): MessageView {
  return message.info.role === 'user' ? userView(message) : assistantView(message, options);
}

/** toModelMessages, user branch. */
function userView(message: StoredMessage): MessageView {
  const sent: SentPart[] = [];
  const omitted: Omission[] = [];
  message.parts.forEach((part, index) => {
    if (!part) return;
    switch (part.type) {
      case 'text':
        // `part.type === "text" && !part.ignored && part.text !== ""` (synthetic text is sent)
        if (part.ignored) omitted.push({ index, kind: 'ignored-text', bytes: bytesOf(part.text) });
        else if (part.text !== '') sent.push({ kind: 'text', index, text: part.text, synthetic: part.synthetic });
        return;
      case 'file':
        // "text/plain and directory files are converted into text parts, ignore them"
        if (part.mime === 'text/plain' || part.mime === 'application/x-directory') {
          omitted.push({ index, kind: 'file-read-at-prompt', bytes: 0 });
        } else sent.push({ kind: 'file', index, file: part });
        return;
      case 'compaction':
        sent.push({ kind: 'compaction', index, text: OPENCODE_TEXT.compactionRequest });
        return;
      case 'subtask':
        // The subtask's prompt goes to the subagent; the parent request carries a fixed sentence.
        sent.push({ kind: 'subtask', index, text: OPENCODE_TEXT.subtask, description: part.description });
        return;
      default:
        omitted.push({ index, kind: part.type === 'unknown' ? 'unknown' : 'bookkeeping', bytes: 0 });
    }
  });
  return { skipped: sent.length === 0 ? 'empty' : null, sent, omitted };
}

/** toModelMessages, assistant branch. */
function assistantView(message: StoredMessage, options: ViewOptions): MessageView {
  const { info } = message;
  const sent: SentPart[] = [];
  const omitted: Omission[] = [];
  // `msg.info.error && !(AbortedError && parts beyond step-start/reasoning)` → not sent at all.
  if (info.error) {
    const aborted = info.error === 'MessageAbortedError';
    const substantive = message.parts.some((p) => p !== null && p.type !== 'step-start' && p.type !== 'reasoning');
    if (!aborted || !substantive) return { skipped: 'error', sent, omitted };
  }
  const own = modelKey(info);
  const otherModel = options.targetModel !== undefined && own !== undefined && own !== options.targetModel;
  message.parts.forEach((part, index) => {
    if (!part) return;
    switch (part.type) {
      case 'text':
        if (part.text !== '') sent.push({ kind: 'text', index, text: part.text, synthetic: part.synthetic });
        return;
      case 'reasoning': {
        // Another model's reasoning goes as plain text when non-empty; the same model's as
        // reasoning, which the Anthropic SDK drops unless it carries a signature.
        if (otherModel) {
          if (part.text.trim() !== '') sent.push({ kind: 'reasoning', index, text: part.text });
          return;
        }
        const signed = isSignedReasoning(part.metadata);
        if (needsReasoningSignature(info) && !signed) {
          omitted.push({ index, kind: 'unsigned-reasoning', bytes: bytesOf(part.text) });
        } else if (sendsEncryptedReasoningOnly(info, part.metadata) && !hasEncryptedReasoning(part.metadata)) {
          // OpenAI's Responses API without stored items: only reasoning with its encrypted content goes back.
          omitted.push({ index, kind: 'unencrypted-reasoning', bytes: bytesOf(part.text) });
        } else if (part.text !== '' || hasEncryptedReasoning(part.metadata))
          sent.push({
            kind: 'reasoning',
            index,
            text: part.text,
            ...(part.metadata ? { metadata: part.metadata } : {}),
          });
        return;
      }
      case 'tool':
        sent.push({ kind: 'tool', index, tool: part, result: toolResult(part, options.asOf) });
        return;
      default:
        omitted.push({ index, kind: part.type === 'unknown' ? 'unknown' : 'bookkeeping', bytes: 0 });
    }
  });
  return { skipped: sent.length === 0 ? 'empty' : null, sent, omitted };
}

/**
 * Providers on OpenAI's SDK with `store: false` (OpenCode's default for openai and azure): a
 * reasoning part is sent back as an item with its `encrypted_content`, or not at all.
 */
const sendsEncryptedReasoningOnly = (info: MessageInfo, metadata: Record<string, unknown> | undefined): boolean =>
  /^(openai|azure)$/i.test(info.providerID ?? '') || typeof metadata?.openai === 'object';

function hasEncryptedReasoning(metadata: Record<string, unknown> | undefined): boolean {
  for (const key of ['openai', 'azure']) {
    const value = metadata?.[key] as { reasoningEncryptedContent?: unknown } | undefined;
    if (typeof value?.reasoningEncryptedContent === 'string' && value.reasoningEncryptedContent !== '') return true;
  }
  return false;
}

function isSignedReasoning(metadata: Record<string, unknown> | undefined): boolean {
  const anthropic = metadata?.anthropic;
  return (
    typeof anthropic === 'object' && anthropic !== null && (anthropic as { signature?: unknown }).signature != null
  );
}

/** What a tool part sends back as its result. */
export function toolResult(part: ToolPart, asOf?: number): ToolResult {
  switch (part.status) {
    case 'completed': {
      const pruned = isPruned(part) && (asOf === undefined || (part.time.compacted ?? 0) < asOf);
      return pruned
        ? { form: 'pruned', text: OPENCODE_TEXT.prunedOutput }
        : { form: 'output', text: part.output ?? '', media: part.attachments };
    }
    case 'error': {
      const output = part.metadata.interrupted === true ? part.metadata.output : undefined;
      return typeof output === 'string'
        ? { form: 'interrupted-output', text: output }
        : { form: 'error', text: part.error ?? '' };
    }
    default:
      // "Handle pending/running tool calls to prevent dangling tool_use blocks"
      return { form: 'interrupted', text: OPENCODE_TEXT.interruptedTool };
  }
}

/**
 * filterCompacted, kept up to date one message at a time (messages arrive in id order, which
 * is creation order). `order` lists message indices as the model reads them.
 */
export class HistoryWindow {
  order: number[] = [];
  private readonly indexById = new Map<string, number>();
  /** The latest completed compaction: its request's index, and where its tail starts. */
  lastCompaction: { request: number; summary: number; tailStart: number | null } | null = null;

  constructor(private readonly messages: readonly StoredMessage[]) {}

  /** Adds message `i`; true when it completed a compaction (the view restarted). */
  append(i: number): boolean {
    const message = this.messages[i]!;
    this.indexById.set(message.id, i);
    const { info } = message;
    const completes =
      info.role === 'assistant' && info.summary && info.finish !== undefined && info.error === undefined;
    const request = completes && info.parentID !== undefined ? this.indexById.get(info.parentID) : undefined;
    const compaction =
      request === undefined ? undefined : this.messages[request]!.parts.find((p) => p?.type === 'compaction');
    if (request === undefined || compaction?.type !== 'compaction' || this.messages[request]!.info.role !== 'user') {
      this.order.push(i);
      return false;
    }
    const tail = compaction.tailStartId === undefined ? undefined : this.indexById.get(compaction.tailStartId);
    const tailStart = tail !== undefined && tail < request ? tail : null;
    this.order = [...range(request, i + 1), ...(tailStart === null ? [] : range(tailStart, request))];
    this.lastCompaction = { request, summary: i, tailStart };
    return true;
  }
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
}

/** The messages in view now, in request order, and those left out as history. */
export function liveWindow(messages: readonly StoredMessage[]): {
  order: number[];
  history: number[];
  window: HistoryWindow;
} {
  const window = new HistoryWindow(messages);
  messages.forEach((_, i) => window.append(i));
  const live = new Set(window.order);
  return { order: window.order, history: messages.map((_, i) => i).filter((i) => !live.has(i)), window };
}

/** The model the next request goes to: the latest user message's choice, else the latest reply's. */
export function targetModel(messages: readonly StoredMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const info = messages[i]!.info;
    if (info.role === 'user' && info.model) return modelKey(info);
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const key = modelKey(messages[i]!.info);
    if (key) return key;
  }
  return undefined;
}
