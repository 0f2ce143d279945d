/**
 * Advice on what was read: the same content in context more than once, and one item holding a
 * large share of the context. What is in the history stays there until something removes it
 * (history-advice.ts), so a sentence asking the agent to read less frees nothing now: it avoids
 * the next copy (`avoids`, per re-read). A file sent with every request is the workspace's to
 * shorten: the next call carries what is left of it (up to the item). Pure.
 */
import { fmt } from '../../shared/format';
import type { Change } from '../../shared/wire';
import { itemId, percentOf, sum } from './figures';
import type { Counted, Item, NarrowerRead, ReportInput, SuggestionDraft } from './types';
import type { DuplicateMark } from './duplicates';

/** One item above this share of the used context is worth a look. */
export const LARGE_ITEM_PERCENT = 20;

interface ReadFacts {
  input: ReportInput;
  counted: readonly Counted[];
  duplicates: Map<Item, DuplicateMark>;
  used: number | null;
}

export function duplicateReads({ counted, duplicates, used }: ReadFacts): SuggestionDraft[] {
  const scaled = new Map(counted.map((c) => [c.item.key, c.scaled]));
  const groups = new Map<string, Item[]>();
  for (const [item] of duplicates) {
    const key = `${item.readKey}\u0000${item.contentKey}`;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()].map((group) => {
    const extra = group.slice(1);
    const repeated = sum(extra.map((i) => i.tokens));
    const repeatedScaled = used === null ? null : sum(extra.map((i) => scaled.get(i.key) ?? 0));
    const tokens = repeatedScaled ?? repeated;
    const figure = repeatedScaled === null ? `≈${fmt(repeated)} estimated tokens` : `${fmt(repeatedScaled)} tokens`;
    const what = group[0]!.path ?? group[0]!.label;
    return {
      kind: 'duplicate_read',
      severity: 'warning',
      title: `${what} is in context ${group.length} times`,
      detail: `The same content was read ${group.length} times; the ${extra.length === 1 ? 'extra read repeats' : `${extra.length} extra reads repeat`} ${figure}. The copies stay in the history until a compaction, a revert or a new session: asking the agent to refer to the earlier read frees nothing now, it avoids the next copy.`,
      itemIds: group.map((i) => itemId(i.sourceRef)),
      figures: {
        reads: group.length,
        repeatedEstimatedTokens: repeated,
        ...(repeatedScaled === null ? {} : { repeatedScaledTokens: repeatedScaled }),
      },
      tokens: 0,
      avoids: { tokens: Math.round(tokens / extra.length), per: 're-read' as const },
      change: {
        kind: 'ask_agent',
        text: `${what} is already in your context: please refer to the earlier read instead of reading it again, unless it has changed.`,
      },
    };
  });
}

export function largeItems({ input, counted, used }: ReadFacts): SuggestionDraft[] {
  if (used === null || used <= 0) return [];
  const out: SuggestionDraft[] = [];
  for (const c of counted) {
    // The runtime's own prompt is not something a read can shrink: its parts have advice of their own.
    if (c.scaled === null || c.item.sourceRef.startsWith('runtime:')) continue;
    const share = percentOf(c.scaled, used)!;
    if (share <= LARGE_ITEM_PERCENT) continue;
    const figure = `${fmt(c.scaled)} tokens`;
    const change = largeItemChange(input, c.item, c.scaled, share);
    // A file sent with every request: the next call carries what is left of it. Anything else
    // is in the history: a narrower read next time avoids another copy, it frees nothing now.
    const everyCall = c.item.sourceRef.startsWith('file:');
    out.push({
      kind: 'large_item',
      severity: 'warning',
      title: `${c.item.label} is ${share.toFixed(1)}% of the used context`,
      detail: everyCall
        ? `One file sent with every request holds ${figure} of ${fmt(used)}: the next call carries what is left of it once it is shortened.`
        : `One item holds ${figure} of ${fmt(used)}. It stays in the history until a compaction, a revert or a new session; if only part of it is needed again, a narrower read (a range, a grep) keeps another copy out.`,
      itemIds: [itemId(c.item.sourceRef)],
      figures: { percentOfUsed: share, scaledTokens: c.scaled, estimatedTokens: c.item.tokens },
      ...(everyCall
        ? {
            tokens: c.scaled,
            upTo: true,
            horizon: 'configuration' as const,
            once: {
              uncached: used - c.scaled,
              basis: 'a changed instruction file changes the system prompt: the prompt is read uncached once',
            },
          }
        : {
            tokens: 0,
            avoids: { tokens: c.scaled, per: change.kind === 'workspace_file' ? 'load' : 're-read' } as const,
          }),
      change,
    });
  }
  return out;
}

/** What to do about one large item: shorten the file every request carries, else read less of it. */
function largeItemChange(input: ReportInput, item: Item, tokens: number, share: number): Change {
  const sentEveryCall = item.sourceRef.startsWith('file:');
  const skillFile = item.skill ? input.workspace.skills.find((s) => s.name === item.skill)?.path : undefined;
  if (sentEveryCall && item.path)
    return {
      kind: 'workspace_file',
      file: item.path,
      text: `${item.path} is sent with every request (${fmt(tokens)} tokens, ${share.toFixed(1)}% of the context). Shorten it: keep what every task needs, and move the rest into a file the agent reads only when it needs it.`,
    };
  if (skillFile)
    return {
      kind: 'workspace_file',
      file: skillFile,
      text: `Loading the skill ${item.skill} puts ${fmt(tokens)} tokens in the context. Shorten ${skillFile}: keep the steps, and move reference material into files beside it that the agent reads only when a step needs them.`,
    };
  if (item.path)
    return { kind: 'ask_agent', text: narrowerReadSentence(item.path, tokens, input.narrowing?.get(item.key)) };
  return {
    kind: 'ask_agent',
    text: `“${item.label}” takes ${fmt(tokens)} tokens of your context. When you need it again, take only the part you need (a line range, or a search) rather than all of it.`,
  };
}

/** The sentence for the agent: the earlier read, and the narrower read to make instead. */
export function narrowerReadSentence(path: string, tokens: number, narrowing: NarrowerRead | undefined): string {
  const lines = narrowing?.totalLines ? `all ${fmt(narrowing.totalLines)} lines, ` : '';
  const head = `${path} is already in your context from your earlier read (${lines}${fmt(tokens)} tokens). Do not read the whole file again.`;
  const grep = (p: NonNullable<NarrowerRead['pattern']>) =>
    `grep -n -F ${JSON.stringify(p.text)} ${path} (${p.what}: ${fmt(p.lines)} line${p.lines === 1 ? '' : 's'})`;
  const range = narrowing?.range;
  const pattern = narrowing?.pattern;
  if (range)
    return `${head} When you need more of it, read only lines ${fmt(range.from)}–${fmt(range.to)} (${range.what})${pattern ? `, or search it with ${grep(pattern)} and read around the lines it finds` : ''}.`;
  if (pattern)
    return `${head} When you need more of it, search it with ${grep(pattern)} and read only around those lines.`;
  return `${head} When you need more of it, search it (grep -n) and read only the lines around what you are looking for.`;
}
