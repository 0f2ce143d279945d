/**
 * The web app's MSW fixtures: real API answers from the real engine on the demo data. Written
 * to test/fixtures by scripts/generate-fixtures.ts; test/node/fixtures-current.test.ts checks
 * that what is checked in is what the engine answers now.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import { createApp } from '../../src/node/server/app';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';

const TOKEN = 'fixture-token';
/** Machine-specific paths would make the fixtures differ per checkout. */
export const FIXTURE_ROOT = '/srv/investibook/workspaces/demo';
export const FIXTURE_TIME = '2026-11-29T12:00:00.000Z';

export async function buildApiFixtures(): Promise<Record<string, unknown>> {
  // A fixed folder: its path is part of texts the model reads (instruction blocks, the skill
  // catalog), so a random one would change the estimates from one run to the next.
  const dir = join(tmpdir(), 'investibook-api-fixtures');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const dbPath = join(dir, 'investibook.db');
  const { root } = await seedDemoDatabase(dbPath, TOKEN);
  const store = await openSqlite(dbPath);
  const reportStore = await openSqlite(dbPath, { readOnly: true });
  try {
    // A session without any ACP usage yet: its report is "pending".
    await store.insertMessage({
      id: 'msg_fixture_pending_0001',
      workspaceId: 'demo',
      sessionId: 'ses_fixture_pending',
      timeCreated: 1,
      timeUpdated: 1,
      info: { role: 'user', time: { created: 1 } },
      parts: [{ id: 'prt_1', type: 'text', text: 'A new question, not answered yet.' }],
    });
    const app = createApp({ store, reportStore });
    const get = async (path: string) => {
      const response = await app.request(path, { headers: { Authorization: `Bearer ${TOKEN}` } });
      if (!response.ok) throw new Error(`${path}: ${response.status}`);
      // OpenCode also wrote the folder relative to its worktree "/", without the leading slash.
      const text = (await response.text())
        .replaceAll(root, FIXTURE_ROOT)
        .replaceAll(root.slice(1), FIXTURE_ROOT.slice(1));
      const body = JSON.parse(text) as Record<string, unknown>;
      if ('generatedAt' in body) body.generatedAt = FIXTURE_TIME;
      return body;
    };
    const workspace = (await get('/api/workspace/demo')) as { sessions: { id: string }[]; defaultSessionId: string };
    const session = workspace.sessions.find((s) => s.id !== 'ses_fixture_pending')!.id;
    workspace.sessions = workspace.sessions.filter((s) => s.id !== 'ses_fixture_pending');
    workspace.defaultSessionId = session;
    const report = (await get(`/api/workspace/demo/debug/context?session_id=${session}`)) as {
      snapshotId: string;
      sources: { items: { id: string; label: string }[] }[];
    };
    const skill = report.sources
      .flatMap((s) => s.items)
      .find((i) => i.label === 'Loaded skill: tidb-clinic-diagnosis')!;
    const pinned = `session_id=${session}&snapshot=${report.snapshotId}`;
    return {
      'workspace-demo.json': workspace,
      'messages-demo.json': await get(`/api/workspace/demo/messages?session_id=${session}`),
      'usage-demo.json': await get(`/api/workspace/demo/usage?session_id=${session}`),
      'report-demo.json': report,
      'item-skill-demo.json': await get(`/api/workspace/demo/debug/context/items/${skill.id}?${pinned}&page=0`),
      'reader-demo.json': await get(`/api/workspace/demo/debug/context/reader?${pinned}&page=0`),
      'report-pending.json': await get('/api/workspace/demo/debug/context?session_id=ses_fixture_pending'),
    };
  } finally {
    await reportStore.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
