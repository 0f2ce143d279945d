/**
 * The context as of any model call (`?call=N`, `--call N`): on sessions the real OpenCode
 * recorded, every call's report totals that call's measured prompt, its sources and remainder
 * add up to it, and the last call's report is the current one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/node/errors';
import { run } from '../../src/node/cli/main';
import { contextReportSchema, errorBodySchema, type ContextReport } from '../../src/shared/wire';
import { captureIo } from '../support/cli';
import { createFixture, reportOf, TOKEN, WS, type Fixture } from '../support/fixtures';
import { loadRecording, recordingNames, seedRecording } from '../support/recordings';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

const total = (r: ContextReport) =>
  r.sources.reduce((n, s) => n + (s.scaledTokens ?? 0), 0) + (r.remainder ?? []).reduce((n, x) => n + x.tokens, 0);
const strip = (r: ContextReport) => ({ ...r, generatedAt: '', snapshotId: '', asOf: undefined });

describe('the report as of a model call', () => {
  for (const name of recordingNames()) {
    it(`${name}: each call's report totals its measured prompt, and the last is the current one`, async () => {
      fx = await createFixture();
      const recording = loadRecording(name);
      seedRecording(fx, recording, WS);
      const now = await reportOf(fx, { items: 'all' });
      const points = now.timeline ?? [];
      expect(points.length).toBeGreaterThan(1);
      let billed = 0;
      for (const point of points) {
        const then = contextReportSchema.parse(await reportOf(fx, { items: 'all', call: point.call }));
        // What the session had cost by then: the calls up to this one, never the later ones.
        const cost = then.cost!;
        expect(cost.calls, `call ${point.call}`).toBeGreaterThan(billed);
        expect(cost.calls).toBeLessThanOrEqual(now.cost!.calls);
        if (point.call === 1) expect(cost.calls).toBe(1);
        if (now.cost!.total !== null) expect(cost.total!).toBeLessThanOrEqual(now.cost!.total + 1e-9);
        billed = cost.calls;
        expect(then.asOf).toMatchObject({ call: point.call, of: now.calibration!.calls, messageId: point.messageId });
        expect(then.actual?.contextUsed, `call ${point.call}`).toBe(point.promptTokens);
        expect(then.calibration?.mode).toBe('measured');
        expect(total(then), `call ${point.call} adds up`).toBe(point.promptTokens);
      }
      const last = points.at(-1)!;
      if (now.actual?.contextUsed === last.promptTokens && now.calibration!.calls === last.call) {
        const then = await reportOf(fx, { items: 'all', call: last.call });
        expect(strip(then).sources).toEqual(strip(now).sources);
      }
    });
  }

  it('is ?call=N on the API and --call N in the CLI; a bad or missing call is a 400 / usage error in words', async () => {
    fx = await createFixture();
    seedRecording(fx, loadRecording('fresh'), WS);
    const app = await fx.app();
    const get = (query: string) =>
      app.request(`/api/workspace/${WS}/debug/context${query}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const first = await get('?call=1');
    expect(first.status).toBe(200);
    expect(contextReportSchema.parse(await first.json()).asOf?.call).toBe(1);
    for (const [query, code] of [
      ['?call=0', 'invalid_call'],
      ['?call=two', 'invalid_call'],
      ['?call=999', 'call_out_of_range'],
    ] as const) {
      const response = await get(query);
      expect(response.status, query).toBe(400);
      expect(errorBodySchema.parse(await response.json()).error.code).toBe(code);
    }
    const io = captureIo(fx.dir, {});
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath, '--call', '1', '--json'], io)).toBe(0);
    expect(contextReportSchema.parse(JSON.parse(io.stdout())).asOf?.call).toBe(1);
    // The table says what its figures are: that call's prompt, and the cost up to it.
    const table = captureIo(fx.dir, {});
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath, '--call', '1'], table)).toBe(0);
    expect(table.stdout()).toContain("that call's prompt, as the provider counted it");
    expect(table.stdout()).toContain('As of model call 1 of');
    expect(table.stdout()).toMatch(/^Cost up to model call 1: .* over 1 call \(/m);
    expect(table.stdout()).not.toContain('as the agent reported it');
    const bad = captureIo(fx.dir, {});
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath, '--call', '999'], bad)).not.toBe(0);
    expect(bad.stderr()).toMatch(
      /call 999 is out of range: this session has \d+ model calls? whose prompt the provider counted \(1–\d+\)/,
    );
  });

  it('names the calls there are when asked for one that is not', async () => {
    fx = await createFixture();
    seedRecording(fx, loadRecording(recordingNames()[0]!), WS);
    const asked = reportOf(fx, { call: 999 });
    await expect(asked).rejects.toBeInstanceOf(AppError);
    await expect(asked).rejects.toMatchObject({ code: 'call_out_of_range', message: expect.stringMatching(/1–\d+/) });
  });
});
