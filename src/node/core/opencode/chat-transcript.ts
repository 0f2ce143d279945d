/**
 * OpenCode's rows as the chat's runtime-neutral transcript (shared/transcript.ts): one message a
 * row. Read tolerantly, like the report reads them: a part of a shape this program does not know
 * is left out, never the message.
 */
import { inputText, refusalIn, toolSummary } from '../../../shared/tool-calls';
import {
  previewText,
  type TranscriptMessage,
  type TranscriptPart,
  type TranscriptRow,
} from '../../../shared/transcript';
import {
  isPruned,
  isWorkspaceContext,
  parseInfo,
  parsePart,
  parseWorkspaceContext,
  type Part,
  type ToolPart,
} from '../../../shared/opencode/format';

const ignore = () => {};

export function opencodeChatTranscript(rows: readonly TranscriptRow[]): TranscriptMessage[] {
  return rows.map(messageOf);
}

function messageOf(row: TranscriptRow): TranscriptMessage {
  const info = parseInfo(row.info, ignore);
  const parts = row.parts.map((raw) => parsePart(raw, ignore)).filter((p): p is Part => p !== null);
  const compaction = parts.find((p) => p.type === 'compaction');
  if (compaction?.type === 'compaction')
    return { role: info.role, kind: 'compaction', auto: compaction.auto, parts: [] };
  const outcome = info.role === 'assistant' ? outcomeOf(row.info.error) : undefined;
  return {
    role: info.role,
    kind: info.role === 'assistant' && info.summary ? 'summary' : 'message',
    parts: parts.map(partOf).filter((p): p is TranscriptPart => p !== null),
    ...(outcome ? { outcome } : {}),
  };
}

function partOf(part: Part): TranscriptPart | null {
  switch (part.type) {
    case 'text':
      if (!part.text || part.ignored) return null;
      if (!part.synthetic) return { type: 'text', text: part.text };
      // Attached-file reads and reminders are for the model; the file's own part names the file.
      return isWorkspaceContext(part.text)
        ? { type: 'context', sections: parseWorkspaceContext(part.text).sections.map((s) => s.label) }
        : null;
    case 'reasoning':
      return part.text ? { type: 'reasoning', text: part.text } : null;
    case 'tool':
      return toolOf(part);
    case 'file':
      return { type: 'file', name: part.filename ?? part.sourcePath ?? 'attachment', mime: part.mime };
    default:
      return null;
  }
}

function toolOf(part: ToolPart): TranscriptPart {
  const refused = part.status === 'error' ? refusalIn(part.error) : undefined;
  return {
    type: 'tool',
    callId: part.callID ?? '',
    tool: part.tool,
    ...(part.title ? { title: part.title } : {}),
    summary: toolSummary(part.tool, part.input) || (part.title ?? ''),
    status: part.status,
    ...(refused ? { refused } : {}),
    input: inputText(part.input),
    ...(part.output ? { output: previewText(part.output) } : {}),
    ...(part.error ? { error: previewText(part.error) } : {}),
    ...(isPruned(part) ? { pruned: true } : {}),
  };
}

/** How a saved reply ended, when not by itself: OpenCode's error names it (aborted: the user stopped it). */
function outcomeOf(error: unknown): TranscriptMessage['outcome'] {
  if (typeof error !== 'object' || error === null) return undefined;
  const { name, data } = error as { name?: unknown; data?: { message?: unknown } };
  if (name === 'MessageAbortedError') return { kind: 'stopped' };
  const message = typeof data?.message === 'string' ? data.message : typeof name === 'string' ? name : 'an error';
  return { kind: 'failed', message };
}
