/**
 * The pure core in memory: messages and a workspace as plain data in, the report out. No
 * database, no folder, no service — for tests of the engine's rules (the service and its
 * adapters have their own tests, through SQLite and real folders).
 */
import { contextReport, type ContextResult, type Memo, type StoredRow } from '../../src/node/core/context-report';
import { chars4Estimator } from '../../src/node/core/estimate';
import { opencodeRuntime } from '../../src/node/core/opencode';
import type { Estimator, WorkspaceSnapshot } from '../../src/node/core/types';
import type { ContextReport } from '../../src/shared/wire';

export const CORE_ROOT = '/srv/ws';

export interface CoreInput {
  messages: readonly { info: unknown; parts: unknown }[];
  usage?: { contextUsed: number; contextSize: number | null; recordedAt: number } | null;
  items?: number | 'all';
  workspace?: Partial<WorkspaceSnapshot>;
  /** Sizes of workspace files by relative path (absent: no such file). */
  files?: Record<string, number>;
  estimator?: Estimator;
  /** Message ids by position (default: ids that sort in message order). */
  ids?: (index: number) => string;
  /** Each message's stamp (default: '1'). */
  stamps?: (index: number) => string;
  /** A memo kept between reports (default: none kept). */
  memo?: Memo;
}

/** The core's answer for messages and a workspace given as plain data (every row at hand). */
export async function coreResult(input: CoreInput, texts?: Parameters<typeof contextReport>[0]['texts']) {
  const idOf = input.ids ?? messageId;
  const stampOf = input.stamps ?? (() => '1');
  const workspace: WorkspaceSnapshot = {
    root: CORE_ROOT,
    instructions: [],
    skills: [],
    excluded: [],
    warnings: [],
    stamps: [],
    files: input.files ?? {},
    ...input.workspace,
  };
  const rows = new Map<string, StoredRow>();
  const messages = input.messages.map((m, i) => {
    const id = idOf(i);
    const info = JSON.stringify(m.info) ?? null;
    const parts = JSON.stringify(m.parts) ?? null;
    rows.set(id, { id, stamp: stampOf(i), size: (info?.length ?? 0) + (parts?.length ?? 0), info, parts });
    return { id, stamp: stampOf(i) };
  });
  const estimator = input.estimator ?? chars4Estimator;
  const result: ContextResult = await contextReport(
    {
      workspaceId: 'ws_core',
      sessionId: 'ses_core',
      generatedAt: new Date(0).toISOString(),
      estimator: estimator.id,
      workspace,
      usage: input.usage ?? null,
      messages,
      rows,
      warnings: [],
      items: input.items ?? 'all',
      ...(texts ? { texts } : {}),
    },
    { runtime: opencodeRuntime, estimator: () => estimator, ...(input.memo ? { memo: input.memo } : {}) },
  );
  return result;
}

export async function coreReport(input: CoreInput): Promise<ContextReport> {
  return (await coreResult(input)).report;
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
