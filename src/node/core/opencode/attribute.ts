/**
 * What each sent part puts in the model's context, and which semantic source it belongs to.
 * Pure: a message's view (request-view.ts) in, contributions out. A tool call's input and
 * result go to one source, decided by the first rule that applies (contract §3): an explicit
 * `state.metadata.investibook.source`, the `skill` tool, the path in its input, workspace paths
 * named in a shell command (the largest file if several), else Unknown tool payload.
 */
import { fmtBytes } from '../../../shared/format';
import {
  isObject,
  isWorkspaceContext,
  parseReadCall,
  parseWorkspaceContext,
  splitReminders,
  type Json,
  type Reminder,
  type ToolPart,
} from '../../../shared/opencode/format';
import { isSourceId, type SourceId } from '../../../shared/sources';
import { keyHash } from '../hash';
import { dataUrlImageSize } from '../images';
import { classifyPath, toWorkspacePath } from '../paths';
import { preview, utf8Bytes } from '../text';
import type { AttributionContext, Contribution, DeclaredSource, MessageContributions } from '../types';
import { isMedia, type MessageView, type SentPart, type StoredMessage } from './request-view';
import { toolScope, type ToolClass } from '../tool-rules';
import { toolRule } from './tools';

export function attributeMessage(
  message: StoredMessage,
  view: MessageView,
  context: AttributionContext,
): MessageContributions {
  const out: MessageContributions = { contributions: [], mentions: [], warnings: [] };
  if (view.skipped) return out;
  const roots = recordedRoots(message, context.root);
  for (const root of context.sessionRoots ?? []) if (!roots.includes(root)) roots.push(root);
  const walker = new Walker(message, roots, context, out);
  walker.walk(view.sent);
  return out;
}

/**
 * Where absolute paths of a message are read from: the workspace folder now, else the folder
 * the agent ran in (`info.path.cwd`: the workspace folder, where the agent is started), else its
 * worktree (`info.path.root`). A worktree of "/" (OpenCode outside a git repository) says
 * nothing and is never used.
 */
export function recordedRoots(message: Pick<StoredMessage, 'info'>, root?: string): string[] {
  const roots = root === undefined ? [] : [root];
  for (const recorded of [message.info.path?.cwd, message.info.path?.root]) {
    if (recorded && recorded !== '/' && !roots.includes(recorded)) roots.push(recorded);
  }
  return roots;
}

class Walker {
  /** The folder the agent ran in, relative to the workspace ('' at its root). */
  private readonly cwdInside: string;
  /** Index of each step-finish part: an item's segment is how many come before its part. */
  private readonly stepEnds: number[];

  constructor(
    private readonly message: StoredMessage,
    private readonly roots: readonly string[],
    private readonly context: AttributionContext,
    private readonly out: MessageContributions,
  ) {
    const cwd = message.info.path?.cwd;
    const inside = cwd ? toWorkspacePath(cwd, [context.root, ...roots.slice(1).filter((r) => r !== cwd)]) : null;
    this.cwdInside = inside ?? '';
    this.stepEnds = message.parts.flatMap((part, index) => (part?.type === 'step-finish' ? [index] : []));
  }

  private segmentOf(index: number): number {
    let segment = 0;
    for (const end of this.stepEnds) if (end < index) segment++;
    return segment;
  }

  private contentKey(text: string): { contentKey?: string } {
    return this.context.light ? {} : { contentKey: (this.context.hash ?? keyHash)(text) };
  }

  private ref(index: number, suffix = ''): string {
    return `messages_v2/${this.message.id}/parts/${index}${suffix}`;
  }

  private add(
    source: SourceId,
    label: string,
    sourceRef: string,
    texts: string[],
    extra: Partial<Omit<Contribution, 'source' | 'label' | 'sourceRef' | 'texts' | 'bytes' | 'key'>> & {
      key?: string;
    } = {},
  ): void {
    const { key, ...rest } = extra;
    const bytes = texts.reduce((n, text) => n + utf8Bytes(text), 0);
    for (const name of this.context.light ? [] : (this.context.skillNames ?? [])) {
      if (name === rest.skill || this.out.mentions.includes(name)) continue;
      if (texts.some((text) => text.includes(name))) this.out.mentions.push(name);
    }
    const index = Number(/\/parts\/(\d+)/.exec(sourceRef)?.[1] ?? 0);
    const segment = this.segmentOf(index);
    this.out.contributions.push({
      key: key ?? sourceRef,
      source,
      label,
      sourceRef,
      texts,
      bytes,
      ...(segment > 0 ? { segment } : {}),
      ...rest,
    });
  }

  walk(sent: readonly SentPart[]): void {
    for (let k = 0; k < sent.length; k++) {
      const part = sent[k]!;
      // A file attached to the prompt: "Called the Read tool…" then the read output.
      if (part.kind === 'text' && part.synthetic) {
        const call = parseReadCall(part.text);
        if (call) {
          const next = sent[k + 1];
          const output = next?.kind === 'text' && next.synthetic && !parseReadCall(next.text) ? next : undefined;
          this.attachedRead(part.index, call.input, part.text, output?.text);
          if (output) k++;
          continue;
        }
      }
      this.part(part);
    }
  }

  private part(part: SentPart): void {
    const { index } = part;
    switch (part.kind) {
      case 'text':
        return this.text(part.text, part.synthetic, index);
      case 'reasoning':
        if (part.text.trim() === '') return;
        return this.add('assistant_reasoning', `Reasoning: ${preview(part.text)}`, this.ref(index), [part.text], {
          reasoning: true,
          producedTexts: 1,
        });
      case 'compaction':
        return this.add('conversation', 'Compaction request', this.ref(index), [part.text]);
      case 'subtask':
        return this.add('conversation', `Subtask: ${preview(part.description || part.text)}`, this.ref(index), [
          part.text,
        ]);
      case 'file':
        return this.file(part.file, index);
      case 'tool':
        return this.tool(part, index);
    }
  }

  private text(text: string, synthetic: boolean, index: number): void {
    const { info } = this.message;
    if (synthetic && isWorkspaceContext(text)) return this.workspaceContext(text, index);
    if (info.role === 'assistant') {
      const label = info.summary ? 'Compaction summary' : `Assistant reply: ${preview(text)}`;
      return this.add('conversation', label, this.ref(index), [text], { producedTexts: 1 });
    }
    const label = synthetic ? `Synthetic prompt text: ${preview(text)}` : `User message: ${preview(text)}`;
    this.add('conversation', label, this.ref(index), [text]);
  }

  private workspaceContext(text: string, index: number): void {
    const { sections, framing } = parseWorkspaceContext(text);
    sections.forEach((section, n) => {
      let source: SourceId = 'conversation';
      if (isSourceId(section.source)) source = section.source;
      else
        this.out.warnings.push(
          `${this.ref(index)}: workspace-context section has unknown source ${JSON.stringify(section.source)}; counted as Conversation`,
        );
      this.add(source, `Workspace context: ${section.label}`, this.ref(index, `#section-${n}`), [section.text]);
    });
    if (framing.trim()) this.add('conversation', 'Workspace context: framing', this.ref(index, '#framing'), [framing]);
  }

  private attachedRead(index: number, input: Json | null, callText: string, output: string | undefined): void {
    if (input === null) this.out.warnings.push(`${this.ref(index)}: attached read call has invalid JSON input`);
    const recorded = input ? (str(input.filePath) ?? str(input.path)) : undefined;
    const path = recorded === undefined ? null : toWorkspacePath(recorded, this.roots);
    const classified = path === null ? null : classifyPath(path, this.context);
    const { body, reminders } = output === undefined ? { body: '', reminders: [] } : splitReminders(output);
    const label =
      (classified?.readLabel ?? `Read file outside the workspace: ${recorded ?? 'unnamed'}`) + ' (attached)';
    this.add(
      // A file outside every root is still a file by its path (contract §3).
      classified?.source ?? (recorded === undefined ? 'unknown_tool_payload' : 'issue_source_files'),
      label,
      this.ref(index),
      output === undefined ? [callText] : [callText, body],
      {
        ...(path === null ? {} : { path, readKey: `read:${path}::`, ...this.contentKey(body) }),
      },
    );
    this.reminders(reminders, index);
  }

  private file(file: { mime: string; filename?: string; url: string; sourcePath?: string }, index: number): void {
    const name = file.filename ?? file.sourcePath ?? (file.url.split('/').pop() || 'unnamed');
    let size = '';
    const dataUrl = /^data:[^;,]*(;base64)?,/.exec(file.url);
    if (dataUrl) {
      const body = file.url.length - dataUrl[0].length;
      size = `, ${fmtBytes(dataUrl[1] ? Math.floor((body * 3) / 4) : body)}`;
    }
    // The model gets the file itself: its description, and for an image what the provider
    // charges for seeing it. A file of the workspace counts where its path belongs.
    const meta = JSON.stringify({
      type: 'file',
      mime: file.mime,
      filename: name,
      ...(dataUrl ? {} : { url: file.url }),
    });
    const recorded = file.sourcePath ?? (file.url.startsWith('file://') ? decodeURI(file.url.slice(7)) : undefined);
    const path = recorded === undefined ? null : toWorkspacePath(recorded, this.roots);
    const classified = path === null ? null : classifyPath(path, this.context);
    const source =
      classified && classified.source !== 'unknown_tool_payload' ? classified.source : 'attachment_metadata';
    this.add(source, `Attachment: ${name} (${file.mime}${size})`, this.ref(index), [meta], {
      ...(path ? { path } : {}),
      ...(isMedia(file.mime) ? { images: [mediaOf(file)] } : {}),
    });
  }

  private tool(part: Extract<SentPart, { kind: 'tool' }>, index: number): void {
    const { tool: call, result } = part;
    const name = call.tool;
    const inputText = JSON.stringify(call.rawInput);
    let suffix = '';
    let output = result.text;
    let reminders: Reminder[] = [];
    switch (result.form) {
      case 'output':
        ({ body: output, reminders } = splitReminders(result.text));
        break;
      case 'pruned':
        suffix = ' (output cleared)';
        break;
      case 'error':
        suffix = ' (error)';
        break;
      case 'interrupted':
      case 'interrupted-output':
        suffix = ' (interrupted)';
        break;
    }
    const texts = [`${name} ${inputText}`, output];
    const images: NonNullable<Contribution['images']> = [];
    if (result.form === 'output') {
      for (const media of result.media) {
        texts.push(`${media.filename ?? ''} ${media.mime}${isMedia(media.mime) ? ' (media)' : ''}`);
        if (isMedia(media.mime)) images.push(mediaOf(media));
      }
    }
    const { source, label, path, readKey, skill, subagent, folder } = this.classifyTool(call, index);
    const pruned = result.form === 'pruned';
    if (pruned) {
      // Before OpenCode pruned it, the whole output was sent: calls made until then saw that.
      this.add(source, label, this.ref(index), [`${name} ${inputText}`, call.output ?? ''], {
        producedTexts: 1,
        tool: name,
        ...(path ? { path } : {}),
        ...(folder ? { folder } : {}),
        ...(skill ? { skill } : {}),
        until: call.time.compacted ?? 0,
      });
    }
    this.add(source, label + suffix, this.ref(index), texts, {
      key: pruned ? this.ref(index, '#pruned') : this.ref(index),
      producedTexts: 1,
      tool: name,
      ...(subagent ? { subagent } : {}),
      ...(images.length ? { images } : {}),
      ...(path ? { path } : {}),
      ...(folder ? { folder } : {}),
      ...(readKey && result.form === 'output' ? { readKey, ...this.contentKey(output) } : {}),
      ...(skill ? { skill } : {}),
      ...(pruned ? { from: call.time.compacted ?? 0 } : {}),
    });
    this.reminders(reminders, index);
  }

  /** The semantic source of a tool call, its label and what it read: its tool's rule, then an explicit tag. */
  private classifyTool(call: ToolPart, index: number): ToolClass {
    const decided = toolRule({ name: call.tool, input: call.input, metadata: call.metadata })(
      { name: call.tool, input: call.input, metadata: call.metadata },
      toolScope(this.roots, this.cwdInside, this.context, this.message.info.path?.cwd),
    );
    const tag = isObject(call.metadata.investibook) ? call.metadata.investibook.source : undefined;
    const known = (id: unknown): id is string =>
      isSourceId(id) || (this.context.declared ?? []).some((d) => d.id === id);
    if (tag !== undefined && !known(tag))
      this.out.warnings.push(
        `${this.ref(index)}: investibook source tag ${JSON.stringify(tag)} is not a source id; ignored`,
      );
    if (known(tag)) return { ...decided, source: tag };
    // The workspace's own claims come next (contract §3): the tool by name, or its MCP server.
    const claim = declaredTool(call.tool, this.context.declared);
    return claim ? { ...decided, source: claim.id } : decided;
  }

  private reminders(reminders: Reminder[], index: number): void {
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

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The declaration that claims a tool: by its name, or as `mcp:SERVER` for a tool named `SERVER_…`. */
function declaredTool(name: string, declared: readonly DeclaredSource[] | undefined): DeclaredSource | null {
  return (
    declared?.find((d) =>
      d.tools.some((claim) => claim === name || (claim.startsWith('mcp:') && name.startsWith(`${claim.slice(4)}_`))),
    ) ?? null
  );
}

/** An image's type and, when its bytes are in a data URL, its size. */
function mediaOf(file: { mime: string; url: string }): { mime: string; width?: number; height?: number } {
  const size = dataUrlImageSize(file.url);
  return size ? { mime: file.mime, ...size } : { mime: file.mime };
}
