/**
 * The heart of the engine: what one persisted message puts in the model's context, and which
 * semantic source it belongs to. Pure: parsed JSON in, contributions out. Tolerates any shape:
 * what it cannot read becomes a warning, never an exception.
 */
import { fmtBytes } from '../../shared/format';
import { isSourceId, type SourceId } from '../../shared/wire';
import { BPE_SAMPLE_LIMIT, type Estimator } from './estimator';
import { classifyPath, describeScope, toWorkspacePath } from './paths';

export interface Contribution {
  source: SourceId;
  label: string;
  sourceRef: string;
  tokens: number;
  bytes: number;
  path?: string;
  /** Reads with the same key are the same content read again. */
  readKey?: string;
  /** The text itself, only when the context asks to keep it (content pages, reader). */
  text?: string;
}

/** What a message leaves out of the context, by kind (added up into `excluded`). */
export interface Omissions {
  prunedOutputs: { count: number; bytes: number };
  ignoredText: { count: number; bytes: number };
  attachmentBodies: { count: number; bytes: number };
  bookkeeping: { count: number; bytes: number };
}

export interface MessageAnalysis {
  contributions: Contribution[];
  omissions: Omissions;
  warnings: string[];
  /** Provider-reported tokens when this is an assistant message that carries them. */
  providerTokens: ProviderTokens | null;
  /** Enabled skills this message names outside of loading them (for "loaded but never used"). */
  mentions: string[];
}

export interface ProviderTokens {
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
}

export interface AttributionContext {
  estimator: Estimator;
  /** Workspace root now; roots recorded in assistant info are added per message. */
  root: string;
  instructionFiles: ReadonlySet<string>;
  /** Keep each contribution's text (costs memory; for content pages and the reader only). */
  keepText?: boolean;
  /** Enabled skill names to look for in the conversation. */
  skillNames?: readonly string[];
}

export const PRUNED_PLACEHOLDER = '[Old tool result content cleared]';
export const INTERRUPTED_PLACEHOLDER = '[Tool execution was interrupted]';
export const COMPACTION_PROMPT = 'What did we do so far?';

/** Parts OpenCode keeps for its own bookkeeping and never sends to the model. */
const NOT_SENT = new Set(['step-start', 'step-finish', 'patch', 'snapshot', 'agent', 'retry']);

const READ_CALL = /^Called the Read tool with the following input: (.*)$/s;
const REMINDER = /(\n*)(<system-reminder>\s*Instructions from: ([^\n]+)\n[\s\S]*?<\/system-reminder>)/g;
const SECTION = /<section\s+source="([^"]*)"\s+label="([^"]*)"\s*>[\s\S]*?<\/section>/g;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

export function emptyOmissions(): Omissions {
  return {
    prunedOutputs: { count: 0, bytes: 0 },
    ignoredText: { count: 0, bytes: 0 },
    attachmentBodies: { count: 0, bytes: 0 },
    bookkeeping: { count: 0, bytes: 0 },
  };
}

export function analyzeMessage(
  id: string,
  info: unknown,
  parts: unknown,
  context: AttributionContext,
): MessageAnalysis {
  const analysis: MessageAnalysis = {
    contributions: [],
    omissions: emptyOmissions(),
    warnings: [],
    providerTokens: null,
    mentions: [],
  };
  const infoObject = isObject(info) ? info : {};
  if (!isObject(info)) analysis.warnings.push(`messages_v2/${id}: info is not a JSON object; read as a user message`);
  const role = infoObject.role === 'assistant' ? 'assistant' : 'user';
  if (role === 'assistant') analysis.providerTokens = providerTokensOf(infoObject.tokens);
  const recordedRoot = isObject(infoObject.path) ? str(infoObject.path.root) : undefined;
  const roots = recordedRoot && recordedRoot !== context.root ? [context.root, recordedRoot] : [context.root];

  if (!Array.isArray(parts)) {
    analysis.warnings.push(`messages_v2/${id}: parts is not a JSON array; skipped`);
    return analysis;
  }
  const walker = new PartWalker(id, role, infoObject, roots, context, analysis);
  parts.forEach((part, index) => walker.visit(part, index));
  walker.finish();
  return analysis;
}

function providerTokensOf(tokens: unknown): ProviderTokens | null {
  if (!isObject(tokens)) return null;
  const cache = isObject(tokens.cache) ? tokens.cache : {};
  return {
    input: num(tokens.input),
    output: num(tokens.output),
    cacheRead: num(cache.read),
    cacheWrite: num(cache.write),
  };
}

class PartWalker {
  /** A "Called the Read tool…" part waiting for its output part. */
  private pendingRead: { path: string | null; raw: string; index: number } | null = null;

  constructor(
    private readonly messageId: string,
    private readonly role: 'user' | 'assistant',
    private readonly info: Json,
    private readonly roots: readonly string[],
    private readonly context: AttributionContext,
    private readonly analysis: MessageAnalysis,
  ) {}

  private ref(index: number, suffix = ''): string {
    return `messages_v2/${this.messageId}/parts/${index}${suffix}`;
  }

  private warn(index: number, message: string): void {
    this.analysis.warnings.push(`${this.ref(index)}: ${message}`);
  }

  private add(
    source: SourceId,
    label: string,
    sourceRef: string,
    texts: readonly string[],
    extra: Partial<Contribution> = {},
  ): void {
    let tokens = 0;
    let bytes = 0;
    for (const text of texts) {
      tokens += this.context.estimator.count(text);
      bytes += utf8Bytes(text);
      if (this.context.estimator.id === 'bpe' && text.length > BPE_SAMPLE_LIMIT) {
        this.analysis.warnings.push(`${sourceRef}: ${fmtBytes(bytes)} of text; its tokens were estimated from samples`);
      }
    }
    const loads = extra.readKey?.startsWith('skill:') ? extra.readKey.slice('skill:'.length) : null;
    for (const name of this.context.skillNames ?? []) {
      if (name === loads || this.analysis.mentions.includes(name)) continue;
      if (texts.some((text) => text.includes(name))) this.analysis.mentions.push(name);
    }
    const contribution: Contribution = { source, label, sourceRef, tokens, bytes, ...extra };
    if (this.context.keepText) contribution.text = texts.join('\n');
    this.analysis.contributions.push(contribution);
  }

  visit(part: unknown, index: number): void {
    if (!isObject(part)) {
      this.warn(index, 'part is not a JSON object; skipped');
      return;
    }
    const type = str(part.type);
    if (type !== 'text') this.flushPendingRead();
    switch (type) {
      case 'text':
        return this.text(part, index);
      case 'reasoning':
        return this.reasoning(part, index);
      case 'tool':
        return this.tool(part, index);
      case 'file':
        return this.file(part, index);
      case 'compaction':
        return this.add('conversation', 'Compaction request', this.ref(index), [COMPACTION_PROMPT]);
      case 'subtask': {
        const text = str(part.prompt) ?? str(part.description) ?? '';
        return this.add('conversation', `Subtask: ${preview(str(part.description) ?? text)}`, this.ref(index), [text]);
      }
      default:
        if (type && NOT_SENT.has(type)) {
          this.analysis.omissions.bookkeeping.count++;
          this.analysis.omissions.bookkeeping.bytes += utf8Bytes(JSON.stringify(part));
          return;
        }
        this.warn(index, `unknown part type ${JSON.stringify(type ?? null)}; not counted`);
    }
  }

  /** Flushes a read call whose output part never came (it still costs its own text). */
  finish(): void {
    this.flushPendingRead();
  }

  private flushPendingRead(): void {
    if (!this.pendingRead) return;
    const { path, raw, index } = this.pendingRead;
    this.pendingRead = null;
    this.readItem(path, index, [raw], ' (attached)');
  }

  private text(part: Json, index: number): void {
    const text = part.text;
    if (typeof text !== 'string') {
      this.flushPendingRead();
      this.warn(index, `text part has ${describe(text)} where text belongs; not counted`);
      return;
    }
    if (part.ignored === true) {
      this.flushPendingRead();
      this.analysis.omissions.ignoredText.count++;
      this.analysis.omissions.ignoredText.bytes += utf8Bytes(text);
      return;
    }
    if (part.synthetic === true) return this.synthetic(text, index);
    this.flushPendingRead();
    if (this.role === 'assistant') {
      const label = this.info.summary === true ? 'Compaction summary' : `Assistant reply: ${preview(text)}`;
      this.add('conversation', label, this.ref(index), [text]);
    } else {
      this.add('conversation', `User message: ${preview(text)}`, this.ref(index), [text]);
    }
  }

  private synthetic(text: string, index: number): void {
    const call = READ_CALL.exec(text);
    if (call) {
      this.flushPendingRead();
      let path: string | null = null;
      try {
        const input: unknown = JSON.parse(call[1]!);
        const recorded = isObject(input) ? (str(input.filePath) ?? str(input.path)) : undefined;
        path = recorded === undefined ? null : toWorkspacePath(recorded, this.roots);
      } catch {
        this.warn(index, 'attached read call has invalid JSON input; counted as unknown');
      }
      this.pendingRead = { path, raw: text, index };
      return;
    }
    if (this.pendingRead && text.trimStart().startsWith('<path>')) {
      const { path, raw } = this.pendingRead;
      this.pendingRead = null;
      const { body, reminders } = splitReminders(text);
      this.readItem(path, index, [raw, body], ' (attached)');
      this.reminderItems(reminders, index);
      return;
    }
    this.flushPendingRead();
    if (text.includes('<workspace-context>')) return this.workspaceContext(text, index);
    this.add('conversation', `Synthetic prompt text: ${preview(text)}`, this.ref(index), [text]);
  }

  private workspaceContext(text: string, index: number): void {
    let rest = text;
    let n = 0;
    for (const match of text.matchAll(SECTION)) {
      const [whole, sourceAttr, label] = match;
      let source: SourceId = 'conversation';
      if (isSourceId(sourceAttr)) source = sourceAttr;
      else
        this.warn(
          index,
          `workspace-context section has unknown source ${JSON.stringify(sourceAttr)}; counted as Conversation`,
        );
      this.add(source, `Workspace context: ${unescapeXml(label!)}`, this.ref(index, `#section-${n++}`), [whole]);
      rest = rest.replace(whole, '');
    }
    if (rest.trim()) this.add('conversation', 'Workspace context: framing', this.ref(index, '#framing'), [rest]);
  }

  private reasoning(part: Json, index: number): void {
    const text = str(part.text);
    if (text === undefined) {
      this.warn(index, `reasoning part has ${describe(part.text)} where text belongs; not counted`);
      return;
    }
    if (text.trim() === '') return;
    this.add('assistant_reasoning', `Reasoning: ${preview(text)}`, this.ref(index), [text]);
  }

  private file(part: Json, index: number): void {
    const mime = str(part.mime) ?? 'unknown type';
    const url = str(part.url) ?? '';
    const source = isObject(part.source) ? part.source : {};
    const name = str(part.filename) ?? str(source.path) ?? (url.split('/').pop() || 'unnamed');
    let size = '';
    const dataUrl = /^data:[^;,]*(;base64)?,/.exec(url);
    if (dataUrl) {
      const body = url.length - dataUrl[0].length;
      const decoded = dataUrl[1] ? Math.floor((body * 3) / 4) : body;
      size = `, ${fmtBytes(decoded)}`;
      this.analysis.omissions.attachmentBodies.count++;
      this.analysis.omissions.attachmentBodies.bytes += body;
    }
    const label = `Attachment: ${name} (${mime}${size})`;
    // The model sees the attachment's description, never its base64 body here.
    const meta = JSON.stringify({ type: 'file', mime, filename: name, ...(dataUrl ? {} : { url }) });
    this.add('attachment_metadata', label, this.ref(index), [meta]);
  }

  private tool(part: Json, index: number): void {
    const tool = str(part.tool) ?? 'unknown';
    const state = isObject(part.state) ? part.state : null;
    if (!state) {
      this.warn(index, `tool part "${tool}" has no state object; counted as an interrupted call`);
      this.add('unknown_tool_payload', `Tool call: ${tool} (no state)`, this.ref(index), [INTERRUPTED_PLACEHOLDER]);
      return;
    }
    const input = isObject(state.input) ? state.input : {};
    if (state.input !== undefined && !isObject(state.input))
      this.warn(index, `tool "${tool}" input is ${describe(state.input)}, not an object`);
    const inputText = JSON.stringify(state.input ?? {});
    const status = str(state.status);
    const time = isObject(state.time) ? state.time : {};
    const metadata = isObject(state.metadata) ? state.metadata : {};

    const texts: string[] = [inputText];
    let suffix = '';
    let reminders: Reminder[] = [];
    if (status === 'completed') {
      let output = typeof state.output === 'string' ? state.output : '';
      if (typeof state.output !== 'string')
        this.warn(index, `tool "${tool}" output is ${describe(state.output)}, not text; counted as empty`);
      if (time.compacted !== undefined && time.compacted !== null) {
        this.analysis.omissions.prunedOutputs.count++;
        this.analysis.omissions.prunedOutputs.bytes += utf8Bytes(output);
        output = PRUNED_PLACEHOLDER;
        suffix = ' (output cleared)';
      } else {
        ({ body: output, reminders } = splitReminders(output));
      }
      texts.push(output);
      for (const attachment of Array.isArray(state.attachments) ? state.attachments : []) {
        if (isObject(attachment)) texts.push(`${str(attachment.filename) ?? ''} ${str(attachment.mime) ?? ''}`);
      }
    } else if (status === 'error') {
      texts.push(typeof state.error === 'string' ? state.error : JSON.stringify(state.error ?? ''));
      suffix = ' (error)';
    } else if (status === 'pending' || status === 'running') {
      texts.push(INTERRUPTED_PLACEHOLDER);
      suffix = ' (interrupted)';
    } else {
      this.warn(index, `tool "${tool}" has unknown status ${JSON.stringify(status ?? null)}; counted as interrupted`);
      texts.push(INTERRUPTED_PLACEHOLDER);
      suffix = ' (interrupted)';
    }

    const recordedPath = str(input.filePath) ?? str(input.path);
    const path = recordedPath === undefined ? undefined : toWorkspacePath(recordedPath, this.roots);
    const tag = isObject(metadata.investibook) ? metadata.investibook.source : undefined;
    if (tag !== undefined && !isSourceId(tag))
      this.warn(index, `investibook source tag ${JSON.stringify(tag)} is not a source id; ignored`);

    let source: SourceId;
    let label: string;
    let readKey: string | undefined;
    const classified = path === undefined || path === null ? null : classifyPath(path, this.context.instructionFiles);
    if (tool === 'skill') {
      const name = str(input.name) ?? str(metadata.name) ?? 'unnamed';
      source = 'skills_knowledge';
      label = `Loaded skill: ${name}`;
      readKey = `skill:${name}`;
    } else if (tool === 'read' && path !== undefined) {
      source = classified?.source ?? 'unknown_tool_payload';
      label = classified?.readLabel ?? `Read file outside the workspace: ${recordedPath}`;
      const range = [input.offset, input.limit].map((v) => (typeof v === 'number' ? v : '')).join(':');
      if (path !== null) readKey = `read:${path}:${range}`;
      if (range !== ':') label += ` (lines ${describeRange(input.offset, input.limit)})`;
    } else {
      source = classified?.source ?? 'unknown_tool_payload';
      label = `Tool call: ${tool} — ${toolSummary(tool, input, path)}`;
    }
    if (isSourceId(tag)) source = tag;
    this.add(source, label + suffix, this.ref(index), texts, {
      ...(path ? { path } : {}),
      ...(readKey && suffix === '' ? { readKey } : {}),
    });
    this.reminderItems(reminders, index);
  }

  private readItem(path: string | null, index: number, texts: string[], suffix: string): void {
    const classified = path === null ? null : classifyPath(path, this.context.instructionFiles);
    const source = classified?.source ?? 'unknown_tool_payload';
    const label = (classified?.readLabel ?? 'Read file outside the workspace') + suffix;
    this.add(source, label, this.ref(index), texts, path === null ? {} : { path, readKey: `read:${path}::` });
  }

  private reminderItems(reminders: Reminder[], index: number): void {
    reminders.forEach((reminder, n) => {
      const path = toWorkspacePath(reminder.from, this.roots) ?? reminder.from;
      this.add(
        'agent_instructions',
        `Instructions: ${path} (loaded with a read)`,
        this.ref(index, `#reminder-${n}`),
        [reminder.text],
        {
          path,
        },
      );
    });
  }
}

interface Reminder {
  from: string;
  text: string;
}

/** Cuts `<system-reminder>Instructions from: …` blocks out of a read output. */
export function splitReminders(output: string): { body: string; reminders: Reminder[] } {
  if (!output.includes('<system-reminder>')) return { body: output, reminders: [] };
  const reminders: Reminder[] = [];
  const body = output.replace(REMINDER, (_whole, _gap: string, block: string, from: string) => {
    reminders.push({ from: from.trim(), text: block });
    return '';
  });
  return { body, reminders };
}

function toolSummary(tool: string, input: Json, path: string | null | undefined): string {
  const command = str(input.command);
  if (command !== undefined) return preview(command, 60);
  const pattern = str(input.pattern) ?? str(input.query);
  if (pattern !== undefined) {
    const scope = path === undefined ? '' : ` in ${describeScope(path)}`;
    return `"${preview(pattern, 40)}"${scope}`;
  }
  if (path !== undefined) return describeScope(path);
  const first = Object.values(input).find((value) => typeof value === 'string');
  return typeof first === 'string' ? preview(first, 60) : tool;
}

function describeRange(offset: unknown, limit: unknown): string {
  const start = typeof offset === 'number' ? offset : 1;
  return typeof limit === 'number' ? `${start}–${start + limit - 1}` : `${start}–end`;
}

export function preview(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function unescapeXml(text: string): string {
  return text.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}
