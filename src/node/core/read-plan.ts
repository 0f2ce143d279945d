/**
 * What the caller must read for a report, decided from the stamps and the memo: only the rows
 * the memo lacks, so a warm report reads almost nothing — and all of them, so the core never
 * asks for more once the snapshot is closed (no second read). Called inside the caller's one read
 * (a snapshot) as rows arrive: the rows of the headers the memo lacks first (the headers say
 * which subagents' sessions the calls made, and which messages are live), then, with the
 * subagents' sessions read, the rows whose analysis or text is not memoised. It parses rows
 * (headers), never counts tokens. Pure but for the memo, which it fills with the headers it read.
 */
import { analysisPlan, memoisedAnalyses, type AnalysisServices } from './analysis';
import { mayNarrow, narrowsReads } from './large-reads';
import { callsView, firstCall } from './make-session';
import { headersOf, Rows, type Memo } from './session-rows';
import type { Header } from './runtime';
import type { MessageAnalysis } from './types';
import { sessionKey, SESSION, textBlocks, type ContextInput } from './context-report';
import type { Session } from './make-session';
import type { SessionRows } from './session-rows';

/** Rows of a session whose headers neither the input nor the memo holds. */
export function headerRowsToRead(session: SessionRows, services: AnalysisServices): string[] {
  return headersOf(session, new Rows(session), services.runtime, services.memo ?? new Map()).missing;
}

/**
 * Rows the report needs that the input and the memo lack (empty: read enough): the headers'
 * first, then the rest. The input's subagents must be read by then: they are in its key.
 */
export function rowsToRead(input: ContextInput, services: AnalysisServices): string[] {
  const rows = new Rows(input);
  const unread = input.messages.flatMap((m) => (rows.has(m.id) ? [] : [m.id]));
  const memo = services.memo;
  if (!memo || unread.length === 0) return unread;
  const { headers, missing } = headersOf(input, rows, services.runtime, memo);
  if (missing.length > 0) return missing;
  const session = memo.get(`${SESSION}\u0000${sessionKey(input, services.runtime)}`) as Session | undefined;
  if (session) {
    if (!input.texts) return [];
    const wanted = new Set(textBlocks(session.blocks, input.texts).flatMap((b) => b.messageId ?? []));
    return unread.filter((id) => wanted.has(id));
  }
  // The texts of blocks not yet made may be in any message.
  if (input.texts) return unread;
  return analysesLacking(input, headers, rows, services, memo).filter((id) => !rows.has(id));
}

/**
 * Messages whose analysis the memo does not hold (or holds for other file sizes), and those with
 * a file read that may be told how to read less (large-reads.ts re-reads its text): which reads
 * are large only the calibration tells, after the read, so every candidate's row comes along —
 * the one pass reads all a report can need, and nothing is read again.
 */
function analysesLacking(
  input: ContextInput,
  headers: readonly Header[],
  rows: Rows,
  services: AnalysisServices,
  memo: Memo,
): string[] {
  let calls;
  try {
    calls = callsView(headers, input, services, input.asOfCall);
  } catch {
    return []; // a call the session does not have: the report answers that, with no rows
  }
  const plan = analysisPlan(headers, rows.stamps, input.workspace, input.estimator, services, firstCall(calls));
  const analyses = memoisedAnalyses(plan, memo);
  const narrows = narrowsReads(calls.usage, services.runtime);
  const reply = handOffReply(headers, analyses, services);
  return headers.flatMap((h, i) =>
    analyses[i] === null || h.id === reply || (narrows && analyses[i]!.items.some(mayNarrow)) ? [h.id] : [],
  );
}

/**
 * The message whose text a new session's hand-off quotes (make-session's replyText): the latest
 * assistant message of the next prompt with a conversation item. Its row is read in the same pass.
 */
function handOffReply(
  headers: readonly Header[],
  analyses: readonly (MessageAnalysis | null)[],
  services: AnalysisServices,
): string | undefined {
  const next = services.runtime.nextPrompt?.(headers);
  if (!next) return undefined;
  const replies = new Set(next.messages.filter((m) => m.role === 'assistant').map((m) => m.id));
  for (let i = headers.length - 1; i >= 0; i--) {
    const analysis = analyses[i];
    if (!replies.has(headers[i]!.id)) continue;
    if (analysis === null || analysis?.items.some((item) => item.source === 'conversation')) return headers[i]!.id;
  }
  return undefined;
}

/**
 * The sessions the session's calls made (subagents'), as its headers name them: read them with
 * the rest. Call once `rowsToRead` asks for nothing more.
 */
export function subagentsNamed(input: SessionRows, services: AnalysisServices): string[] {
  const memo = services.memo ?? new Map<string, unknown>();
  const { headers } = headersOf(input, new Rows(input), services.runtime, memo);
  return [...new Set(headers.flatMap((h) => h.sessions ?? []))];
}
