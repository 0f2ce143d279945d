/**
 * Recorded OpenCode sessions (test/fixtures/opencode/*.json, written by npm run
 * record:opencode): loads one and seeds it into a test database the way the agent bridge
 * stores a live session — the export through the same conversion, every ACP usage_update as an
 * `acp` usage row — in a copy of the workspace it was recorded in.
 */
import { acpUsageRow } from '../../src/node/usage';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageRows, type SessionExport } from '../../src/node/agent/opencode/session-export';
import type { ChatRequest } from '../../src/node/scripted-model/prompt-tokens';
import type { ReportedUsage, ScriptedFamily } from '../../src/node/scripted-model/server';
import { PROJECT_ROOT } from '../../src/node/project';
import type { StoredMessage } from '../../src/node/core/opencode/request-view';
import { parseInfo, parsePart } from '../../src/shared/opencode/format';
import { buildRecordingWorkspace, treeDigest, type RecordingWorkspace } from '../recording/workspace';
import type { RecordedDefinitions } from '../../src/node/agent/opencode/runtime-definitions';
import { insertMessageRow, insertSessionRuntimeRow, insertUsageRow, type Fixture } from './fixtures';

const DIRS = [join(PROJECT_ROOT, 'test', 'fixtures', 'opencode'), join(PROJECT_ROOT, 'demo', 'recordings')];

export interface Recording {
  scenario: string;
  description: string;
  opencode: string;
  workspace: { kind: RecordingWorkspace; root: string; digest: string };
  config: {
    contextLimit: number;
    prune: boolean;
    tokenizer: 'o200k_base' | 'cl100k_base' | 'claude';
    family?: ScriptedFamily;
  };
  sessionId: string;
  acp: {
    usageUpdates: {
      prompt: number;
      at?: number;
      used: number;
      size: number;
      cost: { amount: number; currency: string } | null;
    }[];
    promptResults: Record<string, unknown>[];
  };
  requests: {
    seq: number;
    kind: string;
    messages: number;
    usage: ReportedUsage;
    charged?: { hidden: number; media: number };
  }[];
  lastRequest: ChatRequest;
  export: SessionExport;
  /** OpenCode's definitions for each session and key, as the bridge records them (recordings since issue 22). */
  runtime?: (RecordedDefinitions & { recordedAt: number })[];
  /** The subagents' sessions its `task` calls made, each exported apart, and the last request each sent. */
  children?: { sessionId: string; export: SessionExport; lastRequest: ChatRequest | null }[];
}

/** The test fixtures and the demo's sessions. */
export const recordingNames = (): string[] =>
  DIRS.flatMap((dir) => readdirSync(dir))
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .sort();

export function loadRecording(name: string): Recording {
  const dir = DIRS.find((d) => existsSync(join(d, `${name}.json`)));
  if (!dir) throw new Error(`no recording named ${name}`);
  return JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as Recording;
}

/** Seeds a recording into a fixture (its workspace folder must be empty). */
export function seedRecording(
  fx: Pick<Fixture, 'root' | 'raw'>,
  recording: Recording,
  workspaceId: string,
  sessionId = recording.sessionId,
  /** runtime: also the subagents' sessions and the runtime's definitions (false: rows from elsewhere). */
  options: { runtime?: boolean } = { runtime: true },
): void {
  if (recording.workspace.kind === 'demo')
    cpSync(join(PROJECT_ROOT, 'demo', 'workspace'), fx.root, { recursive: true });
  else buildRecordingWorkspace(fx.root, recording.workspace.kind);
  const digest = treeDigest(fx.root);
  if (digest !== recording.workspace.digest) {
    throw new Error(
      `the recording workspace changed since ${recording.scenario} was recorded (digest ${digest}, recorded ${recording.workspace.digest}): run npm run record:opencode`,
    );
  }
  const rows = messageRows(recording.export);
  let last = 0;
  for (const row of rows) {
    insertMessageRow(fx.raw, { ...row, workspaceId, sessionId });
    last = Math.max(last, row.timeUpdated);
  }
  recording.acp.usageUpdates.forEach((update, index) => {
    insertUsageRow(fx.raw, acpUsageRow(workspaceId, sessionId, update, last + 1 + index));
  });
  if (!options.runtime) return;
  // As the bridge keeps them: each subagent's session under its own id, and the definitions of each.
  for (const child of recording.children ?? []) {
    for (const row of messageRows(child.export))
      insertMessageRow(fx.raw, { ...row, workspaceId, sessionId: child.sessionId });
  }
  const own = (id: string | null) => (id === recording.sessionId ? sessionId : id);
  for (const r of recording.runtime ?? []) {
    insertSessionRuntimeRow(fx.raw, {
      workspaceId,
      sessionId: own(r.sessionId)!,
      runtimeKey: r.key,
      parentSessionId: own(r.parentSessionId),
      recordedAt: r.recordedAt,
      definitions: r.definitions,
    });
  }
}

/** What the scripted model charged beyond the visible text of the recording's last main request. */
export function lastCharged(recording: Recording): { hidden: number; media: number } {
  const main = recording.requests.filter((r) => r.kind !== 'title');
  return main.at(-1)?.charged ?? { hidden: 0, media: 0 };
}

/** A recording's messages as OpenCode's request view takes them, parsed (what they would warn is left out). */
export function messagesOf(name: string): StoredMessage[] {
  const ignore = () => {};
  return loadRecording(name).export.messages.map((m) => ({
    id: m.info.id,
    info: parseInfo(m.info, ignore),
    parts: m.parts.map((p) => parsePart(p, ignore)),
  }));
}
