/**
 * One persisted OpenCode message as the next request holds it: parsed through the format module,
 * put through OpenCode's request view (request-view.ts), attributed to sources (attribute.ts),
 * with what the view leaves out counted as omissions. Its header — what the window and the call
 * list need — is read apart and cheaply. Pure.
 */
import { isPruned, parseInfo, parsePart, type Part } from '../../../shared/opencode/format';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../../shared/json-depth';
import type { Header, ParsedRow } from '../runtime';
import { utf8Bytes } from '../text';
import { emptyOmissions, type AttributionContext, type RuntimeAnalysis } from '../types';
import { attributeMessage } from './attribute';
import { messageView, type MessageView, type StoredMessage } from './request-view';

/** A message as the history window and the call list need it: its info and its compaction and step-finish parts. */
export type OpenCodeHeader = StoredMessage;

/**
 * The header of a row: its info, and of its parts only the compaction request and the steps'
 * counts (the other parts are read when the message is analysed).
 */
export function messageHeader(row: ParsedRow, size: number, warn: (message: string) => void): Header<OpenCodeHeader> {
  const ref = `messages_v2/${row.id}`;
  let info: unknown = row.info;
  if (info === undefined) {
    warn(`${ref}: info is not valid JSON`);
    info = {};
  } else if (nestsDeeperThan(info)) info = {};
  const parts = Array.isArray(row.parts) ? row.parts : [];
  const sessions = subagentSessions(parts);
  return {
    id: row.id,
    size,
    ...(sessions.length > 0 ? { sessions } : {}),
    data: {
      id: row.id,
      info: parseInfo(info, () => {}),
      parts: parts.map((raw: unknown) => {
        const type = (raw as { type?: unknown } | null)?.type;
        if ((type !== 'compaction' && type !== 'step-finish') || nestsDeeperThan(raw)) return null;
        return parsePart(raw, () => {});
      }),
    },
  };
}

/** The sessions a message's tool calls ran in (a `task` call's subagent records its own in its metadata). */
function subagentSessions(parts: readonly unknown[]): string[] {
  return parts.flatMap((raw) => {
    const part = raw as { type?: unknown; state?: { metadata?: { sessionId?: unknown } } } | null;
    const id = part?.type === 'tool' ? part.state?.metadata?.sessionId : undefined;
    return typeof id === 'string' && id !== '' ? [id] : [];
  });
}

/** Stands for a part left out for its nesting (its bytes are not counted either). */
const DEEP = Symbol('too deep');

export function analyzeMessage(
  row: ParsedRow,
  context: AttributionContext & { targetModel: string | undefined },
): RuntimeAnalysis {
  const { id, info, parts } = row;
  const warnings: string[] = [];
  const ref = `messages_v2/${id}`;
  // Nothing below may walk or re-serialise a hostile nesting (stack overflow): such values are
  // left out here, with a warning naming them.
  const tooDeep = `nests deeper than ${MAX_JSON_DEPTH} levels`;
  let boundedInfo = info;
  if (nestsDeeperThan(info)) {
    warnings.push(`${ref}: info ${tooDeep}; read as empty`);
    boundedInfo = {};
  }
  const parsedInfo = parseInfo(boundedInfo, (message) => warnings.push(`${ref}: ${message}`));
  if (!Array.isArray(parts)) warnings.push(`${ref}: parts is not a JSON array; skipped`);
  const rawParts = (Array.isArray(parts) ? parts : []).map((part: unknown, index) => {
    if (!nestsDeeperThan(part)) return part;
    warnings.push(`${ref}/parts/${index}: ${tooDeep}; skipped`);
    return DEEP;
  });
  const parsed: (Part | null)[] = rawParts.map((part, index) =>
    part === DEEP ? null : parsePart(part, (message) => warnings.push(`${ref}/parts/${index}: ${message}`)),
  );
  const message: StoredMessage = { id, info: parsedInfo, parts: parsed };
  const view = messageView(message, { targetModel: context.targetModel });
  const attributed = attributeMessage(message, view, context);
  warnings.push(...attributed.warnings);

  const omissions = emptyOmissions();
  if (view.skipped === 'error') {
    omissions.failedReplies.count++;
    omissions.failedReplies.bytes += utf8Bytes(JSON.stringify(rawParts));
  }
  for (const omission of view.omitted) {
    const bytes = utf8Bytes(JSON.stringify(rawParts[omission.index] ?? null));
    const into =
      omission.kind === 'ignored-text'
        ? omissions.ignoredText
        : omission.kind === 'unsigned-reasoning'
          ? omissions.unsignedReasoning
          : omission.kind === 'unencrypted-reasoning'
            ? omissions.unencryptedReasoning
            : omission.kind === 'file-read-at-prompt'
              ? null
              : omissions.bookkeeping;
    if (!into) continue;
    into.count++;
    into.bytes += omission.kind === 'bookkeeping' || omission.kind === 'unknown' ? bytes : omission.bytes;
  }
  for (const part of view.sent) {
    if (part.kind === 'tool' && isPruned(part.tool) && part.tool.status === 'completed') {
      omissions.prunedOutputs.count++;
      omissions.prunedOutputs.bytes += utf8Bytes(part.tool.output ?? '');
    }
    if (part.kind === 'file') {
      const dataUrl = /^data:[^;,]*(;base64)?,/.exec(part.file.url);
      if (dataUrl) {
        omissions.attachmentBodies.count++;
        omissions.attachmentBodies.bytes += part.file.url.length - dataUrl[0].length;
      }
    }
  }

  const copies = encryptedReasoningCopies(view.sent);
  return {
    ...(copies > 1 ? { reasoningCopies: copies } : {}),
    contributions: attributed.contributions,
    omissions,
    mentions: attributed.mentions,
    warnings,
  };
}

/**
 * The encrypted reasoning a message sends, in copies of its reasoning: each sent part counts its
 * item's whole encrypted content, an item weighing by the length of that content.
 */
function encryptedReasoningCopies(sent: MessageView['sent']): number {
  const lengths: number[] = [];
  const items = new Map<string, number>();
  for (const part of sent) {
    if (part.kind !== 'reasoning') continue;
    const content = encryptedContent(part.metadata);
    if (content === null) continue;
    lengths.push(content.length);
    items.set(content, content.length);
  }
  const whole = [...items.values()].reduce((a, b) => a + b, 0);
  return whole === 0 ? 0 : lengths.reduce((a, b) => a + b, 0) / whole;
}

function encryptedContent(metadata: Record<string, unknown> | undefined): string | null {
  for (const key of ['openai', 'azure']) {
    const value = (metadata?.[key] as { reasoningEncryptedContent?: unknown } | undefined)?.reasoningEncryptedContent;
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}
