/**
 * The truth of a Claude Code recording: the last main request the scripted model received, split
 * by source with this test's own rules and counted with the model's own counting (the request as
 * the chat request it amounts to, prompt-tokens.ts). Claude Code's system blocks and tool schemas
 * are its runtime (Agent/runtime instructions); in the messages, its reminders are instructions
 * (the CLAUDE.md one, the environment, the model, the deferred tools, the agent types, the date,
 * the attribution) except the skill listing (Skills & Knowledge); a tool call and its result go
 * where the file it names lies; a skill's text is Skills & Knowledge; a subagent's answer and the rest
 * are Conversation.
 */
import { asChatRequest, type MessagesRequest } from '../../src/node/scripted-model/anthropic';
import { familyCounting } from '../../src/node/scripted-model/server';
import {
  MESSAGE_FRAMING_TOKENS,
  REPLY_PRIMING_TOKENS,
  messagePieces,
  pieceTokens,
  promptTokens,
  toolSchemaTokens,
  type ChatMessage,
} from '../../src/node/scripted-model/prompt-tokens';
import { SOURCE_IDS, type SourceId } from '../../src/shared/sources';

function sourceOfPath(path: string): SourceId {
  if (/\/evidence\//.test(path) || /(^|\s)evidence\//.test(path)) return 'evidence';
  if (/\/meta\//.test(path)) return 'cluster_alert_metadata';
  if (/\/\.claude\/skills\//.test(path)) return 'skills_knowledge';
  if (/CLAUDE\.md$/.test(path)) return 'agent_instructions';
  return 'unknown_tool_payload';
}

function sourceOfCall(name: string, args: Record<string, unknown>): SourceId {
  if (name === 'Skill') return 'skills_knowledge';
  if (name === 'Bash') return sourceOfPath(String(args.command ?? ''));
  // A subagent's answer: what it answered from is its own session's; in the parent, conversation (contract §3).
  if (name === 'Task' || name === 'Agent') return 'conversation';
  return sourceOfPath(String(args.file_path ?? args.path ?? ''));
}

/** A text of a user message: Claude Code's reminders, a skill's text, or the user's words. */
function sourceOfUserText(text: string, reads: { path: string }): SourceId {
  if (text.startsWith('Base directory for this skill:')) return 'skills_knowledge';
  // A file attached again after a compaction: the read's call (naming the file), then its result.
  const called = /^<system-reminder>\nCalled the Read tool with the following input: (\{.*\})/.exec(text);
  if (called) reads.path = String((JSON.parse(called[1]!) as { file_path?: unknown }).file_path ?? '');
  if (called || text.startsWith('<system-reminder>\nResult of calling the Read tool:')) return sourceOfPath(reads.path);
  // A background task's (a subagent's) report: an answer, so conversation (contract §3).
  if (text.includes('<task-notification>')) return 'conversation';
  if (text.startsWith('<system-reminder>')) return 'agent_instructions';
  return 'conversation';
}

/** The system-role message: reminders one after another; the skill listing's is Skills & Knowledge. */
function splitSystemMessage(text: string, count: (t: string) => number, add: (s: SourceId, n: number) => void): void {
  const start = text.indexOf('The following skills are available for use with the Skill tool');
  if (start < 0) return add('agent_instructions', count(text));
  const end = text.indexOf("\n\nToday's date is", start);
  const listing = text.slice(start, end < 0 ? undefined : end);
  // The rest is the whole less the listing: pieces counted apart would differ at their joints.
  add('skills_knowledge', count(listing));
  add('agent_instructions', count(text) - count(listing));
}

export function claudeCodeTruth(request: MessagesRequest): {
  total: number;
  tokens: Record<SourceId, number>;
  percent: Record<SourceId, number>;
} {
  const chat = asChatRequest(request);
  // The scripted model's Messages API counts with Claude's tokenizer.
  const rules = familyCounting({ encoding: 'claude' });
  const tokens = Object.fromEntries(SOURCE_IDS.map((id) => [id, 0])) as Record<SourceId, number>;
  const add = (source: SourceId, n: number) => (tokens[source] += n);
  const calls = new Map<string, SourceId>();
  const reads = { path: '' };
  add('agent_instructions', REPLY_PRIMING_TOKENS + toolSchemaTokens(chat.tools, rules));
  chat.messages.forEach((message: ChatMessage, index) => {
    const pieces = messagePieces(message);
    const framing = MESSAGE_FRAMING_TOKENS;
    if (message.role === 'system') {
      if (index === 0) add('agent_instructions', framing + pieces.reduce((n, p) => n + pieceTokens(p, rules), 0));
      else {
        add('agent_instructions', framing);
        for (const p of pieces) splitSystemMessage(p.text, rules.count, add);
      }
      return;
    }
    for (const call of message.tool_calls ?? []) {
      const args = JSON.parse(call.function?.arguments ?? '{}') as Record<string, unknown>;
      calls.set(call.id ?? '', sourceOfCall(call.function?.name ?? '', args));
    }
    const own = message.role === 'tool' ? (calls.get(message.tool_call_id ?? '') ?? 'unknown_tool_payload') : null;
    add(own ?? 'conversation', framing);
    for (const piece of pieces) {
      const n = pieceTokens(piece, rules);
      if (own) add(own, n);
      else if (piece.kind === 'tool_call') add(calls.get(piece.callId ?? '') ?? 'unknown_tool_payload', n);
      else if (message.role === 'user') add(sourceOfUserText(piece.text, reads), n);
      else add('conversation', n);
    }
  });
  const total = promptTokens(chat, rules);
  const sum = Object.values(tokens).reduce((a, b) => a + b, 0);
  if (sum !== total) throw new Error(`the truth's split (${sum}) is not the request's count (${total})`);
  const percent = Object.fromEntries(SOURCE_IDS.map((id) => [id, (tokens[id] / total) * 100])) as Record<
    SourceId,
    number
  >;
  return { total, tokens, percent };
}
