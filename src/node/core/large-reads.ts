/**
 * The narrower read each large file read could have been (narrower-read.ts), for the reads that
 * hold more than LARGE_ITEM_PERCENT of the total: the read's text as the model saw it (asked of
 * the caller: its message is analysed again, the texts kept) and what the model quoted in the
 * messages from that one on. Pure: the texts come through `textOf`.
 */
import { countedItems } from './build-report';
import { percentOf } from './figures';
import { narrowerRead } from './narrower-read';
import { LARGE_ITEM_PERCENT } from './read-advice';
import type { Calibration, FileLine, NarrowerRead, ReportInput, UsageInput } from './types';

/** A read's lines as the runtime showed them; null: not a read output; undefined: its row is not at hand. */
export type TextOf = (messageId: string, key: string) => { lines: FileLine[]; total: number } | null | undefined;

export function narrowerReads(
  input: { calibration: Calibration; usage: UsageInput | null; runtime: ReportInput['runtime'] },
  quotes: NonNullable<ReportInput['quotes']>,
  textOf: TextOf,
): { reads: Map<string, NarrowerRead> } | { needs: string[] } {
  const reads = new Map<string, NarrowerRead>();
  const used = input.usage?.contextUsed ?? null;
  if (used === null || used <= 0 || !input.runtime.advice) return { reads };
  const needs: string[] = [];
  for (const c of countedItems(input)) {
    const { item } = c;
    if (!item.path || !item.messageId || item.skill || item.sourceRef.startsWith('file:')) continue;
    if ((percentOf(c.scaled, used) ?? 0) <= LARGE_ITEM_PERCENT) continue;
    const shown = textOf(item.messageId, item.key);
    if (shown === undefined) {
      needs.push(item.messageId);
      continue;
    }
    if (shown === null) continue;
    const from = quotes.findIndex((q) => q.messageId === item.messageId);
    const since = from < 0 ? [] : quotes.slice(from).flatMap((q) => q.quotes);
    reads.set(item.key, narrowerRead(shown.lines, since, shown.total));
  }
  return needs.length ? { needs: [...new Set(needs)] } : { reads };
}
