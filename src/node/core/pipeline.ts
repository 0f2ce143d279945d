/**
 * From a session's messages to the report's input, with no I/O: find the live window from the
 * message headers, have each message analysed (live ones with the chosen estimator, history with
 * chars/4 — it only feeds the call-by-call calibration and the timeline), calibrate, and gather
 * omissions and mentions. The service supplies `analyze`, which reads rows and memoises; tests
 * supply one over data in memory.
 */
import type { CompactionPart, MessageInfo } from '../../shared/opencode/format';
import { toItem, type Estimator, type MessageAnalysis } from './analyze';
import { recordedRoots } from './attribute';
import { emptyOmissions, type Omissions, type ReportInput } from './build-report';
import { calibrate, promptOf } from './calibrate';
import type { UsageInput } from './figures';
import { providerFamily, type ProviderFamily } from './providers';
import { liveWindow, targetModel, type StoredMessage } from './request-view';
import { workspaceContributions, type WorkspaceSnapshot } from './workspace-items';

export interface MessageHeader {
  id: string;
  info: MessageInfo;
  compaction: CompactionPart | null;
  /** Bytes of the stored row (for the excluded history). */
  size: number;
}

/** What the analysis of every message depends on besides the message itself. */
export interface SessionFacts {
  targetModel: string | undefined;
  /** The provider family the next request goes to: its tokenizer and vision rule. */
  family: ProviderFamily;
  /** Folders the agent recorded it ran in (for absolute paths in user messages). */
  sessionRoots: string[];
}

export interface PipelineInput {
  workspaceId: string;
  sessionId: string | null;
  generatedAt: string;
  snapshotId: string;
  estimator: Estimator;
  /** For history: cheap, since it only shares out measured growth. */
  historyEstimator: Estimator;
  workspace: WorkspaceSnapshot;
  headers: readonly MessageHeader[];
  /** `rough`: the cheap history estimator, whose items cannot judge growth (see calibrate). */
  analyze: (index: number, estimator: Estimator, facts: SessionFacts & { rough: boolean }) => MessageAnalysis;
  usage: UsageInput | null;
  warnings: string[];
}

export function sessionFacts(headers: readonly MessageHeader[]): SessionFacts {
  const skeletons = headers.map(skeleton);
  const target = targetModel(skeletons);
  const [provider, ...model] = (target ?? '').split('/');
  return {
    targetModel: target,
    family: providerFamily(provider, model.join('/')),
    sessionRoots: [...new Set(skeletons.flatMap((m) => recordedRoots(m)))],
  };
}

/** A message as the history window needs it: its info and its compaction part, if any. */
export const skeleton = (h: MessageHeader): StoredMessage => ({
  id: h.id,
  info: h.info,
  parts: h.compaction ? [h.compaction] : [],
});

export interface AnalysisPlan {
  facts: SessionFacts;
  /**
   * Per message: analysed with the report's estimator (live context, and everything up to the
   * first call, whose prompt measures the runtime overhead against what it held), or with the
   * cheap one (history: it only shares out measured growth and draws the timeline).
   */
  good: readonly boolean[];
}

export function analysisPlan(headers: readonly MessageHeader[]): AnalysisPlan {
  const live = new Set(liveWindow(headers.map(skeleton)).order);
  const firstCall = headers.findIndex((h) => h.info.role === 'assistant');
  return {
    facts: sessionFacts(headers),
    good: headers.map((_, index) => live.has(index) || firstCall < 0 || index < firstCall),
  };
}

export function reportInput(input: PipelineInput & { plan?: AnalysisPlan }): Omit<ReportInput, 'itemsLimit'> {
  const { facts, good } = input.plan ?? analysisPlan(input.headers);
  const analyses = input.headers.map((_, index) =>
    input.analyze(index, good[index] ? input.estimator : input.historyEstimator, { ...facts, rough: !good[index] }),
  );
  const warnings = [...input.warnings];
  const alwaysLoaded = workspaceContributions(input.workspace).map((c) => toItem(c, input.estimator, warnings));
  const messages = analyses.map((a) => a.skeleton);
  const calibration = calibrate({
    messages,
    items: analyses.map((a) => a.items),
    alwaysLoaded,
    usage: input.usage,
    changes: runtimeFileChanges(input.workspace),
    reasoningCopies: analyses.map((a) => a.reasoningCopies),
  });
  const history = new Set(calibration.history);
  const omissions = emptyOmissions();
  const mentions: ReportInput['mentions'] = [];
  let historyBytes = 0;
  analyses.forEach((analysis, index) => {
    if (history.has(index)) {
      historyBytes += input.headers[index]!.size;
      return;
    }
    warnings.push(...analysis.warnings);
    addOmissions(omissions, analysis.omissions);
    mentions.push({ messageId: analysis.skeleton.id, names: analysis.mentions });
  });
  return {
    workspaceId: input.workspaceId,
    sessionId: input.sessionId,
    generatedAt: input.generatedAt,
    snapshotId: input.snapshotId,
    estimator: { id: input.estimator.id, method: input.estimator.method },
    workspace: input.workspace,
    calibration,
    history: { messages: calibration.history.length, bytes: historyBytes },
    omissions,
    usage: input.usage,
    provider: providerTokens(messages, input.usage),
    targetModel: facts.targetModel,
    mentions,
    warnings: [...new Set(warnings)],
  };
}

/**
 * When the files OpenCode puts in every request last changed on disk: a call after that change
 * may carry a different runtime prompt (instructions, the skill catalog).
 */
function runtimeFileChanges(workspace: PipelineInput['workspace']): { at: number; what: string }[] {
  const instructions = new Set(workspace.instructions.map((i) => i.path));
  const skills = new Set(workspace.skills.map((s) => s.path));
  return workspace.stamps.flatMap((stamp) =>
    instructions.has(stamp.path)
      ? [{ at: stamp.mtimeMs, what: `instructions (${stamp.path})` }]
      : skills.has(stamp.path)
        ? [{ at: stamp.mtimeMs, what: `skill catalog (${stamp.path})` }]
        : [],
  );
}

/** The newest assistant message that reported tokens, with the convention its data follows. */
function providerTokens(messages: readonly StoredMessage[], usage: UsageInput | null): ReportInput['provider'] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const { info, id } = messages[i]!;
    if (info.role !== 'assistant' || !info.tokens) continue;
    const { prompt, convention } = promptOf(info.tokens, usage?.contextUsed);
    if (prompt === 0 && info.tokens.output === 0) continue;
    return { messageId: id, tokens: info.tokens, convention, prompt };
  }
  return null;
}

function addOmissions(into: Omissions, from: Omissions): void {
  for (const key of Object.keys(into) as (keyof Omissions)[]) {
    into[key].count += from[key].count;
    into[key].bytes += from[key].bytes;
  }
}
