/**
 * The runtime seam in production: a session's rows say which agent runtime wrote them
 * (messages_v2.runtime; the bridge writes 'opencode'; a row that says nothing is OpenCode's),
 * the report reads the session with that runtime's adapter, and the adapter's words — not the
 * core's — name the runtime in what the report says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { messageRows } from '../../src/node/agent/opencode/session-export';
import { opencodeRuntime } from '../../src/node/core/opencode';
import { ReportService } from '../../src/node/report/service';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { OWN_MESSAGES } from '../../src/node/agent/runtime-registry';
import { keptPrompt } from '../../src/node/user-message';
import { contextReportSchema } from '../../src/shared/wire';
import { addMessages, addUsage, createFixture, reportOf, text, WS, type Fixture } from '../support/fixtures';
import { loadRecording, seedRecording } from '../support/recordings';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

describe("a session's rows say which runtime wrote them", () => {
  it('the bridge writes opencode: an export, and the prompt it keeps before the agent has it', () => {
    const recording = loadRecording('fresh');
    expect(new Set(messageRows(recording.export).map((r) => r.runtime))).toEqual(new Set(['opencode']));
    expect(keptPrompt(OWN_MESSAGES, WS, 'ses_x', 'hello').runtime).toBe('opencode');
  });

  it('reads a session OpenCode wrote, and one whose rows name no runtime, alike', async () => {
    fx = await createFixture({ 'AGENTS.md': 'rules' });
    addMessages(fx, [{ role: 'user', parts: [text('question')] }]);
    addUsage(fx, 3000);
    const unnamed = await reportOf(fx, { items: 'all' });
    fx.raw.prepare("UPDATE messages_v2 SET runtime = 'opencode'").run();
    const named = await reportOf(fx, { items: 'all' });
    expect({ ...named, generatedAt: '' }).toEqual({ ...unnamed, generatedAt: '' });
  });

  it('answers in words when the rows were written by a runtime this program cannot read', async () => {
    fx = await createFixture();
    addMessages(fx, [{ role: 'user', parts: [text('question')] }]);
    // Claude Code's rows are read since issue 40; Codex's are not (yet).
    fx.raw.prepare("UPDATE messages_v2 SET runtime = 'codex'").run();
    await expect(reportOf(fx)).rejects.toMatchObject({
      kind: 'unsupported',
      code: 'runtime_unsupported',
      message: expect.stringMatching(
        /written by codex, which this program cannot read \(it reads opencode, claude-code\)/,
      ),
    });
    const response = await (
      await fx.app()
    ).request(`/api/workspace/${WS}/debug/context`, {
      headers: { Authorization: 'Bearer test-token-member' },
    });
    expect(response.status).toBe(415);
  });

  it('reads a database of another writer, whose messages_v2 has only the columns of contract §1', async () => {
    fx = await createFixture({ 'AGENTS.md': 'rules' });
    addMessages(fx, [{ role: 'user', parts: [text('question')] }]);
    addUsage(fx, 3000);
    const before = await reportOf(fx, { items: 'all' });
    fx.raw.exec('DROP INDEX messages_v2_runtime; ALTER TABLE messages_v2 DROP COLUMN runtime');
    const store = await openSqlite(fx.dbPath, { readOnly: true });
    try {
      expect(await store.messageRuntimes(WS, (await store.listSessions(WS))[0]!.session_id)).toEqual([]);
      const report = await new ReportService(store).report({ workspaceId: WS, items: 'all' });
      expect({ ...report, generatedAt: '' }).toEqual({ ...before, generatedAt: '' });
      // db copy reads it too.
      const batches = [];
      for await (const batch of store.tableRows('messages_v2')) batches.push(...batch);
      expect(batches).toHaveLength(1);
      expect(batches[0]).not.toHaveProperty('runtime');
    } finally {
      await store.close();
    }
  });
});

describe("the runtime's words", () => {
  it('name the runtime in the suggestions from its adapter', async () => {
    fx = await createFixture();
    seedRecording(fx, loadRecording('pruning'), WS);
    const store = await openSqlite(fx.dbPath, { readOnly: true });
    try {
      const other = { ...opencodeRuntime, name: 'Another Runtime' };
      const report = contextReportSchema.parse(
        await new ReportService(store, { runtime: other }).report({ workspaceId: WS, items: 'all' }),
      );
      const pruned = report.suggestions.find((s) => s.kind === 'pruned_outputs');
      expect(pruned?.detail).toMatch(/^Another Runtime cleared /);
      expect(JSON.stringify(report.suggestions)).not.toMatch(/OpenCode (cleared|compacts)/);
    } finally {
      await store.close();
    }
  });
});
