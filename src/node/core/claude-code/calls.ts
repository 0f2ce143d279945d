/**
 * Claude Code's model calls and what the provider counted for each: one call per API response of
 * the main agent. Claude Code writes a response as one entry per content block, each with the
 * response's `message.id` and usage; the call belongs to the first (everything before it was
 * the request). Its prompt is input + cache write + cache read (Anthropic reports input without
 * the cached part). Pure.
 */
import { providerFamily } from '../providers';
import type { ModelCall, Tokens, WindowWalk } from '../types';
import type { EntryHeader, Usage } from './entry';

export const tokensOf = (usage: Usage): Tokens => ({
  input: usage.input,
  output: usage.output,
  reasoning: 0,
  cacheRead: usage.cacheRead,
  cacheWrite: usage.cacheWrite,
});

export const promptOf = (usage: Usage): number => usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);

/** "anthropic/MODEL": Claude Code talks to Anthropic's Messages API only. */
export const modelKey = (model: string | undefined): string | undefined => (model ? `anthropic/${model}` : undefined);

/** The index of each main-agent response's first entry. */
export function responseStarts(entries: readonly EntryHeader[]): number[] {
  const starts: number[] = [];
  let previous: string | undefined;
  entries.forEach((entry, index) => {
    if (entry.type !== 'assistant' || entry.sidechain) return;
    if (entry.responseId === undefined || entry.responseId !== previous) starts.push(index);
    previous = entry.responseId;
  });
  return starts;
}

export function modelCalls(entries: readonly EntryHeader[]): ModelCall[] {
  return responseStarts(entries).map((index) => {
    const entry = entries[index]!;
    const measured = entry.usage && promptOf(entry.usage) > 0 ? entry.usage : null;
    return {
      message: index,
      segment: 0,
      messageId: entry.id,
      time: entry.time,
      compaction: false,
      prompt: measured ? promptOf(measured) : null,
      tokens: measured ? tokensOf(measured) : null,
      produced: measured?.output ?? 0,
      cost: null,
      model: modelKey(entry.model),
      family: providerFamily('anthropic', entry.model),
      // Claude Code's own part (system prompt, tools) depends on its model; the rows say no more.
      runtime: JSON.stringify([entry.model ?? null]),
    };
  });
}

/**
 * The main agent's request, kept up to date one entry at a time: every main-chain entry in file
 * order; a compact boundary restarts it (the summary, the entries it names as kept, and what
 * follows are the new history).
 */
export class EntryWindow implements WindowWalk {
  order: number[] = [];
  private readonly byUuid = new Map<string, number>();

  constructor(private readonly entries: readonly EntryHeader[]) {}

  append(index: number): boolean {
    const entry = this.entries[index]!;
    if (entry.sidechain) return false;
    if (entry.uuid) this.byUuid.set(entry.uuid, index);
    if (entry.compactBoundary) {
      // The entries it keeps from before it stay in view (Claude Code sends them after the summary).
      const kept = (entry.preserved ?? []).flatMap((uuid) => {
        const at = this.byUuid.get(uuid);
        return at === undefined ? [] : [at];
      });
      this.order = [index, ...kept.sort((a, b) => a - b)];
      return true;
    }
    this.order.push(index);
    return false;
  }
}

export function liveWindow(entries: readonly EntryHeader[]): number[] {
  const window = new EntryWindow(entries);
  entries.forEach((_, i) => window.append(i));
  return window.order;
}
