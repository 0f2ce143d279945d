/**
 * Claude Code's rows (one transcript entry a row, docs/claude-code.md) as the chat's runtime-
 * neutral transcript (shared/transcript.ts). Claude Code writes a call's `tool_use` in the
 * assistant's entry and its `tool_result` in a later user entry: the session's results are
 * collected first, so that each call is shown once, where it was made, with its answer; the entry
 * that only delivers results is hidden. So are the entries the model alone reads (attachments,
 * `isMeta` notes such as a skill's text, a background task's report).
 */
import { inputText, toolSummary } from '../../../shared/tool-calls';
import {
  previewText,
  type TranscriptMessage,
  type TranscriptPart,
  type TranscriptRow,
} from '../../../shared/transcript';
import { isWorkspaceContext, parseWorkspaceContext } from '../../../shared/workspace-context';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

interface Result {
  text: string;
  error: boolean;
}

/** Claude Code's words in place of a reply the user stopped (a user entry of its own). */
const INTERRUPTED = /^\[Request interrupted by user( for tool use)?\]$/;
/** The adapter's (claude-agent-acp) answer to Claude Code when the server refused a permission over ACP. */
const REFUSED = 'User refused permission';

/** Claude Code's tools by the name whose input the shared summaries read, and their inputs' keys. */
const SUMMARY_NAMES: Record<string, string> = {
  Read: 'read',
  Grep: 'grep',
  Glob: 'glob',
  Bash: 'bash',
  WebFetch: 'webfetch',
  Task: 'task',
  Agent: 'task',
  Skill: 'skill',
};

export function claudeCodeChatTranscript(rows: readonly TranscriptRow[]): TranscriptMessage[] {
  const results = resultsOf(rows);
  return rows.map((row) => messageOf(row, results));
}

function resultsOf(rows: readonly TranscriptRow[]): Map<string, Result> {
  const results = new Map<string, Result>();
  for (const row of rows)
    for (const block of row.parts)
      if (block.type === 'tool_result' && str(block.tool_use_id))
        results.set(block.tool_use_id as string, { text: resultText(block.content), error: block.is_error === true });
  return results;
}

/** A result's content as the model read it: a string, or blocks whose text is joined (an image is named). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isObject)
    .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : b.type === 'image' ? '[image]' : ''))
    .filter((t) => t !== '')
    .join('\n');
}

const hidden = (role: TranscriptMessage['role']): TranscriptMessage => ({ role, kind: 'hidden', parts: [] });

function messageOf(row: TranscriptRow, results: Map<string, Result>): TranscriptMessage {
  const { info, parts } = row;
  if (info.type === 'system' && info.subtype === 'compact_boundary') {
    const trigger = isObject(info.compactMetadata) ? info.compactMetadata.trigger : undefined;
    return { role: 'assistant', kind: 'compaction', auto: trigger === 'auto', parts: [] };
  }
  if (info.type === 'assistant') return assistantOf(info, parts, results);
  if (info.type !== 'user' || info.isMeta === true) return hidden('user');
  if (info.isCompactSummary === true) return { role: 'assistant', kind: 'summary', parts: textsOf(parts) };
  const origin = isObject(info.origin) ? info.origin.kind : undefined;
  if (origin === 'task-notification') return hidden('user');
  const shown = textsOf(parts);
  const only = shown.length === 1 && shown[0]!.type === 'text' ? shown[0]!.text.trim() : null;
  if (only && INTERRUPTED.test(only))
    return { role: 'assistant', kind: 'message', parts: [], outcome: { kind: 'stopped' } };
  // An entry of tool results only: each is shown with its call.
  return shown.length === 0 ? hidden('user') : { role: 'user', kind: 'message', parts: shown };
}

/** A user entry's words, the workspace context the server added, and images. */
function textsOf(parts: readonly Json[]): TranscriptPart[] {
  const out: TranscriptPart[] = [];
  for (const block of parts) {
    const text = str(block.text);
    if (block.type === 'text' && text) {
      out.push(
        isWorkspaceContext(text)
          ? { type: 'context', sections: parseWorkspaceContext(text).sections.map((s) => s.label) }
          : { type: 'text', text },
      );
    } else if (block.type === 'image') {
      const source = isObject(block.source) ? block.source : {};
      out.push({ type: 'file', name: 'image', mime: str(source.media_type) ?? 'image' });
    }
  }
  return out;
}

function assistantOf(info: Json, parts: readonly Json[], results: Map<string, Result>): TranscriptMessage {
  const shown: TranscriptPart[] = [];
  for (const block of parts) {
    if (block.type === 'text' && str(block.text)) shown.push({ type: 'text', text: block.text as string });
    else if (block.type === 'thinking' && str(block.thinking))
      shown.push({ type: 'reasoning', text: block.thinking as string });
    else if (block.type === 'tool_use') shown.push(toolOf(block, results));
  }
  if (info.isApiErrorMessage === true) {
    const message = shown.find((p) => p.type === 'text');
    return {
      role: 'assistant',
      kind: 'message',
      parts: [],
      outcome: {
        kind: 'failed',
        message: message?.type === 'text' ? message.text : 'the model’s API answered an error',
      },
    };
  }
  return { role: 'assistant', kind: 'message', parts: shown };
}

function toolOf(block: Json, results: Map<string, Result>): TranscriptPart {
  const tool = str(block.name) ?? 'tool';
  const callId = str(block.id) ?? '';
  const input = isObject(block.input) ? block.input : {};
  const result = results.get(callId);
  const refused = result?.error && result.text.startsWith(REFUSED);
  return {
    type: 'tool',
    callId,
    tool,
    summary: summaryOf(tool, input),
    // No result in the session: the turn ended before the call answered.
    status: !result ? 'running' : result.error ? 'error' : 'completed',
    ...(refused ? { refused: 'policy' as const } : {}),
    input: inputText(input),
    ...(result && !result.error && result.text ? { output: previewText(result.text) } : {}),
    ...(result?.error ? { error: previewText(result.text || 'failed') } : {}),
  };
}

/** One line of what a call did: Claude Code's input read by the shared summaries (its `file_path`, `skill`). */
function summaryOf(tool: string, input: Json): string {
  const filePath = str(input.file_path) ?? str(input.notebook_path);
  const skill = str(input.skill);
  return toolSummary(SUMMARY_NAMES[tool] ?? tool, {
    ...input,
    ...(filePath ? { filePath } : {}),
    ...(skill ? { name: skill } : {}),
  });
}
