/**
 * Builds the demo: copies demo/workspace into a folder beside the database and seeds the
 * sessions recorded from the real OpenCode runtime (demo/recordings, made by npm run
 * record:opencode) — messages exactly as OpenCode wrote them, every ACP usage_update as an
 * `acp` row — plus an evidence post-pass row that the report must ignore.
 *
 * Two things change on the way in: the recorded workspace folder becomes the demo's folder (as
 * if the workspace had moved), and times move so the incident happens when its story says
 * (2026-11-28, 02:xx UTC) and the warm-up the day before.
 */
import { countSessions } from '../counting/count-sessions';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeSideOf } from '../agent/runtime-registry';
import type { ExportedSession, SessionExports } from '../agent/runtime-seam';
import { sha256Hex } from '../auth';
import { ensureFolder } from '../fs-safe';
import { PROJECT_ROOT } from '../project';
import { openSqlite } from '../storage/sqlite/sqlite-store';
import type { Store } from '../storage/store';
import { acpUsageRow } from '../usage';
import { DEMO_USER_ID, DEMO_WORKSPACE_ID } from './demo-ids';

export { DEMO_USER_ID, DEMO_WORKSPACE_ID } from './demo-ids';
export const DEMO_DIR = join(PROJECT_ROOT, 'demo');
const WORKSPACE_CREATED_AT = Date.parse('2026-11-27T09:00:00Z');

/**
 * The recordings are OpenCode's sessions as its export printed them (npm run record:opencode):
 * read, dated and made rows by its write side (agent/opencode), as a turn's read-back makes them.
 */
function recordedExports(): SessionExports {
  const exports = writeSideOf('opencode').exports;
  if (!exports) throw new Error('the demo is seeded from OpenCode exports: its write side reads none');
  return exports;
}

/** The recorded sessions, oldest first, and when each one's last message should be. */
const SESSIONS = [
  { recording: 'demo-warmup', endsAt: Date.parse('2026-11-27T16:20:00Z') },
  { recording: 'demo-incident', endsAt: Date.parse('2026-11-28T02:58:00Z') },
] as const;

export interface DemoRecording {
  workspace: { root: string };
  acp: {
    usageUpdates: { at?: number; used: number; size: number; cost: { amount: number; currency: string } | null }[];
  };
  /** The session as OpenCode exported it. */
  export: ExportedSession;
  /** OpenCode's definitions for the session, as the bridge records them (session_runtime). */
  runtime?: {
    sessionId: string;
    key: string;
    parentSessionId: string | null;
    recordedAt: number;
    definitions: unknown;
  }[];
}

export interface SeedResult {
  workspaceId: string;
  root: string;
  sessions: string[];
}

/** Creates the demo SQLite database at dbPath. Refuses to touch an existing one. */
export async function seedDemoDatabase(dbPath: string, token: string): Promise<SeedResult> {
  if (existsSync(dbPath)) throw new Error(`refusing to seed an existing database: ${dbPath}`);
  ensureFolder(dirname(resolve(dbPath)));
  const store = await openSqlite(dbPath);
  try {
    return await seedDemo(store, token);
  } finally {
    await store.close();
  }
}

/** Seeds the demo into a store; its folder goes to `workspaces/demo` under the store's data folder. */
export async function seedDemo(store: Store, token: string): Promise<SeedResult> {
  const relativeRoot = join('workspaces', DEMO_WORKSPACE_ID);
  const root = store.resolveRoot(relativeRoot);
  const sessions: string[] = [];

  await store.transaction(async (tx) => {
    await tx.insertUser(DEMO_USER_ID, 'Demo operator');
    await tx.insertTokenHash(sha256Hex(token), DEMO_USER_ID);
    await tx.insertWorkspace({
      id: DEMO_WORKSPACE_ID,
      name: 'INC-4821 · prod-pay-tidb-hz1 payment timeouts',
      root_path: relativeRoot,
      created_at: WORKSPACE_CREATED_AT,
    });
    await tx.addMember(DEMO_WORKSPACE_ID, DEMO_USER_ID);
    for (const { recording, shift, endsAt } of demoRecordings(root)) {
      const sessionId = recording.export.info.id;
      sessions.push(sessionId);
      for (const row of recordedExports().rows(recording.export)) {
        await tx.insertMessage({ ...row, workspaceId: DEMO_WORKSPACE_ID, sessionId });
      }
      for (const [index, update] of recording.acp.usageUpdates.entries()) {
        await tx.insertUsage(
          acpUsageRow(DEMO_WORKSPACE_ID, sessionId, update, (update.at ?? endsAt - shift) + shift + index),
        );
      }
      for (const r of recording.runtime ?? []) {
        if (r.sessionId !== sessionId) continue;
        await tx.putSessionRuntime({
          workspaceId: DEMO_WORKSPACE_ID,
          sessionId,
          runtimeKey: r.key,
          parentSessionId: r.parentSessionId,
          recordedAt: endsAt,
          definitions: r.definitions,
        });
      }
    }
    // Another writer's row, newer than the last ACP row: the report must not take it.
    await tx.insertUsage({
      workspaceId: DEMO_WORKSPACE_ID,
      sessionId: sessions[sessions.length - 1]!,
      source: 'evidence_postpass',
      contextUsed: 8123,
      contextSize: 128000,
      costAmount: 0.0061,
      costCurrency: 'USD',
      createdAt: SESSIONS[SESSIONS.length - 1]!.endsAt + 120_000,
    });
  });
  // The folder after the rows: an instance that lost the race to seed never touches it.
  rmSync(root, { recursive: true, force: true });
  ensureFolder(dirname(root));
  cpSync(join(DEMO_DIR, 'workspace'), root, { recursive: true });
  backdate(root, WORKSPACE_CREATED_AT);
  // Seeding is the product writing: the sessions' token counts stored, as the bridge stores a turn's.
  await countSessions(store, DEMO_WORKSPACE_ID, sessions);
  return { workspaceId: DEMO_WORKSPACE_ID, root, sessions };
}

/**
 * The workspace's files as they were when the story began: copied now, they would look changed
 * since every seeded call, and the report would take a change of the runtime's instructions
 * for the reason its prompt differs at the first live call (it is the agent's tools: docs/agent.md).
 */
function backdate(folder: string, at: number): void {
  const when = new Date(at);
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) utimesSync(join(entry.parentPath, entry.name), when, when);
  }
}

/**
 * The demo's recorded sessions as they are seeded: the workspace folder moved to `root` and the
 * times moved to the story's (the same export `npm run demo:agent` imports into the agent's own
 * storage, so the agent continues exactly the conversation the chat shows), oldest first.
 */
export function demoRecordings(root: string): { recording: DemoRecording; shift: number; endsAt: number }[] {
  return SESSIONS.map(({ recording: name, endsAt }) => {
    const recording = loadRecording(name, root);
    const { latestTime } = recordedExports();
    const shift = endsAt - Math.max(...recording.export.messages.map((m) => latestTime(m)));
    const exported = recording.export;
    return {
      recording: {
        ...recording,
        export: {
          info: shiftTimes(exported.info, shift),
          messages: exported.messages.map((m) => ({
            info: shiftTimes(m.info, shift),
            parts: m.parts.map((part) => shiftTimes(part, shift)),
          })),
        },
      },
      shift,
      endsAt,
    };
  });
}

/**
 * A recording with its workspace folder moved to `root`. The recorded folder is a unique
 * temporary path, so replacing it inside JSON strings is exact; OpenCode also wrote it relative
 * to its worktree "/" (without the leading slash).
 */
function loadRecording(name: string, root: string): DemoRecording {
  const text = readFileSync(join(DEMO_DIR, 'recordings', `${name}.json`), 'utf8');
  const recorded = (JSON.parse(text) as DemoRecording).workspace.root;
  const inJson = (path: string) => JSON.stringify(path).slice(1, -1);
  const moved = JSON.parse(
    text.replaceAll(inJson(recorded), inJson(root)).replaceAll(inJson(recorded.slice(1)), inJson(root.slice(1))),
  ) as DemoRecording;
  recordedExports().check(moved.export);
  return moved;
}

/** Moves every time OpenCode recorded (`time: {created, completed, start, end, compacted}`). */
function shiftTimes<T>(value: T, shift: number): T {
  if (Array.isArray(value)) return value.map((v) => shiftTimes(v, shift)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'time' && typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
      out[key] = Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, typeof v === 'number' ? v + shift : v]));
    } else out[key] = shiftTimes(inner, shift);
  }
  return out as T;
}
