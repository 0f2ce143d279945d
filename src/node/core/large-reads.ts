/**
 * The narrower read each large file read could have been (narrower-read.ts), for the reads that
 * hold more than LARGE_ITEM_PERCENT of the total: the read's text as the model saw it (asked of
 * the caller, who read its row in the one snapshot: its message is analysed again, the texts
 * kept) and what the model quoted in the messages from that one on. Pure: the texts come
 * through `textOf`.
 */
import { countedItems } from './build-report';
import { percentOf } from './figures';
import { narrowerRead } from './narrower-read';
import { LARGE_ITEM_PERCENT } from './read-advice';
import type { Calibration, FileLine, Item, NarrowerRead, ReportInput, UsageInput } from './types';

/** A read's lines as the runtime showed them; null: not a read output. */
export type TextOf = (messageId: string, key: string) => { lines: FileLine[]; total: number } | null;

/**
 * Whether an item may be told how to read less, should the calibration make it large: a file
 * read (not a skill, not a file the runtime loads). Which of them are large is known only once
 * the calls are calibrated, so the read plan (read-plan.ts) has the rows of all of them read
 * with the rest — one pass, never a second read.
 */
export const mayNarrow = (item: Pick<Item, 'path' | 'skill' | 'sourceRef'>): boolean =>
  Boolean(item.path) && !item.skill && !item.sourceRef.startsWith('file:');

/** Whether a report of this runtime and total tells large reads how to read less at all. */
export const narrowsReads = (usage: UsageInput | null, runtime: { advice?: unknown }): boolean =>
  (usage?.contextUsed ?? 0) > 0 && Boolean(runtime.advice);

export function narrowerReads(
  input: { calibration: Calibration; usage: UsageInput | null; runtime: ReportInput['runtime'] },
  quotes: NonNullable<ReportInput['quotes']>,
  textOf: TextOf,
): Map<string, NarrowerRead> {
  const reads = new Map<string, NarrowerRead>();
  if (!narrowsReads(input.usage, input.runtime)) return reads;
  const used = input.usage!.contextUsed;
  for (const c of countedItems(input)) {
    const { item } = c;
    if (!item.messageId || !mayNarrow(item)) continue;
    if ((percentOf(c.scaled, used) ?? 0) <= LARGE_ITEM_PERCENT) continue;
    const shown = textOf(item.messageId, item.key);
    if (shown === null) continue;
    const from = quotes.findIndex((q) => q.messageId === item.messageId);
    const since = from < 0 ? [] : quotes.slice(from).flatMap((q) => q.quotes);
    reads.set(item.key, narrowerRead(shown.lines, since, shown.total));
  }
  return reads;
}
