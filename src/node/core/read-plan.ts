/**
 * What the caller must read for a report, decided from the stamps and the memo: only the rows
 * the memo lacks, so a warm report reads almost nothing. Called inside the caller's one read
 * (a snapshot) as rows arrive: the rows of the headers the memo lacks first (the headers say
 * which subagents' sessions the calls made, and which messages are live), then, with the
 * subagents' sessions read, the rows whose analysis or text is not memoised. It parses rows
 * (headers), never counts tokens. Pure but for the memo, which it fills with the headers it read.
 */
import { analysisPlan, memoisedAnalyses, type AnalysisServices } from './analysis';
import { callsView, firstCall } from './make-session';
import { headersOf, Rows, type Memo } from './session-rows';
import type { Header } from './runtime';
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

/** A read estimated above this share of the total may be a large item: its row is read with the rest. */
export const LARGE_READ_PREFETCH = 0.15;

/**
 * Messages whose analysis the memo does not hold (or holds for other file sizes), and live ones
 * with a read large enough to be told how to read less (large-reads.ts re-reads its text).
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
  const large = calls.usage ? LARGE_READ_PREFETCH * calls.usage.contextUsed : Infinity;
  return headers.flatMap((h, i) =>
    analyses[i] === null || (plan.good[i] && analyses[i]!.items.some((item) => item.path && item.tokens >= large))
      ? [h.id]
      : [],
  );
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
