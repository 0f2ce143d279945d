/**
 * Regenerates test/fixtures/*.json: real API answers from the real engine on the demo data, for
 * the web app's MSW contract tests. Run: npx tsx scripts/generate-fixtures.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemoDatabase } from '../src/node/demo/builder';
import { createApp } from '../src/node/server/app';
import { insertMessage, openReadOnly, openWritable } from '../src/node/storage/store';

const TOKEN = 'fixture-token';
const dir = mkdtempSync(join(tmpdir(), 'investibook-fixtures-'));
const dbPath = join(dir, 'investibook.db');
const { root } = seedDemoDatabase(dbPath, TOKEN);
const db = openWritable(dbPath);
// A session without any ACP usage yet: its report is "pending".
insertMessage(db, {
  id: 'msg_fixture_pending_0001',
  workspaceId: 'demo',
  sessionId: 'ses_fixture_pending',
  timeCreated: 1,
  timeUpdated: 1,
  info: { role: 'user', time: { created: 1 } },
  parts: [{ id: 'prt_1', type: 'text', text: 'A new question, not answered yet.' }],
});
const readOnly = openReadOnly(dbPath);
const app = createApp({ db, readOnlyDb: () => readOnly });
const get = async (path: string) => {
  const response = await app.request(path, { headers: { Authorization: `Bearer ${TOKEN}` } });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  // Machine-specific paths would make the fixtures differ per checkout.
  return JSON.parse((await response.text()).replaceAll(root, '/srv/investibook/workspaces/demo'));
};

const workspace = await get('/api/workspace/demo');
const session = workspace.sessions.find((s: { id: string }) => s.id !== 'ses_fixture_pending').id;
workspace.sessions = workspace.sessions.filter((s: { id: string }) => s.id !== 'ses_fixture_pending');
workspace.defaultSessionId = session;
const report = await get(`/api/workspace/demo/debug/context?session_id=${session}`);
const skill = report.sources
  .flatMap((s: { items: { id: string; label: string }[] }) => s.items)
  .find((i: { label: string }) => i.label === 'Loaded skill: tidb-clinic-diagnosis');
const pinned = `session_id=${session}&snapshot=${report.snapshotId}`;
const fixtures = {
  'workspace-demo.json': workspace,
  'messages-demo.json': await get(`/api/workspace/demo/messages?session_id=${session}`),
  'usage-demo.json': await get(`/api/workspace/demo/usage?session_id=${session}`),
  'report-demo.json': report,
  'item-skill-demo.json': await get(`/api/workspace/demo/debug/context/items/${skill.id}?${pinned}&page=0`),
  'reader-demo.json': await get(`/api/workspace/demo/debug/context/reader?${pinned}&page=0`),
  'report-pending.json': await get('/api/workspace/demo/debug/context?session_id=ses_fixture_pending'),
};
for (const [name, body] of Object.entries(fixtures)) {
  if ('generatedAt' in body) body.generatedAt = '2026-11-29T12:00:00.000Z';
  writeFileSync(join('test/fixtures', name), `${JSON.stringify(body, null, 2)}\n`);
}
readOnly.close();
db.close();
rmSync(dir, { recursive: true, force: true });
console.log(`wrote ${Object.keys(fixtures).length} fixtures to test/fixtures`);
