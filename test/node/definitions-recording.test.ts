/**
 * OpenCode's definitions recorded after a live turn, as the bridge keeps them
 * (src/node/agent/opencode/session-runtime.ts), on the seeded demo: the seeded set lacks the MCP server
 * the live agent is given (investibook's own report), so the live turn's set is recorded again
 * under a key of its own, applying from that turn; its row is reserved at the turn's end and the
 * recording only fills it in — so the report made at the turn's end keeps its snapshot, its
 * reader and its item pages once the definitions land; and the runtime's change says why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestTime, messageRows, type SessionExport } from '../../src/node/agent/opencode/session-export';
import { keepDefinitions, reserveDefinitions } from '../../src/node/agent/opencode/session-runtime';
import { demoRecordings, seedDemoDatabase } from '../../src/node/demo/builder';
import { ReportService } from '../../src/node/report/service';
import { columnText } from '../../src/node/storage/column-text';
import { openSqlite, type SqliteStore } from '../../src/node/storage/sqlite/sqlite-store';
import type { OpenCodeDefinitions } from '../../src/shared/opencode/definitions';

let dir: string;
let store: SqliteStore;
let root: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-definitions-'));
  const dbPath = join(dir, 'investibook.db');
  ({ root } = await seedDemoDatabase(dbPath, 'definitions-token'));
  store = await openSqlite(dbPath);
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

let live: SessionExport | undefined;

/**
 * A live turn after the seeded conversation, as the bridge would have saved it: a prompt and the
 * build agent's reply to it (a copy of its last measured call's, a minute later), in the rows and
 * in the session's export.
 */
async function liveTurn(): Promise<SessionExport> {
  const { recording } = demoRecordings(root).at(-1)!;
  const seeded = recording.export;
  const user = seeded.messages.findLast((m) => m.info.role === 'user')!;
  const reply = seeded.messages.findLast(
    (m) => m.info.role === 'assistant' && ((m.info as { tokens?: { input?: number } }).tokens?.input ?? 0) > 0,
  )!;
  const start = Math.max(...seeded.messages.map((m) => latestTime(m))) + 60_000;
  const moved = <T>(value: T, id: string, at: number): T =>
    JSON.parse(
      JSON.stringify(value)
        .replaceAll((value as { info: { id: string } }).info.id, id)
        .replace(/"(created|completed|start|end)":\d+/g, (_m, key: string) => `"${key}":${at}`),
    ) as T;
  live = {
    info: seeded.info,
    messages: [
      ...seeded.messages,
      moved(user, 'msg_zzzzlive0001', start),
      moved(reply, 'msg_zzzzlive0002', start + 1000),
    ],
  };
  const fresh = messageRows(live).filter((r) => r.id.startsWith('msg_zzzzlive'));
  await store.transaction(async (tx) => {
    for (const row of fresh) await tx.insertMessage({ ...row, workspaceId: 'demo', sessionId: seeded.info.id });
  });
  return live;
}

const runtimeItem = (report: Awaited<ReturnType<ReportService['report']>>) =>
  report.sources.flatMap((s) => s.items).find((i) => i.runtime)!;

// One story in order: the second test takes the live turn the first recorded (never shuffled).
describe('the definitions of a live turn', { shuffle: false }, () => {
  it('are recorded again when the agent has an MCP server the seeded ones lack; the report at the turn’s end keeps its pages', async () => {
    const exported = await liveTurn();
    const sessionId = exported.info.id;
    const keep = { store, workspaceId: 'demo', exported, children: [], log: () => {} };
    const service = new ReportService(store);
    const seededKey = 'build scripted/scripted';
    const seeded = (await store.sessionRuntime('demo', sessionId)).find((r) => r.runtime_key === seededKey)!;
    const seededDefinitions = JSON.parse(columnText(seeded.definitions).text!) as OpenCodeDefinitions;
    expect(seededDefinitions.mcp).toEqual([]);

    // The turn's end: its rows reserved, the report made then.
    const reserved = await reserveDefinitions({ ...keep, mcpServers: ['investibook'], now: Date.now() });
    // Each agent of the session (build, and compaction for its summary calls), from the turn's prompt on.
    expect(reserved.map((r) => r.key)).toEqual([
      expect.stringMatching(/^build scripted\/scripted @\d+$/),
      expect.stringMatching(/^compaction scripted\/scripted @\d+$/),
    ]);
    const row = reserved[0]!;
    const atEnd = await service.report({ workspaceId: 'demo', items: 'all' });
    expect(runtimeItem(atEnd).parts).toBeUndefined();
    expect(atEnd.calibration?.runtime?.parts).toMatchObject({
      recorded: false,
      reason: expect.stringMatching(/being recorded/),
    });
    const reader = await service.readerPage({ workspaceId: 'demo', snapshotId: atEnd.snapshotId, page: 0 });
    const item = atEnd.sources.find((s) => s.id === 'evidence')!.items[0]!;
    const text = await service.itemContent({ workspaceId: 'demo', itemId: item.id, snapshotId: atEnd.snapshotId });
    // Reserving again (the next turn) adds nothing: the MCP server is in the set reserved.
    expect(
      (await reserveDefinitions({ ...keep, mcpServers: ['investibook'], now: Date.now() })).map((r) => r.key),
    ).toEqual(reserved.map((r) => r.key));

    // The recording lands (here: the live set, the seeded one and the investibook server; its
    // row's time is the one reserved).
    const live: OpenCodeDefinitions = {
      ...seededDefinitions,
      mcp: [
        {
          name: 'investibook',
          status: 'connected',
          tools: [
            {
              name: 'context_report',
              description: 'What fills your context window in this session, by source.',
              inputSchema: '{"type":"object","properties":{"items":{"type":"integer"}},"additionalProperties":false}',
            },
          ],
        },
      ],
    };
    await store.putSessionRuntime({
      workspaceId: 'demo',
      sessionId,
      runtimeKey: row.key,
      parentSessionId: null,
      recordedAt: row.recordedAt,
      definitions: live,
    });
    const after = await service.report({ workspaceId: 'demo', items: 'all' });
    expect(after.snapshotId).toBe(atEnd.snapshotId);
    expect(await service.readerPage({ workspaceId: 'demo', snapshotId: atEnd.snapshotId, page: 0 })).toEqual(reader);
    expect(await service.itemContent({ workspaceId: 'demo', itemId: item.id, snapshotId: atEnd.snapshotId })).toEqual(
      text,
    );
    // Its MCP tool is in the runtime's parts, and the change says why.
    const parts = runtimeItem(after).parts!;
    expect(parts.find((p) => p.kind === 'mcp_server')).toMatchObject({
      name: 'investibook',
      tools: [expect.objectContaining({ name: 'investibook_context_report' })],
    });
    const change = after.calibration!.runtime!.changes.find((c) => c.reason !== 'first call');
    expect(change?.reason).toBe('tools added: investibook_context_report; MCP server investibook added');
    // The seeded calls before the live set keep the seeded definitions: as of call 1, no MCP server.
    const first = await service.report({ workspaceId: 'demo', items: 'all', call: 1 });
    expect(runtimeItem(first).parts!.some((p) => p.kind === 'mcp_server')).toBe(false);
  });

  it('without a way to ask OpenCode, are kept as not recorded, and the snapshot still holds', async () => {
    const exported = live!;
    const service = new ReportService(store);
    // The same turn again: a set is recorded once per turn (its key is taken); only the row still
    // pending (compaction's) is handed back, to be finished.
    const keep = { store, workspaceId: 'demo', exported, children: [], log: () => {} };
    const reserved = await reserveDefinitions({ ...keep, mcpServers: ['investibook', 'another'], now: Date.now() });
    expect(reserved.map((r) => r.key)).toEqual([expect.stringMatching(/^compaction scripted\/scripted @\d+$/)]);
    const before = await service.report({ workspaceId: 'demo' });
    expect(await keepDefinitions({ ...keep, definitions: null, reserved })).toBe(1);
    const kept = (await store.sessionRuntime('demo', exported.info.id)).find(
      (r) => r.runtime_key === reserved[0]!.key,
    )!;
    expect(JSON.parse(columnText(kept.definitions).text!)).toMatchObject({
      kind: 'opencode',
      failed: expect.any(String),
    });
    expect(Number(kept.recorded_at)).toBe(reserved[0]!.recordedAt);
    expect((await service.report({ workspaceId: 'demo' })).snapshotId).toBe(before.snapshotId);
  });
});
