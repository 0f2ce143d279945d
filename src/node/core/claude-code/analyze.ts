/**
 * One Claude Code entry as the next request holds it, attributed to sources (contract §3's
 * order): a prompt or reply is Conversation, visible thinking Assistant reasoning, a tool call's
 * input and its result (in the next user entry) the source its tool's rule decides — the result
 * by the call it answers, which the session's facts hold — a skill's text Skills & Knowledge, an
 * attachment what it renders for the model: CLAUDE.md as Agent/runtime instructions, the skill
 * listing as Skills & Knowledge, Claude Code's other reminders (environment, model, date,
 * deferred tools, agent types) as Agent/runtime instructions. Pure.
 */
import type { SourceId } from '../../../shared/sources';
import { keyHash } from '../hash';
import { toWorkspacePath } from '../paths';
import type { ParsedRow } from '../runtime';
import { preview, utf8Bytes } from '../text';
import { toolScope } from '../tool-rules';
import { emptyOmissions, type AttributionContext, type Contribution, type RuntimeAnalysis } from '../types';
import { blocksOf, isObject, type Json, type ToolUse } from './entry';
import type { ClaudeCodeFacts } from './facts';
import { toolRule } from './tools';

type Context = AttributionContext & { facts: ClaudeCodeFacts; light: boolean };

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** What a `system`-role reminder is sent as: its text without the `<system-reminder>` wrapper. */
export function systemText(rendered: string): string {
  return rendered.replace(/^<system-reminder>\n?/, '').replace(/\n?<\/system-reminder>$/, '');
}

/** A tool result's content as the model read it. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return blocksOf(content)
    .map((b) => str(b.text))
    .join('\n');
}

class EntryWalk {
  readonly out: RuntimeAnalysis = { contributions: [], mentions: [], warnings: [], omissions: emptyOmissions() };
  readonly roots: string[];
  readonly cwdInside: string;

  constructor(
    readonly row: ParsedRow,
    readonly info: Json,
    readonly context: Context,
  ) {
    const cwd = str(info.cwd);
    this.roots = [context.root, ...(cwd ? [cwd] : []), ...(context.sessionRoots ?? [])];
    this.cwdInside = (cwd && toWorkspacePath(cwd, [context.root])) || '';
  }

  add(source: SourceId, label: string, index: number, texts: string[], extra: Partial<Contribution> = {}): void {
    if (texts.every((t) => t === '')) return;
    const sourceRef = `messages_v2/${this.row.id}/parts/${index}`;
    for (const name of this.context.light ? [] : (this.context.skillNames ?? [])) {
      if (name !== extra.skill && !this.out.mentions.includes(name) && texts.some((t) => t.includes(name)))
        this.out.mentions.push(name);
    }
    this.out.contributions.push({
      key: sourceRef,
      source,
      label,
      sourceRef,
      texts,
      bytes: texts.reduce((n, t) => n + utf8Bytes(t), 0),
      ...extra,
    });
  }

  contentKey(text: string): { contentKey?: string } {
    return this.context.light ? {} : { contentKey: (this.context.hash ?? keyHash)(text) };
  }

  decide(call: ToolUse) {
    const input = { name: call.name, input: call.input, metadata: {} };
    return toolRule(input)(input, toolScope(this.roots, this.cwdInside, this.context));
  }

  assistant(blocks: Json[]): void {
    blocks.forEach((block, i) => {
      if (block.type === 'text')
        this.add('conversation', 'Assistant reply', i, [str(block.text)], { producedTexts: 1 });
      else if (block.type === 'thinking')
        this.add('assistant_reasoning', 'Reasoning', i, [str(block.thinking)], { producedTexts: 1, reasoning: true });
      else if (block.type === 'tool_use') {
        const call: ToolUse = { name: str(block.name), input: isObject(block.input) ? block.input : {} };
        const decided = this.decide(call);
        this.add(decided.source, decided.label, i, [call.name, JSON.stringify(call.input)], {
          producedTexts: 2,
          tool: call.name,
          ...(decided.path ? { path: decided.path } : {}),
          ...(decided.skill ? { skill: decided.skill } : {}),
        });
      } else this.out.omissions.bookkeeping.count++;
    });
  }

  user(blocks: Json[]): void {
    const skillText = this.info.isMeta === true && typeof this.info.sourceToolUseID === 'string';
    blocks.forEach((block, i) => {
      if (block.type === 'tool_result') return this.toolResult(block, i);
      if (block.type !== 'text')
        return this.add('attachment_metadata', `User ${str(block.type)}`, i, [JSON.stringify(block)]);
      const text = str(block.text);
      if (skillText) {
        const skill = /^Base directory for this skill: .*\/([^/\n]+)\n/.exec(text)?.[1] ?? 'unnamed';
        return this.add('skills_knowledge', `Skill text: ${skill}`, i, [text], { skill });
      }
      const origin = isObject(this.info.origin) ? str(this.info.origin.kind) : '';
      // A background task's (a subagent's) report, delivered as a message: a subagent's answer, which in the
      // parent is conversation (contract §3), like the Task tool's result.
      if (origin === 'task-notification') return this.add('conversation', 'Background task report', i, [text]);
      // Claude Code's own notes to the model (isMeta), not the user's words.
      if (this.info.isMeta === true) return this.add('agent_instructions', 'Claude Code note', i, [text]);
      const what = this.info.isCompactSummary === true ? 'Compaction summary' : `User: ${preview(text, 50)}`;
      this.add('conversation', what, i, [text]);
    });
  }

  toolResult(block: Json, i: number): void {
    const call = this.context.facts.toolUses[str(block.tool_use_id)];
    const text = resultText(block.content);
    if (!call) return this.add('unknown_tool_payload', 'Tool result (its call is not in this session)', i, [text]);
    const decided = this.decide(call);
    const readKey = call.name === 'Read' && decided.path ? { readKey: decided.readKey!, ...this.contentKey(text) } : {};
    this.add(decided.source, decided.label, i, [text], {
      tool: call.name,
      ...(decided.path ? { path: decided.path } : {}),
      ...(decided.skill ? { skill: decided.skill } : {}),
      ...(decided.subagent ? { subagent: decided.subagent } : {}),
      ...readKey,
    });
  }

  attachment(): void {
    const attachment = isObject(this.info.attachment) ? this.info.attachment : {};
    const kind = str(attachment.type);
    const rendered = Array.isArray(this.info.rendered) ? this.info.rendered.filter(isObject) : [];
    const asSystem = this.info.renderedRole === 'system';
    // A file Claude Code attaches again after a compaction (as a Read's call and result): a read of it.
    const read =
      kind === 'file' && str(attachment.filename)
        ? this.decide({ name: 'Read', input: { file_path: attachment.filename } })
        : null;
    rendered.forEach((r, i) => {
      const text = asSystem ? systemText(str(r.content)) : str(r.content);
      if (read)
        return this.add(read.source, `${read.label} (attached again)`, i, [text], {
          ...(read.path ? { path: read.path } : {}),
        });
      if (kind === 'skill_listing') return this.add('skills_knowledge', 'Skill listing', i, [text]);
      if (kind !== 'instructions') return this.add('agent_instructions', `Claude Code reminder: ${kind}`, i, [text]);
      const files = Array.isArray(attachment.files) ? attachment.files.filter(isObject) : [];
      const paths = files.map((f) => toWorkspacePath(str(f.path), this.roots) ?? str(f.path));
      this.add('agent_instructions', `Instructions: ${paths.join(', ') || 'CLAUDE.md'}`, i, [text], {
        ...(paths.length === 1 ? { path: paths[0]! } : {}),
      });
    });
  }
}

export function analyzeEntry(row: ParsedRow, context: Context): RuntimeAnalysis {
  const info = isObject(row.info) ? row.info : {};
  const walk = new EntryWalk(row, info, context);
  if (info.isSidechain === true) return walk.out;
  const blocks = blocksOf(row.parts);
  if (info.type === 'assistant') walk.assistant(blocks);
  else if (info.type === 'user') walk.user(blocks);
  else if (info.type === 'attachment') walk.attachment();
  else walk.out.omissions.bookkeeping.count++;
  return walk.out;
}
