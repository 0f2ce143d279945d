/**
 * Assembles the report of contract §4 from plain data: the workspace as read, the analyses of
 * the live messages, the excluded history and the latest ACP usage. Pure and deterministic.
 */
import {
  SOURCE_IDS,
  SOURCE_LABELS,
  type ContextReport,
  type Excluded,
  type ReportItem,
  type SourceId,
  type Suggestion,
} from '../../shared/wire';
import { fmt, fmtBytes } from '../../shared/format';
import { apportion } from './apportion';
import { emptyOmissions, utf8Bytes, type Contribution, type MessageAnalysis, type Omissions } from './attribute';
import type { Estimator } from './estimator';

export interface WorkspaceSnapshot {
  root: string;
  /** Always-loaded instruction files, workspace-relative, in load order. */
  instructions: { path: string; text: string }[];
  /** Enabled skills (never the candidate cache). */
  skills: { name: string; description: string; path: string }[];
  excluded: Excluded[];
  warnings: string[];
  /** Path, size and mtime of every file read: part of the snapshot digest. */
  stamps: { path: string; size: number; mtimeMs: number }[];
}

/** The agent-reported total: the newest usable ACP usage_update of the session. */
export interface UsageInput {
  contextUsed: number;
  contextSize: number | null;
  recordedAt: number;
}

export function percentOfWindow(usage: UsageInput): number | null {
  return usage.contextSize ? round2((usage.contextUsed / usage.contextSize) * 100) : null;
}

export interface ReportInput {
  workspaceId: string;
  sessionId: string | null;
  generatedAt: string;
  snapshotId: string;
  estimator: Estimator;
  workspace: WorkspaceSnapshot;
  /** Live messages (after the latest completed compaction), in order, with their ids. */
  messages: { id: string; analysis: MessageAnalysis }[];
  history: { messages: number; bytes: number };
  usage: UsageInput | null;
  warnings: string[];
  itemsLimit: number | 'all';
  /** Keep the texts of the always-loaded items too (content pages, reader). */
  keepText?: boolean;
}

export const DEFAULT_ITEMS = 20;
/** One item above this share of the used context is worth a look. */
export const LARGE_ITEM_PERCENT = 20;
/** Above this share of the window, compaction is near. */
export const NEAR_COMPACTION_PERCENT = 80;

/** Every contribution in request order: always-loaded items first, then the live history. */
export function orderedContributions(
  input: Pick<ReportInput, 'workspace' | 'estimator' | 'messages' | 'keepText'>,
): Contribution[] {
  return [
    ...workspaceContributions(input.workspace, input.estimator, input.keepText ?? false),
    ...input.messages.flatMap((m) => m.analysis.contributions),
  ];
}

export function buildReport(input: ReportInput): ContextReport {
  const { estimator, workspace } = input;
  const contributions = orderedContributions(input);
  const order = new Map(contributions.map((c, i) => [c, i]));
  const omissions = emptyOmissions();
  const warnings = [...workspace.warnings, ...input.warnings];
  let provider: { messageId: string; tokens: NonNullable<MessageAnalysis['providerTokens']> } | null = null;
  let hasAttachments = false;
  for (const { id, analysis } of input.messages) {
    addOmissions(omissions, analysis.omissions);
    warnings.push(...analysis.warnings);
    if (analysis.providerTokens) provider = { messageId: id, tokens: analysis.providerTokens };
    hasAttachments ||= analysis.contributions.some((c) => c.source === 'attachment_metadata');
  }

  const duplicates = markDuplicates(contributions);
  const totalTokens = sum(contributions.map((c) => c.tokens));
  const totalBytes = sum(contributions.map((c) => c.bytes));
  const actual = input.usage;
  const used = actual?.contextUsed ?? null;
  const attributable = used !== null && totalTokens > 0;

  const bySource = new Map<SourceId, Contribution[]>(SOURCE_IDS.map((id) => [id, []]));
  for (const c of contributions) bySource.get(c.source)!.push(c);
  const sourceTokens = SOURCE_IDS.map((id) => sum(bySource.get(id)!.map((c) => c.tokens)));
  const scaledSources = attributable ? apportion(used, sourceTokens) : null;

  const scaledById = new Map<Contribution, number>();
  const sources = SOURCE_IDS.map((id, s) => {
    const list = bySource.get(id)!;
    const scaledSource = scaledSources ? scaledSources[s]! : null;
    if (scaledSource !== null) {
      const parts = apportion(
        scaledSource,
        list.map((c) => c.tokens),
      );
      list.forEach((c, i) => scaledById.set(c, parts[i]!));
    }
    const sorted = [...list].sort((a, b) => b.tokens - a.tokens || b.bytes - a.bytes);
    const shown = input.itemsLimit === 'all' ? sorted : sorted.slice(0, input.itemsLimit);
    const hidden = sorted.slice(shown.length);
    const items: ReportItem[] = shown.map((c) =>
      toItem(c, scaledById.get(c) ?? null, used, duplicates.get(c), order.get(c)!),
    );
    return {
      id,
      label: SOURCE_LABELS[id],
      estimatedTokens: sourceTokens[s]!,
      scaledTokens: scaledSource,
      percentOfUsed: percentOf(scaledSource, used),
      bytes: sum(list.map((c) => c.bytes)),
      itemCount: list.length,
      items,
      more: {
        itemCount: hidden.length,
        estimatedTokens: sum(hidden.map((c) => c.tokens)),
        scaledTokens: scaledSource === null ? null : sum(hidden.map((c) => scaledById.get(c) ?? 0)),
        bytes: sum(hidden.map((c) => c.bytes)),
      },
    };
  });

  const repeated = contributions.filter((c) => (duplicates.get(c)?.ordinal ?? 1) > 1);
  return {
    schemaVersion: 1,
    workspaceId: input.workspaceId,
    sessionId: input.sessionId,
    generatedAt: input.generatedAt,
    snapshotId: input.snapshotId,
    actual: actual && {
      contextUsed: actual.contextUsed,
      contextSize: actual.contextSize,
      percent: percentOfWindow(actual),
      recordedAt: new Date(actual.recordedAt).toISOString(),
      source: 'acp',
    },
    estimate: {
      method: estimator.method,
      estimator: estimator.id,
      totalTokens,
      totalBytes,
      itemCount: contributions.length,
      scale: attributable ? round4(used / totalTokens) : null,
    },
    providerTokens: provider && {
      messageId: provider.messageId,
      ...provider.tokens,
      cacheReadSharePercent:
        provider.tokens.cacheRead !== null &&
        provider.tokens.input !== null &&
        provider.tokens.input + provider.tokens.cacheRead > 0
          ? round2((provider.tokens.cacheRead / (provider.tokens.input + provider.tokens.cacheRead)) * 100)
          : null,
    },
    sources,
    duplicates: {
      files: new Set([...duplicates.entries()].filter(([, d]) => d.ordinal > 1).map(([c]) => c.readKey)).size,
      extraReads: repeated.length,
      repeatedEstimatedTokens: sum(repeated.map((c) => c.tokens)),
      repeatedScaledTokens: attributable ? sum(repeated.map((c) => scaledById.get(c) ?? 0)) : null,
    },
    excluded: [...workspace.excluded, ...excludedEntries(input.history, omissions)],
    suggestions: suggest({ input, contributions, duplicates, scaledById, omissions, used }),
    notes: notes(input, estimator, { attributable, hasAttachments, totalTokens }),
    warnings,
  };
}

function workspaceContributions(workspace: WorkspaceSnapshot, estimator: Estimator, keepText: boolean): Contribution[] {
  const out: Contribution[] = workspace.instructions.map(({ path, text }) => {
    const full = `Instructions from: ${workspace.root}/${path}\n${text}`;
    return {
      source: 'agent_instructions',
      label: `Instructions: ${path}`,
      sourceRef: `file:${path}`,
      tokens: estimator.count(full),
      bytes: utf8Bytes(full),
      path,
      ...(keepText ? { text: full } : {}),
    };
  });
  if (workspace.skills.length > 0) {
    const catalog = skillCatalogText(workspace.skills, workspace.root);
    const n = workspace.skills.length;
    out.push({
      source: 'skills_knowledge',
      label: `Skill catalog: ${n} enabled skill${n === 1 ? '' : 's'}`,
      sourceRef: 'file:.opencode/skills (catalog)',
      tokens: estimator.count(catalog),
      bytes: utf8Bytes(catalog),
      ...(keepText ? { text: catalog } : {}),
    });
  }
  return out;
}

/** The catalog the agent runtime lists in every request: name, description and location. */
export function skillCatalogText(skills: WorkspaceSnapshot['skills'], root: string): string {
  const entries = skills.map(
    (s) =>
      `  <skill>\n    <name>${s.name}</name>\n    <description>${s.description}</description>\n    <location>file://${root}/${s.path}</location>\n  </skill>`,
  );
  return `<available_skills>\n${entries.join('\n')}\n</available_skills>`;
}

interface DuplicateMark {
  reads: number;
  ordinal: number;
}

function markDuplicates(contributions: Contribution[]): Map<Contribution, DuplicateMark> {
  const groups = new Map<string, Contribution[]>();
  for (const c of contributions) {
    if (!c.readKey) continue;
    const group = groups.get(c.readKey);
    if (group) group.push(c);
    else groups.set(c.readKey, [c]);
  }
  const marks = new Map<Contribution, DuplicateMark>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    group.forEach((c, i) => marks.set(c, { reads: group.length, ordinal: i + 1 }));
  }
  return marks;
}

// Contributions may be shared with a cache across reports: they are read here, never changed.
function toItem(
  c: Contribution,
  scaled: number | null,
  used: number | null,
  duplicate: DuplicateMark | undefined,
  order: number,
): ReportItem {
  return {
    id: itemId(c.sourceRef),
    label: c.label,
    sourceRef: c.sourceRef,
    estimatedTokens: c.tokens,
    scaledTokens: scaled,
    percentOfUsed: percentOf(scaled, used),
    bytes: c.bytes,
    ...(c.path !== undefined ? { path: c.path } : {}),
    ...(duplicate ? { duplicate } : {}),
    order,
  };
}

interface SuggestFacts {
  input: ReportInput;
  contributions: Contribution[];
  duplicates: Map<Contribution, DuplicateMark>;
  scaledById: Map<Contribution, number>;
  omissions: Omissions;
  used: number | null;
}

/** Advice from the figures at hand: repeated reads, one dominant item, pruning, a full window, idle skills. */
function suggest({ input, contributions, duplicates, scaledById, omissions, used }: SuggestFacts): Suggestion[] {
  const out: Suggestion[] = [];
  const tokensOf = (c: Contribution) =>
    used === null ? `≈${fmt(c.tokens)} estimated tokens` : `≈${fmt(scaledById.get(c) ?? 0)} tokens`;

  const groups = new Map<string, Contribution[]>();
  for (const [c] of duplicates) {
    const group = groups.get(c.readKey!);
    if (group) group.push(c);
    else groups.set(c.readKey!, [c]);
  }
  for (const group of groups.values()) {
    const extra = group.slice(1);
    const repeated = sum(extra.map((c) => c.tokens));
    const repeatedScaled = used === null ? null : sum(extra.map((c) => scaledById.get(c) ?? 0));
    const what = group[0]!.path ?? group[0]!.label;
    out.push({
      kind: 'duplicate_read',
      severity: 'warning',
      title: `${what} is in context ${group.length} times`,
      detail: `The same content was read ${group.length} times; the ${extra.length === 1 ? 'extra read repeats' : `${extra.length} extra reads repeat`} ≈${fmt(repeated)} estimated tokens${repeatedScaled === null ? '' : ` (≈${fmt(repeatedScaled)} of the used context)`}. Ask the agent to refer to the earlier read instead of reading again.`,
      itemIds: group.map((c) => itemId(c.sourceRef)),
      figures: {
        reads: group.length,
        repeatedEstimatedTokens: repeated,
        ...(repeatedScaled === null ? {} : { repeatedScaledTokens: repeatedScaled }),
      },
    });
  }

  if (used !== null && used > 0) {
    for (const c of contributions) {
      const share = ((scaledById.get(c) ?? 0) / used) * 100;
      if (share <= LARGE_ITEM_PERCENT) continue;
      out.push({
        kind: 'large_item',
        severity: 'warning',
        title: `${c.label} is ${share.toFixed(1)}% of the used context`,
        detail: `One item holds ${tokensOf(c)} of ${fmt(used)}. If only part of it is needed, a narrower read (a range, a grep) keeps the rest out.`,
        itemIds: [itemId(c.sourceRef)],
        figures: { percentOfUsed: round2(share), scaledTokens: scaledById.get(c) ?? 0, estimatedTokens: c.tokens },
      });
    }
  }

  if (omissions.prunedOutputs.count > 0) {
    out.push({
      kind: 'pruned_outputs',
      severity: 'info',
      title: `${omissions.prunedOutputs.count} tool output${omissions.prunedOutputs.count === 1 ? ' was' : 's were'} pruned`,
      detail: `OpenCode cleared ${fmtBytes(omissions.prunedOutputs.bytes)} of old tool output to make room; the model now sees a placeholder. If the agent needs that output again it has to re-run the tool.`,
      itemIds: [],
      figures: { count: omissions.prunedOutputs.count, bytes: omissions.prunedOutputs.bytes },
    });
  }

  const usage = input.usage;
  const windowPercent = usage ? percentOfWindow(usage) : null;
  if (usage && windowPercent !== null && windowPercent >= NEAR_COMPACTION_PERCENT) {
    out.push({
      kind: 'near_compaction',
      severity: 'warning',
      title: `The context window is ${windowPercent.toFixed(1)}% full: compaction is near`,
      detail: `${fmt(usage.contextUsed)} of ${fmt(usage.contextSize)} tokens are used. When the window fills, OpenCode compacts the history into a summary and the details above leave the context.`,
      itemIds: [],
      figures: { percent: windowPercent, contextUsed: usage.contextUsed, contextSize: usage.contextSize ?? 0 },
    });
  }

  // A skill loaded and then never named again by anyone: its body may be dead weight.
  const lastMention = new Map<string, number>();
  input.messages.forEach(({ analysis }, index) => analysis.mentions.forEach((name) => lastMention.set(name, index)));
  const latestLoad = new Map<string, { load: Contribution; index: number; count: number }>();
  input.messages.forEach(({ analysis }, index) => {
    for (const load of analysis.contributions.filter((c) => c.readKey?.startsWith('skill:'))) {
      const name = load.readKey!.slice('skill:'.length);
      latestLoad.set(name, { load, index, count: (latestLoad.get(name)?.count ?? 0) + 1 });
    }
  });
  for (const [name, { load, index, count }] of latestLoad) {
    const laterMessages = input.messages.length - index - 1;
    if (laterMessages === 0 || (lastMention.get(name) ?? -1) > index) continue;
    out.push({
      kind: 'unused_skill',
      severity: 'info',
      title: `Skill ${name} was loaded but not referenced since`,
      detail: `${count > 1 ? `Its latest of ${count} loads` : 'Loading it'} put ${tokensOf(load)} in context; no later message names it in ${laterMessages} message${laterMessages === 1 ? '' : 's'}.`,
      itemIds: [itemId(load.sourceRef)],
      figures: {
        estimatedTokens: load.tokens,
        loads: count,
        laterMessages,
        ...(used === null ? {} : { scaledTokens: scaledById.get(load) ?? 0 }),
      },
    });
  }
  return out;
}

/** A short stable id for an item (FNV-1a of its sourceRef), safe in URLs. */
export function itemId(sourceRef: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < sourceRef.length; i++) {
    const code = sourceRef.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 0x01000193);
    h2 = Math.imul(h2 ^ code, 0x811c9dc5) ^ (h1 >>> 7);
  }
  return `it_${(h1 >>> 0).toString(16).padStart(8, '0')}${(h2 >>> 0).toString(16).padStart(8, '0')}`;
}

function addOmissions(into: Omissions, from: Omissions): void {
  for (const key of Object.keys(into) as (keyof Omissions)[]) {
    into[key].count += from[key].count;
    into[key].bytes += from[key].bytes;
  }
}

function excludedEntries(history: ReportInput['history'], o: Omissions): Excluded[] {
  const out: Excluded[] = [];
  if (history.messages > 0) {
    out.push({
      label: 'History before the latest compaction',
      reason: 'Replaced by the compaction summary; the model no longer sees these messages.',
      bytes: history.bytes,
      count: history.messages,
    });
  }
  if (o.prunedOutputs.count > 0) {
    out.push({
      label: 'Pruned tool outputs',
      reason: 'Cleared by OpenCode; the model sees "[Old tool result content cleared]" instead.',
      bytes: o.prunedOutputs.bytes,
      count: o.prunedOutputs.count,
    });
  }
  if (o.attachmentBodies.count > 0) {
    out.push({
      label: 'Attachment bodies (base64)',
      reason: 'Counted by their metadata only; image tokens are folded in by the scaling.',
      bytes: o.attachmentBodies.bytes,
      count: o.attachmentBodies.count,
    });
  }
  if (o.ignoredText.count > 0) {
    out.push({
      label: 'Ignored text parts',
      reason: 'Marked ignored; never sent to the model.',
      bytes: o.ignoredText.bytes,
      count: o.ignoredText.count,
    });
  }
  if (o.bookkeeping.count > 0) {
    out.push({
      label: 'Bookkeeping parts (step, patch, snapshot, agent, retry)',
      reason: 'Kept by OpenCode for itself; never sent to the model.',
      bytes: o.bookkeeping.bytes,
      count: o.bookkeeping.count,
    });
  }
  return out;
}

function notes(
  input: ReportInput,
  estimator: Estimator,
  facts: { attributable: boolean; hasAttachments: boolean; totalTokens: number },
): string[] {
  const out = [
    `Estimated with ${estimator.method}: not tokenizer-exact for the agent's model.`,
    "Scaled tokens share the agent-reported total (ACP usage_update) out in proportion to the estimates; they are not OpenCode's internal or cache allocation.",
    "The agent runtime's own system prompt and tool schemas are not visible to the server; the scaling folds them into every source in proportion.",
    'Only visible, persisted reasoning is counted; hidden model reasoning is never guessed.',
  ];
  if (facts.hasAttachments)
    out.push(
      'Images and other attachments count by their metadata; what the model spends on them is folded in by the scaling.',
    );
  if (input.usage === null)
    out.push(
      'Pending: no ACP usage has been reported for this session yet, so there are estimates only and no scaled figures.',
    );
  else if (facts.totalTokens === 0)
    out.push('Nothing attributable was found, so the reported total cannot be shared out.');
  return out;
}

function percentOf(scaled: number | null, used: number | null): number | null {
  if (scaled === null || used === null) return null;
  return used === 0 ? 0 : round2((scaled / used) * 100);
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
const round2 = (n: number): number => Math.round(n * 100) / 100;
const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;
