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
} from '../../shared/wire';
import { apportion } from './apportion';
import { itemId, percentOf, percentOfWindow, round2, round4, sum, type UsageInput } from './figures';
import { suggest } from './suggestions';
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

export interface DuplicateMark {
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
