/**
 * Subagents (issue 22): on a session the real OpenCode recorded with a `task` call, the child
 * session the bridge keeps is a session like any other (API `session_id`, CLI `--session`), and
 * the parent's task item shows what it consumed — its total, its largest sources — and names it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import type { SourceId } from '../../src/shared/sources';
import { workspaceSchema, contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { familyCounting } from '../../src/node/scripted-model/server';
import { RECORDING_CONFIG } from '../recording/workspace';
import { captureIo } from '../support/cli';
import { groundTruth } from '../support/ground-truth';
import { createFixture, reportOf, TOKEN, WS, type Fixture } from '../support/fixtures';
import { loadRecording, seedRecording } from '../support/recordings';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

const total = (r: ContextReport) =>
  r.sources.reduce((n, s) => n + (s.scaledTokens ?? 0), 0) + (r.remainder ?? []).reduce((n, x) => n + x.tokens, 0);

describe('a task call and its subagent’s session', () => {
  it("shows the child's total and largest sources on the task item, and the child's report is its own", async () => {
    fx = await createFixture();
    const recording = loadRecording('subagent');
    seedRecording(fx, recording, WS);
    const child = recording.children![0]!;

    // The default session stays the parent: it was active last.
    const parent = contextReportSchema.parse(await reportOf(fx, { items: 'all' }));
    expect(parent.sessionId).toBe(recording.sessionId);
    const item = parent.sources.flatMap((s) => s.items).find((i) => i.subagent)!;
    expect(item.label).toBe('Subagent: Check the hot regions');

    const app = await fx.app();
    const response = await app.request(`/api/workspace/${WS}/debug/context?session_id=${child.sessionId}&items=all`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(200);
    const own = contextReportSchema.parse(await response.json());
    expect(own.sessionId).toBe(child.sessionId);
    expect(own.parentSessionId).toBe(recording.sessionId);
    // No ACP total of its own: as of its last measured call, which is the child's last request.
    const childCalls = recording.requests.filter((r) => r.kind !== 'title').length;
    expect(own.asOf?.call).toBe(own.calibration?.calls);
    expect(own.actual?.contextUsed).toBe(own.timeline?.at(-1)?.promptTokens);
    expect(own.actual?.contextSize).toBe(parent.actual?.contextSize);
    expect(total(own)).toBe(own.actual?.contextUsed);
    // The workspace's list names the child's parent: the chat lists it under that conversation.
    const listed = workspaceSchema.parse(
      await (await app.request(`/api/workspace/${WS}`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json(),
    );
    expect(listed.sessions.find((s) => s.id === child.sessionId)?.parentSessionId).toBe(recording.sessionId);
    expect(listed.sessions.find((s) => s.id === recording.sessionId)?.parentSessionId).toBeUndefined();
    expect(childCalls).toBeGreaterThan(own.calibration!.calls);
    // …and that is what the scripted model counted in the child's last request.
    const truth = groundTruth(child.lastRequest!, {
      root: recording.workspace.root,
      localRoot: fx.root,
      instructionFiles: ['AGENTS.md', ...RECORDING_CONFIG.instructions],
      rules: familyCounting(recording.config.family, recording.config.tokenizer),
      hidden: 0,
    });
    expect(own.actual?.contextUsed).toBe(truth.total);
    for (const source of own.sources) {
      expect(
        Math.abs((source.percentOfUsed ?? 0) - (truth.percent[source.id as SourceId] ?? 0)),
        source.id,
      ).toBeLessThanOrEqual(2);
    }

    expect(item.subagent).toMatchObject({
      sessionId: child.sessionId,
      description: 'Check the hot regions',
      agent: 'general',
      stored: true,
      total: own.actual!.contextUsed,
      calls: own.calibration!.calls,
    });
    const largest = [...own.sources]
      .filter((s) => (s.scaledTokens ?? 0) > 0)
      .sort((a, b) => b.scaledTokens! - a.scaledTokens!)
      .slice(0, 3)
      .map((s) => s.id);
    expect(item.subagent!.largest!.map((s) => s.id)).toEqual(largest);
    expect(item.subagent!.cost?.amount).toBe(own.cost?.total);

    // The child's runtime parts: its own agent's definitions (no task tool for a subagent).
    const runtime = own.sources.flatMap((s) => s.items).find((i) => i.runtime)!;
    expect(runtime.parts?.reduce((n, p) => n + p.tokens, 0)).toBe(runtime.scaledTokens);
    expect(runtime.parts?.some((p) => p.name === 'task')).toBe(false);
    expect(own.calibration?.runtime?.parts).toMatchObject({ recorded: true, agent: 'general' });

    const io = captureIo(fx.dir, {});
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath, '--session', child.sessionId, '--json'], io)).toBe(0);
    expect(contextReportSchema.parse(JSON.parse(io.stdout())).actual?.contextUsed).toBe(own.actual?.contextUsed);
    // The table says whose subagent it is; the parent's table names the child's total and its --session.
    const table = captureIo(fx.dir, {});
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath, '--session', child.sessionId], table)).toBe(0);
    expect(table.stdout()).toContain(`A subagent's session, made by a task call of session ${recording.sessionId}`);
    expect(table.stdout()).toContain(`As of model call ${own.asOf!.call} of ${own.asOf!.of} (`);
    const parentTable = captureIo(fx.dir, {});
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath, '--items', 'all'], parentTable)).toBe(0);
    expect(parentTable.stdout()).toContain(
      `its session reached ${own.actual!.contextUsed.toLocaleString('en-US')} tokens in ${own.calibration!.calls} calls`,
    );
    expect(parentTable.stdout()).toContain(`Its report: --session ${child.sessionId}`);
  });

  it('says so when the child session is not stored here (rows from elsewhere)', async () => {
    fx = await createFixture();
    seedRecording(fx, loadRecording('subagent'), WS, undefined, { runtime: false });
    const report = await reportOf(fx, { items: 'all' });
    const item = report.sources.flatMap((s) => s.items).find((i) => i.subagent)!;
    expect(item.subagent).toMatchObject({ stored: false });
    expect(item.subagent!.total).toBeUndefined();
  });
});
