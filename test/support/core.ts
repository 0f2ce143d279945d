/**
 * The pure core in memory: messages and a workspace as plain data in, the report out. No
 * database, no folder, no service — for tests of the engine's rules (the service and its
 * adapters have their own tests, through SQLite and real folders).
 */
import { analyzeMessage } from '../../src/node/core/analyze';
import { buildReport } from '../../src/node/core/build-report';
import { familyRules } from '../../src/node/core/providers';
import { reportInput } from '../../src/node/core/pipeline';
import type { WorkspaceSnapshot } from '../../src/node/core/workspace-items';
import { chars4Estimator, type Estimator } from '../../src/node/report/estimator';
import { parseInfo, parsePart, type CompactionPart } from '../../src/shared/opencode/format';
import type { ContextReport } from '../../src/shared/wire';

export const CORE_ROOT = '/srv/ws';

export interface CoreInput {
  messages: readonly { info: unknown; parts: unknown }[];
  usage?: { contextUsed: number; contextSize: number | null; recordedAt: number } | null;
  items?: number | 'all';
  workspace?: Partial<WorkspaceSnapshot>;
  /** Sizes of workspace files by relative path (absent: no such file). */
  files?: Record<string, number> | ((path: string) => number | null);
  estimator?: Estimator;
  /** Message ids by position (default: ids that sort in message order). */
  ids?: (index: number) => string;
}

export function coreReport(input: CoreInput): ContextReport {
  const { messages } = input;
  const files = input.files ?? {};
  const idOf = input.ids ?? messageId;
  const workspace: WorkspaceSnapshot = {
    root: CORE_ROOT,
    instructions: [],
    skills: [],
    excluded: [],
    warnings: [],
    stamps: [],
    ...input.workspace,
  };
  const attribution = {
    root: CORE_ROOT,
    instructionFiles: new Set(workspace.instructions.map((i) => i.path)),
    fileSize: typeof files === 'function' ? files : (path: string) => files[path] ?? null,
    skillNames: workspace.skills.map((s) => s.name),
  };
  const ignore = () => {};
  const headers = messages.map((m, i) => ({
    id: idOf(i),
    info: parseInfo(m.info, ignore),
    compaction: (Array.isArray(m.parts)
      ? (m.parts.map((p) => parsePart(p, ignore)).find((p) => p?.type === 'compaction') ?? null)
      : null) as CompactionPart | null,
    size: JSON.stringify(m).length,
  }));
  const estimator = input.estimator ?? chars4Estimator;
  const built = reportInput({
    workspaceId: 'ws_core',
    sessionId: 'ses_core',
    generatedAt: new Date(0).toISOString(),
    snapshotId: 'snap_core',
    estimator,
    historyEstimator: chars4Estimator,
    workspace,
    headers,
    analyze: (i, chosen, facts) =>
      analyzeMessage(idOf(i), messages[i]!.info, messages[i]!.parts, {
        attribution: { ...attribution, sessionRoots: facts.sessionRoots },
        estimator: chosen,
        targetModel: facts.targetModel,
        family: familyRules(facts.family),
        rough: facts.rough,
      }),
    usage: input.usage ?? null,
    warnings: [],
  });
  return buildReport({ ...built, itemsLimit: input.items ?? 'all' });
}

/** Ids that sort in message order, as OpenCode's do. */
export const messageId = (index: number): string => `msg_${String(index).padStart(6, '0')}`;

let clock = 1_800_000_000_000;
export const user = (parts: unknown[]) => ({
  info: { id: '', role: 'user', time: { created: (clock += 1000) }, agent: 'build' },
  parts,
});
export const assistant = (parts: unknown[], info: Record<string, unknown> = {}) => ({
  info: {
    id: '',
    role: 'assistant',
    time: { created: (clock += 1000), completed: clock + 500 },
    path: { cwd: CORE_ROOT, root: CORE_ROOT },
    modelID: 'scripted',
    providerID: 'local',
    finish: 'stop',
    ...info,
  },
  parts,
});
