/**
 * The storage contract: what every implementation of the Store interface must do, written once
 * and run against each backend (test/node/storage-contract.test.ts for SQLite, storage-contract-postgres.test.ts for PostgreSQL).
 */
import { describe, expect, it } from 'vitest';
import type { NewMessage, Store } from '../../src/node/storage/store';

export interface StoreHarness {
  /** A fresh, empty, migrated store and a read-only store on the same data. */
  open(): Promise<{ store: Store; readOnly: Store; raw: (sql: string) => Promise<void>; close(): Promise<void> }>;
}

const message = (
  id: string,
  session: string,
  time: number,
  parts: unknown[] = [{ id: 'p', type: 'text', text: id }],
): NewMessage => ({
  id,
  workspaceId: 'w1',
  sessionId: session,
  timeCreated: time,
  timeUpdated: time,
  info: { role: 'user', time: { created: time } },
  parts,
});

const usage = (session: string, source: string, used: number | null, at: number) => ({
  workspaceId: 'w1',
  sessionId: session,
  source,
  contextUsed: used,
  contextSize: 1000,
  costAmount: 0.5,
  costCurrency: 'USD',
  createdAt: at,
});

export function storeContract(name: string, harness: StoreHarness): void {
  describe(`storage contract: ${name}`, () => {
    const withStore = (test: (ctx: Awaited<ReturnType<StoreHarness['open']>>) => Promise<void>) => async () => {
      const ctx = await harness.open();
      try {
        await test(ctx);
      } finally {
        await ctx.close();
      }
    };

    const seed = async (store: Store) => {
      await store.transaction(async (tx) => {
        await tx.insertUser('u1', 'One');
        await tx.insertUser('u2', 'Two');
        await tx.insertTokenHash('a'.repeat(64), 'u1');
        await tx.insertWorkspace({ id: 'w1', name: 'W1', root_path: 'ws/one', created_at: 1 });
        await tx.insertWorkspace({ id: 'w2', name: 'W2', root_path: '/abs/two', created_at: 2 });
        await tx.addMember('w1', 'u1');
        await tx.addMember('w2', 'u2');
      });
    };

    it(
      'accepts rows that fill only the columns of contract §1',
      withStore(async ({ raw, store }) => {
        await raw(`INSERT INTO users (id, name) VALUES ('u', 'U')`);
        await raw(`INSERT INTO api_tokens (token_sha256, user_id) VALUES ('${'b'.repeat(64)}', 'u')`);
        await raw(`INSERT INTO workspaces (id, name, root_path, created_at) VALUES ('w', 'W', '/tmp', 1)`);
        await raw(`INSERT INTO workspace_members (workspace_id, user_id) VALUES ('w', 'u')`);
        await raw(
          `INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES ('msg_1', 'w', 's', 1, 1, '{}', '[]')`,
        );
        await raw(
          `INSERT INTO interaction_token_usage (workspace_id, session_id, source, created_at) VALUES ('w', 's', 'acp', 1)`,
        );
        expect((await store.acpUsageNewestFirst('w', 's'))[0]).toMatchObject({ context_used: null, source: 'acp' });
        expect(await store.listMessages('w', 's')).toHaveLength(1);
      }),
    );

    it(
      'keeps which runtime wrote each message, and says which wrote a session (a row that names none: null)',
      withStore(async ({ raw, store }) => {
        await seed(store);
        const message = (id: string, sessionId: string, runtime?: string) => ({
          id,
          workspaceId: 'w1',
          sessionId,
          timeCreated: 1,
          timeUpdated: 1,
          info: { role: 'user' },
          parts: [],
          ...(runtime ? { runtime } : {}),
        });
        await store.insertMessage(message('msg_a', 's1', 'opencode'));
        await store.upsertMessage(message('msg_b', 's1', 'opencode'));
        await raw(
          `INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES ('msg_c', 'w1', 's2', 1, 1, '{}', '[]')`,
        );
        expect(await store.messageRuntimes('w1', 's1')).toEqual(['opencode']);
        expect(await store.messageRuntimes('w1', 's2')).toEqual([null]);
        expect(await store.messageRuntimes('w1', 'nope')).toEqual([]);
        await store.upsertMessage(message('msg_b', 's1', 'other'));
        expect((await store.messageRuntimes('w1', 's1')).sort()).toEqual(['opencode', 'other']);
      }),
    );

    it(
      'finds users by token hash and workspaces by membership, never telling a foreign one from a missing one',
      withStore(async ({ store }) => {
        await seed(store);
        expect(await store.userIdForTokenHash('a'.repeat(64))).toBe('u1');
        expect(await store.userIdForTokenHash('c'.repeat(64))).toBeNull();
        expect(await store.workspaceForMember('w1', 'u1')).toMatchObject({ id: 'w1', name: 'W1', root_path: 'ws/one' });
        expect(await store.workspaceForMember('w2', 'u1')).toBeNull();
        expect(await store.workspaceForMember('nope', 'u1')).toBeNull();
        expect((await store.workspacesForMember('u1')).map((w) => w.id)).toEqual(['w1']);
        expect((await store.listWorkspaces()).map((w) => w.id)).toEqual(['w1', 'w2']);
        expect(await store.getWorkspace('w2')).toMatchObject({ root_path: '/abs/two', created_at: 2 });
        expect(store.resolveRoot('/abs/two')).toBe('/abs/two');
        expect(store.resolveRoot('ws/one')).toMatch(/\/ws\/one$/);
        await expect(store.checkWritable()).resolves.toBeUndefined();
      }),
    );

    it(
      'orders sessions by activity: messages and ACP usage, never other writers',
      withStore(async ({ store }) => {
        await seed(store);
        await store.insertMessage(message('msg_a1', 'ses_a', 100));
        await store.insertMessage(message('msg_b1', 'ses_b', 200));
        await store.insertUsage(usage('ses_a', 'acp', 10, 300));
        await store.insertUsage(usage('ses_b', 'evidence_postpass', 10, 900));
        const sessions = await store.listSessions('w1');
        expect(sessions.map((s) => [s.session_id, Number(s.message_count), Number(s.last_active)])).toEqual([
          ['ses_a', 1, 300],
          ['ses_b', 1, 200],
        ]);
        expect(await store.sessionExists('w1', 'ses_b')).toBe(true);
        expect(await store.sessionExists('w1', 'ses_c')).toBe(false);
        expect(await store.sessionExists('w2', 'ses_a')).toBe(false);
      }),
    );

    it(
      'keeps messages by id: in order, replaced by upsert, one id once',
      withStore(async ({ store }) => {
        await seed(store);
        await store.insertMessage(message('msg_2', 's', 2));
        await store.insertMessage(message('msg_1', 's', 1));
        expect((await store.listMessages('w1', 's')).map((m) => m.id)).toEqual(['msg_1', 'msg_2']);
        await store.upsertMessage({ ...message('msg_2', 's', 5), parts: [{ type: 'text', text: 'grown' }] });
        const [, second] = await store.listMessages('w1', 's');
        expect(second!.time_updated).toBe(5);
        expect(JSON.parse(String(second!.parts))).toEqual([{ type: 'text', text: 'grown' }]);
        await expect(store.insertMessage(message('msg_1', 'other', 9))).rejects.toThrow();
        // An upsert never moves a message into another session or workspace.
        await store.upsertMessage({ ...message('msg_1', 'other', 9), parts: [{ type: 'text', text: 'hijack' }] });
        await store.upsertMessage({ ...message('msg_1', 's', 9), workspaceId: 'w2', parts: [] });
        expect((await store.listMessages('w1', 's')).map((m) => m.id)).toEqual(['msg_1', 'msg_2']);
        expect(String((await store.listMessages('w1', 's'))[0]!.parts)).not.toContain('hijack');
        expect(await store.listMessages('w1', 'other')).toEqual([]);
        expect(await store.listMessages('w2', 's')).toEqual([]);
      }),
    );

    it(
      'knows which workspace a session belongs to: the one whose rows named it first',
      withStore(async ({ store }) => {
        await seed(store);
        expect(await store.sessionOwner('ses_x')).toBeNull();
        await store.insertUsage({ ...usage('ses_x', 'acp', 10, 50), workspaceId: 'w2' });
        await store.insertMessage(message('msg_x1', 'ses_x', 100));
        expect(await store.sessionOwner('ses_x')).toBe('w2');
        await store.insertMessage(message('msg_y1', 'ses_y', 10));
        await store.insertUsage({ ...usage('ses_y', 'acp', 10, 10), workspaceId: 'w2' });
        expect(await store.sessionOwner('ses_y')).toBe('w1');
      }),
    );

    it(
      'deletes a message only in its own workspace and session',
      withStore(async ({ store }) => {
        await seed(store);
        await store.insertMessage(message('msg_1', 's', 1));
        await store.deleteMessage('w2', 's', 'msg_1');
        await store.deleteMessage('w1', 'other', 'msg_1');
        expect(await store.listMessages('w1', 's')).toHaveLength(1);
        await store.transaction((tx) => tx.deleteMessage('w1', 's', 'msg_1'));
        expect(await store.listMessages('w1', 's')).toEqual([]);
      }),
    );

    it(
      'lists ACP usage newest first, other sources left out',
      withStore(async ({ store }) => {
        await seed(store);
        await store.insertUsage(usage('s', 'acp', 10, 1));
        await store.insertUsage(usage('s', 'acp', 30, 3));
        await store.insertUsage(usage('s', 'evidence_postpass', 99, 4));
        await store.insertUsage(usage('s', 'acp', 20, 2));
        const rows = await store.acpUsageNewestFirst('w1', 's');
        expect(rows.map((r) => r.context_used)).toEqual([30, 20, 10]);
        expect(rows[0]).toMatchObject({ source: 'acp', context_size: 1000, cost_amount: 0.5, cost_currency: 'USD' });
        expect(await store.acpUsageNewestFirst('w1', 's', 1)).toHaveLength(1);
      }),
    );

    it(
      'reads message stamps and rows by id, in the order asked, missing ones left out',
      withStore(async ({ store }) => {
        await seed(store);
        await store.insertMessage(message('msg_1', 's', 1));
        await store.insertMessage(message('msg_2', 's', 2, [{ type: 'compaction', auto: true }]));
        expect((await store.messageStamps('w1', 's')).map((s) => [s.id, Number(s.time_updated)])).toEqual([
          ['msg_1', 1],
          ['msg_2', 2],
        ]);
        const rows = await store.messages(['msg_2', 'msg_missing', 'msg_1']);
        expect(rows.map((m) => m.id)).toEqual(['msg_2', 'msg_1']);
        expect(JSON.parse(String(rows[0]!.parts))).toEqual([{ type: 'compaction', auto: true }]);
        expect(JSON.parse(String(rows[1]!.info))).toEqual({ role: 'user', time: { created: 1 } });
        expect(await store.messages([])).toEqual([]);
      }),
    );

    it(
      'keeps the runtime recorded with a session: one row per key, recorded again in place, its JSON as written',
      withStore(async ({ store, readOnly }) => {
        await seed(store);
        const definitions = {
          tools: [{ id: 'read', parameters: '{"type":"object","$schema":"x"}' }],
          note: 'ü \u0000',
        };
        const row = (key: string, extra: Partial<Parameters<Store['putSessionRuntime']>[0]> = {}) => ({
          workspaceId: 'w1',
          sessionId: 'ses_child',
          runtimeKey: key,
          parentSessionId: 'ses_parent',
          recordedAt: 10,
          definitions,
          ...extra,
        });
        await store.putSessionRuntime(row('build scripted/scripted'));
        await store.putSessionRuntime(row('general scripted/scripted', { parentSessionId: null }));
        await store.putSessionRuntime(row('build scripted/scripted', { recordedAt: 20, definitions: { again: true } }));
        // Another session's and another workspace's rows are theirs.
        await store.putSessionRuntime(row('build scripted/scripted', { sessionId: 'ses_other' }));
        await store.putSessionRuntime(row('build scripted/scripted', { workspaceId: 'w2' }));
        const read = await readOnly.snapshot((snap) => snap.sessionRuntime('w1', 'ses_child'));
        expect(read.map((r) => [r.runtime_key, r.parent_session_id, Number(r.recorded_at)])).toEqual([
          ['build scripted/scripted', 'ses_parent', 20],
          ['general scripted/scripted', null, 10],
        ]);
        expect(JSON.parse(String(read[0]!.definitions))).toEqual({ again: true });
        const kept = JSON.parse(String(read[1]!.definitions)) as typeof definitions;
        // A JSON Schema kept as text keeps its key order on every backend.
        expect(kept.tools[0]!.parameters).toBe('{"type":"object","$schema":"x"}');
        expect(kept.note.startsWith('ü ')).toBe(true);
        expect(await store.sessionRuntime('w1', 'ses_none')).toEqual([]);
        expect(await store.sessionRuntime('w1', 'ses_child\u0000')).toEqual([]);
        // The subagents' sessions of a workspace and their parents, once each, without the definitions.
        expect(await readOnly.snapshot((snap) => snap.sessionParents('w1'))).toEqual([
          { session_id: 'ses_child', parent_session_id: 'ses_parent' },
          { session_id: 'ses_other', parent_session_id: 'ses_parent' },
        ]);
        expect(await store.sessionParents('w2')).toEqual([
          { session_id: 'ses_child', parent_session_id: 'ses_parent' },
        ]);
        await expect(readOnly.putSessionRuntime(row('x'))).rejects.toMatchObject({ code: 'database_read_only' });
        await expect(
          store.transaction(async (tx) => {
            await tx.putSessionRuntime(row('in a transaction'));
            throw new Error('halfway');
          }),
        ).rejects.toThrow('halfway');
        expect((await store.sessionRuntime('w1', 'ses_child')).map((r) => r.runtime_key)).not.toContain(
          'in a transaction',
        );
      }),
    );

    it(
      "keeps where an imported session came from: one row per session, its first import's time kept, the rest (its file too) updated",
      withStore(async ({ store, readOnly }) => {
        await seed(store);
        const row = (extra: Partial<Parameters<Store['putSessionOrigin']>[0]> = {}) => ({
          workspace_id: 'w1',
          session_id: 'ses_child',
          kind: 'opencode_export',
          parent_session_id: 'ses_parent',
          title: 'A title ü',
          directory: '/home/x/incident',
          agent_version: '1.18.33',
          imported_at: 10,
          updated_at: 10,
          source_file: 'exports/ses ü.json' as string | null,
          ...extra,
        });
        await store.putSessionOrigin(row());
        await store.putSessionOrigin(
          row({ imported_at: 99, updated_at: 20, title: 'Renamed', kind: 'opencode', source_file: 'later.json' }),
        );
        await store.putSessionOrigin(
          row({ session_id: 'ses_parent', parent_session_id: null, title: null, source_file: null }),
        );
        await store.putSessionOrigin(row({ workspace_id: 'w2' }));
        const read = await readOnly.snapshot((snap) => snap.sessionOrigins('w1'));
        expect(
          read.map((r) => ({ ...r, imported_at: Number(r.imported_at), updated_at: Number(r.updated_at) })),
        ).toEqual([
          row({ imported_at: 10, updated_at: 20, title: 'Renamed', kind: 'opencode', source_file: 'later.json' }),
          row({ session_id: 'ses_parent', parent_session_id: null, title: null, source_file: null }),
        ]);
        expect(await store.sessionOrigins('w3')).toEqual([]);
        await expect(readOnly.putSessionOrigin(row())).rejects.toMatchObject({ code: 'database_read_only' });
      }),
    );

    it(
      "keeps token counts by session, tokenizer, version and digest: a count stored again is left as it was, another session's or version's is not read",
      withStore(async ({ store, readOnly }) => {
        await seed(store);
        const row = (extra: Partial<Parameters<Store['putTokenCounts']>[0][number]> = {}) => ({
          workspace_id: 'w1',
          session_id: 's1',
          tokenizer: 'o200k_base',
          tokenizer_version: 'ai-tokenizer@1/1',
          content_sha256: 'a'.repeat(64),
          tokens: 12,
          ...extra,
        });
        // More rows than one statement writes (the batches), a conflict inside one of them.
        const many = Array.from({ length: 1201 }, (_, i) =>
          row({ content_sha256: i.toString(16).padStart(64, '0'), tokens: i }),
        );
        await store.putTokenCounts([row(), ...many, row({ tokens: 99 })]);
        await store.putTokenCounts([row({ tokens: 7 }), row({ tokenizer: 'claude', tokens: 13 })]);
        await store.putTokenCounts([
          row({ session_id: 's2', tokens: 1 }),
          row({ tokenizer_version: 'old', tokens: 2 }),
        ]);
        await store.putTokenCounts([row({ workspace_id: 'w2', tokens: 3 })]);
        const read = await readOnly.snapshot((snap) => snap.tokenCounts('w1', ['s1'], 'ai-tokenizer@1/1'));
        const byKey = new Map(read.map((r) => [`${r.tokenizer} ${r.content_sha256}`, Number(r.tokens)]));
        expect(read).toHaveLength(1203);
        expect(byKey.get(`o200k_base ${'a'.repeat(64)}`)).toBe(12);
        expect(byKey.get(`claude ${'a'.repeat(64)}`)).toBe(13);
        expect(byKey.get(`o200k_base ${(1200).toString(16).padStart(64, '0')}`)).toBe(1200);
        const both = await readOnly.snapshot((snap) => snap.tokenCounts('w1', ['s1', 's2'], 'ai-tokenizer@1/1'));
        expect(both).toHaveLength(1204);
        expect(await store.tokenCounts('w1', [], 'ai-tokenizer@1/1')).toEqual([]);
        expect(await store.tokenCounts('w1', ['s1\u0000'], 'ai-tokenizer@1/1')).toEqual([]);
        await expect(readOnly.putTokenCounts([row()])).rejects.toMatchObject({ code: 'database_read_only' });
      }),
    );

    it(
      "keeps one analysis a message: a newer one replaces it, another version's or session's is not read, a few are read by id",
      withStore(async ({ store, readOnly }) => {
        await seed(store);
        const row = (extra: Partial<Parameters<Store['putMessageAnalyses']>[0][number]> = {}) => ({
          workspace_id: 'w1',
          session_id: 's1',
          message_id: 'msg_1',
          analyzer_version: 'investibook@1/1',
          analysis_key: '["bpe:o200k_base","live","k"]',
          content_sha256: 'a'.repeat(64),
          deps: '[]',
          analysis: '{"items":[]}',
          ...extra,
        });
        // More rows than one statement writes (the batches).
        const many = Array.from({ length: 450 }, (_, i) => row({ message_id: `msg_m${i}` }));
        await store.putMessageAnalyses([row(), ...many]);
        await store.putMessageAnalyses([row({ analysis: '{"items":[1]}' }), row({ session_id: 's2' })]);
        await store.putMessageAnalyses([row({ message_id: 'msg_old', analyzer_version: 'investibook@0/1' })]);
        const read = await readOnly.snapshot((snap) => snap.messageAnalyses('w1', ['s1'], 'investibook@1/1'));
        expect(read).toHaveLength(451);
        expect(read.find((r) => r.message_id === 'msg_1')).toMatchObject({ analysis: '{"items":[1]}' });
        const some = await readOnly.snapshot((snap) =>
          snap.messageAnalyses('w1', ['s1', 's2'], 'investibook@1/1', ['msg_1', 'msg_m3']),
        );
        expect(some.map((r) => r.message_id).sort()).toEqual(['msg_1', 'msg_1', 'msg_m3']);
        expect(await store.messageAnalyses('w1', ['s1'], 'investibook@1/1', [])).toEqual([]);
        await expect(readOnly.putMessageAnalyses([row()])).rejects.toMatchObject({ code: 'database_read_only' });
      }),
    );

    it(
      'reads no runtime, no origins, no counts and no analyses from a database made without their tables (another writer made the tables of contract §1 only)',
      withStore(async ({ raw, readOnly }) => {
        await raw('DROP TABLE session_runtime');
        await raw('DROP TABLE session_origins');
        await raw('DROP TABLE token_counts');
        await raw('DROP TABLE message_analyses');
        expect(await readOnly.snapshot((snap) => snap.sessionRuntime('w1', 's'))).toEqual([]);
        expect(await readOnly.snapshot((snap) => snap.sessionParents('w1'))).toEqual([]);
        expect(await readOnly.snapshot((snap) => snap.sessionOrigins('w1'))).toEqual([]);
        expect(await readOnly.snapshot((snap) => snap.tokenCounts('w1', ['s'], 'v'))).toEqual([]);
        expect(await readOnly.snapshot((snap) => snap.messageAnalyses('w1', ['s'], 'v'))).toEqual([]);
        expect((await readOnly.contentRows()).filter((line) => line.startsWith('# '))).toHaveLength(6);
      }),
    );

    it(
      'reads one consistent snapshot: a write made meanwhile is not seen inside it',
      withStore(async ({ store, readOnly }) => {
        await seed(store);
        await store.insertMessage(message('msg_1', 's', 1));
        const seen = await readOnly.snapshot(async (read) => {
          const before = await read.messageStamps('w1', 's');
          await store.insertMessage(message('msg_2', 's', 2));
          await store.insertUsage(usage('s', 'acp', 5, 5));
          const after = await read.messageStamps('w1', 's');
          const rows = await read.acpUsageNewestFirst('w1', 's');
          return { before: before.length, after: after.length, usage: rows.length };
        });
        expect(seen).toEqual({ before: 1, after: 1, usage: 0 });
        expect(await readOnly.messageStamps('w1', 's')).toHaveLength(2);
      }),
    );

    it(
      'rolls a failed transaction back whole',
      withStore(async ({ store }) => {
        await seed(store);
        await expect(
          store.transaction(async (tx) => {
            await tx.insertMessage(message('msg_t', 's', 1));
            throw new Error('halfway');
          }),
        ).rejects.toThrow('halfway');
        expect(await store.listMessages('w1', 's')).toEqual([]);
      }),
    );

    it(
      'refuses writes on the read-only store',
      withStore(async ({ store, readOnly }) => {
        await seed(store);
        // In words: a database that can be read but not written (a 503 at the API).
        await expect(readOnly.insertMessage(message('msg_ro', 's', 1))).rejects.toMatchObject({
          name: 'StoreUnavailable',
          code: 'database_read_only',
        });
        expect(await store.listMessages('w1', 's')).toEqual([]);
        await expect(readOnly.ping()).resolves.toBeUndefined();
        await expect(readOnly.checkWritable()).rejects.toMatchObject({ code: 'database_read_only' });
      }),
    );

    it(
      'finds nothing by an id holding U+0000, on every read, inside a snapshot too',
      withStore(async ({ store, readOnly }) => {
        await seed(store);
        await store.insertMessage(message('msg_1', 's', 1));
        await store.insertUsage(usage('s', 'acp', 10, 2));
        const nul = (id: string) => `${id}\u0000`;
        for (const read of [store, readOnly]) {
          expect(await read.userIdForTokenHash(nul('a'.repeat(64)))).toBeNull();
          expect(await read.workspaceForMember(nul('w1'), 'u1')).toBeNull();
          expect(await read.workspaceForMember('w1', nul('u1'))).toBeNull();
          expect(await read.workspacesForMember(nul('u1'))).toEqual([]);
          expect(await read.listMessages('w1', nul('s'))).toEqual([]);
          expect(await read.listMessages(nul('w1'), 's')).toEqual([]);
          await read.snapshot(async (snap) => {
            expect(await snap.getWorkspace(nul('w1'))).toBeNull();
            expect(await snap.listSessions(nul('w1'))).toEqual([]);
            expect(await snap.sessionExists('w1', nul('s'))).toBe(false);
            expect(await snap.sessionOwner(nul('s'))).toBeNull();
            expect(await snap.acpUsageNewestFirst('w1', nul('s'))).toEqual([]);
            expect(await snap.messageStamps('w1', nul('s'))).toEqual([]);
            expect((await snap.messages([nul('msg_1'), 'msg_1', 'a\u0000b'])).map((m) => m.id)).toEqual(['msg_1']);
          });
        }
        await store.deleteMessage('w1', 's', nul('msg_1'));
        expect(await store.listMessages('w1', 's')).toHaveLength(1);
      }),
    );

    it(
      'stores text with U+0000 where the database can hold it, else refuses it in words (StoreValueError), and goes on',
      withStore(async ({ store }) => {
        await seed(store);
        const canHold = store.backend === 'sqlite';
        const writes: [string, () => Promise<void>][] = [
          ['a message id', () => store.insertMessage(message('msg_\u0000', 's', 1))],
          ['a session id', () => store.upsertMessage(message('msg_2', 's\u0000', 2))],
          ['a usage session', () => store.insertUsage(usage('s\u0000', 'acp', 1, 3))],
          ['a user id', () => store.insertUser('u\u0000', 'Nul')],
          [
            'a workspace name',
            () => store.insertWorkspace({ id: 'w3', name: 'W\u00003', root_path: '/x', created_at: 3 }),
          ],
          ['a membership', () => store.addMember('w1', 'u2\u0000')],
          [
            'a write in a transaction',
            () => store.transaction((tx) => tx.insertMessage(message('msg_t\u0000', 's', 4))),
          ],
        ];
        for (const [what, write] of writes) {
          if (canHold) await expect(write(), what).resolves.toBeUndefined();
          else await expect(write(), what).rejects.toMatchObject({ name: 'StoreValueError', code: 'unstorable_value' });
        }
        // The store goes on as before.
        await store.insertMessage(message('msg_ok', 's', 5));
        expect((await store.listMessages('w1', 's')).map((m) => m.id)).toContain('msg_ok');
        await expect(store.checkWritable()).resolves.toBeUndefined();
      }),
    );

    it(
      'lists every row for digests, sorted, so equal content gives equal lists',
      withStore(async ({ store }) => {
        await seed(store);
        const first = await store.contentRows();
        expect(first.filter((line) => line.startsWith('# '))).toHaveLength(10);
        expect(await store.contentRows()).toEqual(first);
        await store.insertMessage(message('msg_1', 's', 1));
        expect(await store.contentRows()).not.toEqual(first);
      }),
    );
  });
}
