/**
 * The ground truth of what a model saw: a recorded chat-completions request split by semantic
 * source with the scripted model's own counting rule (o200k, per-message framing). Written
 * independently of the engine: it reads the request as the model received it — the system
 * prompt's instruction blocks and skill catalog, user and assistant text, tool calls and their
 * results — and a small path table of its own, so the two can disagree.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'shell-quote';
import {
  MESSAGE_FRAMING_TOKENS,
  messagePieces,
  pieceTokens,
  promptTokens,
  REPLY_PRIMING_TOKENS,
  toolSchemaTokens,
  type ChatMessage,
  type ChatRequest,
  type CountingRules,
  type TokenCounter,
} from '../../src/node/scripted-model/prompt-tokens';
import { SOURCE_IDS, type SourceId } from '../../src/shared/wire';

export interface Truth {
  total: number;
  bySource: Record<SourceId, number>;
  /** The system prompt beyond instructions and skills, the tool schemas, framing and priming. */
  runtimeOverhead: number;
  /** Hidden reasoning the provider kept and counted (in no source). */
  hidden: number;
  percent: Record<SourceId, number>;
  hiddenPercent: number;
}

interface Where {
  /** The folder the recording ran in (absolute, as in the request). */
  root: string;
  /** The same workspace now, to size files named by shell commands. */
  localRoot: string;
  instructionFiles: string[];
  /** How the recording's model counted: its tokenizer, vision rule, whether it received reasoning. */
  rules: CountingRules;
  /** Hidden reasoning the model charged on top of the request's visible text. */
  hidden?: number;
}

function sourceOfPath(path: string, where: Where): SourceId | null {
  const rel = path.startsWith(`${where.root}/`)
    ? path.slice(where.root.length + 1)
    : path.startsWith('/')
      ? null
      : path;
  if (rel === null) return null;
  if (where.instructionFiles.includes(rel) || rel.endsWith('AGENTS.md')) return 'agent_instructions';
  if (rel.startsWith('.opencode/skills/') || rel.startsWith('.opencode/skill/')) return 'skills_knowledge';
  if (rel.startsWith('evidence/') || rel === 'evidence') return 'evidence';
  if (rel.startsWith('meta/') || rel === 'meta') return 'cluster_alert_metadata';
  if (rel.startsWith('issues/') || rel.startsWith('sources/')) return 'issue_source_files';
  return null;
}

/**
 * Contract §2/§3 as updated: a tool that names a path outside the table's folders touched the
 * workspace's own files (or files outside it), Issue/source files by path; a command that names
 * none ran in the recording's folder, the workspace; a page is a Web page; the subagent's answer
 * and the agent's todos are conversation.
 */
function sourceOfCall(name: string, args: Record<string, unknown>, where: Where): SourceId {
  if (name === 'skill') return 'skills_knowledge';
  if (name === 'webfetch' || name === 'websearch') return 'web_pages';
  if (name === 'task' || name === 'todowrite' || name === 'question') return 'conversation';
  const path = typeof args.filePath === 'string' ? args.filePath : typeof args.path === 'string' ? args.path : null;
  if (path !== null) return sourceOfPath(path, where) ?? 'issue_source_files';
  if (typeof args.command === 'string') {
    let best: { source: SourceId; size: number } | null = null;
    for (const token of parse(args.command)) {
      if (typeof token !== 'string' || token.startsWith('-')) continue;
      const source = sourceOfPath(token, where);
      if (!source) continue;
      let size = -1;
      try {
        size = statSync(join(where.localRoot, token)).size;
      } catch {
        // not a file: does not count
      }
      if (!best || size > best.size) best = { source, size };
    }
    return best?.source ?? 'issue_source_files';
  }
  if (typeof args.pattern === 'string') return 'issue_source_files';
  return 'unknown_tool_payload';
}

const CATALOG_START = 'Skills provide specialized instructions and workflows for specific tasks.';
const CATALOG_END = '</available_skills>';

export function groundTruth(request: ChatRequest, where: Where): Truth {
  const { rules } = where;
  const count = rules.count;
  const bySource = Object.fromEntries([...SOURCE_IDS, 'web_pages'].map((id) => [id, 0])) as Record<SourceId, number>;
  let overhead = REPLY_PRIMING_TOKENS + toolSchemaTokens(request.tools, rules);
  const callSource = new Map<string, SourceId>();
  let lastTool: SourceId = 'unknown_tool_payload';

  for (const message of request.messages) {
    if (message.role === 'system') {
      overhead += MESSAGE_FRAMING_TOKENS + splitSystem(String(message.content ?? ''), bySource, count);
      continue;
    }
    const pieces = messagePieces(message);
    // An image: the file its read names (an attached file), the tool whose result it was (moved
    // into a user message by OpenCode for providers that take no media in tool results), else an attachment.
    const fromTool = message.role === 'user' && pieces[0]?.text.startsWith('Attached media from tool result');
    let readSource: SourceId | null = null;
    const sources = pieces.map((piece) => {
      if (piece.kind === 'media') return fromTool ? lastTool : (readSource ?? 'attachment_metadata');
      const source = sourceOfPiece(message, piece, where, callSource);
      if (message.role === 'user' && /^Called the Read tool/.test(piece.text)) readSource = source;
      return source;
    });
    if (message.role === 'tool') lastTool = sources[0] ?? lastTool;
    const first = sources[0] ?? 'conversation';
    bySource[first] = (bySource[first] ?? 0) + MESSAGE_FRAMING_TOKENS;
    pieces.forEach((piece, k) => (bySource[sources[k]!] = (bySource[sources[k]!] ?? 0) + pieceTokens(piece, rules)));
  }
  const hidden = where.hidden ?? 0;
  const total = promptTokens(request, rules) + hidden;
  const counted = overhead + hidden + Object.values(bySource).reduce((a, b) => a + b, 0);
  if (counted !== total) throw new Error(`ground truth split ${counted} tokens of ${total}`);
  bySource.agent_instructions += overhead;
  const percent = Object.fromEntries(Object.keys(bySource).map((id) => [id, (bySource[id]! / total) * 100])) as Record<
    SourceId,
    number
  >;
  return { total, bySource, runtimeOverhead: overhead, hidden, percent, hiddenPercent: (hidden / total) * 100 };
}

/** Instruction blocks and the skill catalog out of the system prompt; returns the rest's tokens. */
function splitSystem(system: string, bySource: Record<SourceId, number>, countTokens: TokenCounter): number {
  const whole = countTokens(system);
  let attributed = 0;
  const catalogStart = system.indexOf(CATALOG_START);
  const catalogEnd = system.indexOf(CATALOG_END, catalogStart);
  if (catalogStart >= 0 && catalogEnd > catalogStart) {
    const catalog = countTokens(system.slice(catalogStart, catalogEnd + CATALOG_END.length));
    bySource.skills_knowledge += catalog;
    attributed += catalog;
  }
  const instructionsEnd = catalogStart >= 0 ? catalogStart : system.length;
  let at = system.indexOf('Instructions from: ');
  while (at >= 0 && at < instructionsEnd) {
    const next = system.indexOf('\nInstructions from: ', at + 1);
    const end = next >= 0 && next < instructionsEnd ? next : instructionsEnd;
    const block = countTokens(system.slice(at, end));
    bySource.agent_instructions += block;
    attributed += block;
    at = next >= 0 && next < instructionsEnd ? next + 1 : -1;
  }
  return whole - attributed;
}

function sourceOfPiece(
  message: ChatMessage,
  piece: ReturnType<typeof messagePieces>[number],
  where: Where,
  callSource: Map<string, SourceId>,
): SourceId {
  if (piece.kind === 'reasoning') return 'assistant_reasoning';
  if (piece.kind === 'media') return 'attachment_metadata';
  if (piece.kind === 'tool_call') {
    const call = message.tool_calls!.find((c) => c.id === piece.callId)!;
    let args: Record<string, unknown> = {};
    try {
      args = JSON.parse(call.function?.arguments ?? '{}') as Record<string, unknown>;
    } catch {
      // not JSON: unknown
    }
    const source = sourceOfCall(call.function?.name ?? '', args, where);
    callSource.set(piece.callId!, source);
    return source;
  }
  if (message.role === 'tool') return callSource.get(message.tool_call_id ?? '') ?? 'unknown_tool_payload';
  if (message.role === 'user') {
    const read = /^Called the Read tool with the following input: (\{.*\})$/s.exec(piece.text);
    const readPath = read ? (JSON.parse(read[1]!) as { filePath?: string }).filePath : undefined;
    const output = /^<path>([^<]+)<\/path>/.exec(piece.text)?.[1];
    const path = readPath ?? output;
    if (path) return sourceOfPath(path, where) ?? 'issue_source_files';
  }
  return 'conversation';
}
