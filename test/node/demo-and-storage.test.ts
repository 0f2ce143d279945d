/** The demo is a TiDB investigation recorded from the real OpenCode runtime. */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import { openSqlite, type SqliteStore } from '../../src/node/storage/sqlite/sqlite-store';

let dir: string;
let store: SqliteStore;
let db: SqliteStore['db'];
let root: string;
type Row = { id: string; session_id: string; info: string; parts: string; time_updated: number };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-demo-'));
  root = (await seedDemoDatabase(join(dir, 'investibook.db'), 'demo-token')).root;
  store = await openSqlite(join(dir, 'investibook.db'), { readOnly: true });
  db = store.db;
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const messages = (session: string) =>
  (db.prepare('SELECT * FROM messages_v2 WHERE session_id = ? ORDER BY id').all(session) as Row[]).map((r) => ({
    ...r,
    info: JSON.parse(r.info) as Record<string, unknown>,
    parts: JSON.parse(r.parts) as Record<string, unknown>[],
  }));

describe('the demo workspace', () => {
  it('lays out the folder of contract §2', () => {
    for (const path of [
      'AGENTS.md',
      'opencode.json',
      'evidence/evidence_summary_for_agent.txt',
      'evidence/slow-query.log',
      'evidence/metrics/tikv_grpc_p99.json',
      'meta/cluster.json',
      'meta/alerts.json',
      'meta/issue.json',
      'issues/INC-4821.md',
    ]) {
      expect(existsSync(join(root, path)), path).toBe(true);
    }
    expect(readdirSync(join(root, '.opencode/skills')).sort()).toEqual([
      'incident-report-writer',
      'slow-query-analysis',
      'tidb-clinic-diagnosis',
    ]);
    expect(readdirSync(join(root, '.opencode/.all-skills')).length).toBeGreaterThanOrEqual(10);
  });

  it('holds a main session of 40+ messages as OpenCode wrote them, and an older second session', () => {
    const sessions = db
      .prepare(
        'SELECT session_id, COUNT(*) n, MAX(time_updated) t FROM messages_v2 GROUP BY session_id ORDER BY t DESC',
      )
      .all() as { session_id: string; n: number }[];
    expect(sessions).toHaveLength(2);
    expect(sessions[0]!.n).toBeGreaterThanOrEqual(40);
    const main = messages(sessions[0]!.session_id);
    const parts = main.flatMap((m) => m.parts);
    const tools = parts.filter((p) => p.type === 'tool') as { tool: string; state: Record<string, unknown> }[];
    expect(String(main[0]!.parts.find((p) => p.synthetic)?.text)).toMatch(/^<workspace-context>\n<section source="/);
    expect(tools.filter((t) => t.tool === 'skill').length).toBeGreaterThanOrEqual(3);
    expect(
      tools.some(
        (t) =>
          t.tool === 'read' &&
          String((t.state.input as { filePath: string }).filePath).endsWith('evidence/evidence_summary_for_agent.txt'),
      ),
    ).toBe(true);
    expect(
      tools.some(
        (t) => t.tool === 'read' && String((t.state.input as { filePath: string }).filePath).includes('/meta/'),
      ),
    ).toBe(true);
    expect(tools.some((t) => t.tool === 'bash')).toBe(true);
    expect(tools.some((t) => t.tool === 'grep')).toBe(true);
    expect(parts.some((p) => p.type === 'reasoning')).toBe(true);
    expect(parts.some((p) => p.type === 'file' && p.mime === 'image/png')).toBe(true);
    expect(parts.some((p) => p.type === 'file' && p.mime === 'text/plain')).toBe(true);
    // The operator refused a cluster command; the last command was cancelled while it ran.
    expect(tools.some((t) => t.tool === 'bash' && t.state.status === 'error')).toBe(true);
    expect(main.some((m) => (m.info.error as { name?: string } | undefined)?.name === 'MessageAbortedError')).toBe(
      true,
    );
    // A manual compaction that kept a tail.
    const request = main.find((m) => m.parts.some((p) => p.type === 'compaction'))!;
    expect(request.parts.find((p) => p.type === 'compaction')).toMatchObject({
      auto: false,
      tail_start_id: expect.stringMatching(/^msg_/),
    });
    expect(
      main.some((m) => m.info.summary === true && m.info.finish === 'stop' && m.info.parentID === request.id),
    ).toBe(true);
    // Written by OpenCode: every part has its id, every reply its step tokens, paths point here now.
    expect(parts.every((p) => typeof p.id === 'string' && p.id.startsWith('prt_'))).toBe(true);
    expect(
      main
        .filter((m) => m.info.role === 'assistant' && !m.info.error)
        .every((m) => m.parts.some((p) => p.type === 'step-finish')),
    ).toBe(true);
    expect(JSON.stringify(main)).not.toContain('investibook-record-');
    expect(JSON.stringify(main)).toContain(root);
    expect(JSON.stringify(main)).toMatch(/[\u4e00-\u9fff]/);
  });

  it('records one ACP usage_update per prompt, rising but for the compaction, plus a newer evidence_postpass row', () => {
    const [main] = db
      .prepare('SELECT session_id FROM messages_v2 GROUP BY session_id ORDER BY MAX(time_updated) DESC')
      .all() as { session_id: string }[];
    const rows = db
      .prepare(
        'SELECT source, context_used, created_at FROM interaction_token_usage WHERE session_id = ? ORDER BY created_at',
      )
      .all(main!.session_id) as { source: string; context_used: number; created_at: number }[];
    // OpenCode reports 0 after the cancelled turn (its last call measured nothing): skipped by readers.
    expect(rows.filter((r) => r.source === 'acp' && r.context_used === 0)).toHaveLength(1);
    const acp = rows.filter((r) => r.source === 'acp' && r.context_used > 0);
    expect(acp.length).toBeGreaterThanOrEqual(9);
    const falls = acp.filter((r, i) => i > 0 && r.context_used < acp[i - 1]!.context_used);
    expect(falls).toHaveLength(1); // the compaction
    expect(rows.at(-1)).toMatchObject({ source: 'evidence_postpass' });
    expect(rows.at(-1)!.created_at).toBeGreaterThan(acp.at(-1)!.created_at);
  });

  it('refuses to seed over an existing database', async () => {
    await expect(seedDemoDatabase(join(dir, 'investibook.db'), 'x')).rejects.toThrow(/refusing/);
  });
});
