/**
 * What each source cost over the session (issue 23): on public OpenCode sessions with per-call
 * costs (Claude, an OpenAI reasoning model), the sources and rows add up to the session's cost
 * exactly — Σ of the steps' costs — and the billed input tokens to Σ of the calls' prompts; the
 * prices the calls' costs show are found; an item that left the context keeps what it cost.
 * Without costs, the tokens are told and the money is not. Recordings of the real OpenCode against
 * the priced scripted model add up to the cent, and to what ACP reported.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { messageRows, type SessionExport } from '../../src/node/agent/opencode/session-export';
import { producedOf, promptOf } from '../../src/node/core/opencode/calls';
import { acpUsageRow } from '../../src/node/usage';
import { part } from '../../src/shared/opencode/build';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { assistant, coreReport, user } from '../support/core';
import { createFixture, insertMessageRow, insertUsageRow, reportOf, WS, type Fixture } from '../support/fixtures';
import { loadRecording, recordingNames, seedRecording } from '../support/recordings';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'public');
let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

interface Step {
  cost?: number;
  tokens?: { input: number; output: number; reasoning: number; cache: { read: number; write: number } };
}

async function reportOfExport(file: string) {
  const exported = JSON.parse(readFileSync(join(DIR, file), 'utf8').replace(/^\uFEFF/, '')) as SessionExport;
  fx = await createFixture();
  let last = 0;
  for (const row of messageRows(exported)) {
    insertMessageRow(fx.raw, { ...row, workspaceId: WS, sessionId: 'ses_public' });
    last = Math.max(last, row.timeUpdated);
  }
  const steps = exported.messages.flatMap((m) =>
    (m.parts as unknown as (Step & { type: string })[]).filter((p) => p.type === 'step-finish' && p.tokens),
  );
  const prompts = steps.map((s) => s.tokens!.input + s.tokens!.cache.read + s.tokens!.cache.write);
  const used = prompts.filter((p) => p > 0).at(-1)!;
  insertUsageRow(fx.raw, acpUsageRow(WS, 'ses_public', { used, size: 400_000, cost: null }, last + 1));
  const report = contextReportSchema.parse(await reportOf(fx, { items: 'all' }));
  return { report, steps, prompts };
}

const micro = (x: number) => Math.round(x * 1e6);
const sumOf = (r: ContextReport, pick: (c: { amount: number | null; inputTokens: number }) => number) =>
  [...r.cost!.sources, ...r.cost!.rows].reduce((n, c) => n + pick(c), 0);

describe('what each source cost over the session', () => {
  it.each(['anthropic-claude-sonnet-5_pfm-categorization.json', 'openai-gpt-5.6-sol_matugen-theme-sync.json'])(
    '%s: sources and rows add up to the cost of its calls, to the millionth, and to their prompts',
    async (file) => {
      const { report, steps, prompts } = await reportOfExport(file);
      const cost = report.cost!;
      const total = steps.reduce((n, s) => n + (s.cost ?? 0), 0);
      expect(cost.total).toBe(micro(total) / 1e6);
      expect(micro(sumOf(report, (c) => c.amount ?? 0))).toBe(micro(total));
      // Every call's prompt is billed again: the sources and rows hold all of it, and nothing else.
      const billed = prompts.filter((p) => p > 0).reduce((a, b) => a + b, 0);
      expect(cost.tokens.input).toBe(billed);
      expect(sumOf(report, (c) => c.inputTokens)).toBe(billed);
      expect(cost.callsWithCost).toBe(cost.calls);
      // The ledger's shares add up to the calls' cost by themselves, not by rounding them to it.
      expect(cost.notes.join(' ')).not.toMatch(/before rounding/);
      // The calls follow one price list, which their costs and counts show.
      expect(cost.prices).not.toBeNull();
      expect(cost.pricesFit).toBe('exact');
      // The provider's own costs: never priced from the catalog, though it knows the model.
      expect(cost.pricesSource).toBeUndefined();
      expect(cost.notes.join(' ')).not.toMatch(/list prices/);
      // Items carry their share, and a source's items never cost more than the source.
      for (const source of report.sources) {
        const costed = cost.sources.find((s) => s.id === source.id);
        // (The runtime's item is a row of its own.)
        const items = source.items.filter((i) => !i.runtime).reduce((n, i) => n + (i.cost?.amount ?? 0), 0);
        expect(micro(items)).toBeLessThanOrEqual(micro(costed?.amount ?? 0) + source.items.length);
      }
      // Most of a long session's prompt is read from the cache: the ledger books it there.
      expect(cost.tokens.cacheRead).toBeGreaterThan(0);
      expect(cost.sources.reduce((n, s) => n + s.cacheReadTokens, 0)).toBeGreaterThan(0);
    },
  );

  it('prices calls that carry a cost of 0 from the catalog’s list prices for the model, and says so', async () => {
    // OpenAI through a ChatGPT plan: OpenCode records 0 on every call; models.dev lists gpt-5.3-codex
    // at $1.75/M input, $14/M output, $0.175/M cache read (model-catalog.test.ts holds those figures).
    const { report, steps } = await reportOfExport('openai-gpt-5.3-codex_dark-factory_shiny-nebula.json');
    expect(steps.every((s) => s.cost === 0)).toBe(true);
    const atList = steps.reduce((n, s) => {
      const t = { ...s.tokens!, cacheRead: s.tokens!.cache.read, cacheWrite: s.tokens!.cache.write };
      const prompt = promptOf(t).prompt;
      if (prompt === 0) return n;
      const fresh = prompt - t.cacheRead - t.cacheWrite;
      return n + (fresh * 1.75 + producedOf(t) * 14 + t.cacheRead * 0.175) / 1e6;
    }, 0);
    const cost = report.cost!;
    expect(atList).toBeGreaterThan(0);
    expect(cost.total).toBe(micro(atList) / 1e6);
    expect(micro(sumOf(report, (c) => c.amount ?? 0))).toBe(micro(atList));
    expect(cost.callsWithCost).toBe(cost.calls);
    expect(cost.prices).toEqual({ input: 1.75, output: 14, cacheRead: 0.175, cacheWrite: 0 });
    expect(cost.pricesSource).toMatch(
      /^OpenCode [\d.]+'s model list \(models\.dev\), openai\/gpt-5\.3-codex: \$1\.75\/M input/,
    );
    const notes = cost.notes.join(' ');
    expect(notes).toContain(`priced from its tokens at list prices, ${cost.pricesSource}`);
    expect(notes).not.toMatch(/cost of 0|money is not/);
  });

  // Recordings of the real OpenCode against the priced scripted model: each call's cost as OpenCode computed it.
  const priced = recordingNames().filter((name) =>
    loadRecording(name).export.messages.some((m) =>
      (m.parts as unknown as (Step & { type: string })[]).some((p) => p.type === 'step-finish' && (p.cost ?? 0) > 0),
    ),
  );
  it('has priced recordings to check', () => expect(priced).toContain('subagent'));
  it.each(priced)(
    'recording %s: sources and rows add up to the session’s cost to the cent, which is what ACP reported',
    async (name) => {
      fx = await createFixture();
      const recording = loadRecording(name);
      seedRecording(fx, recording, WS);
      const report = contextReportSchema.parse(await reportOf(fx, { items: 'all' }));
      const steps = recording.export.messages.flatMap((m) =>
        (m.parts as unknown as (Step & { type: string })[]).filter((p) => p.type === 'step-finish'),
      );
      const total = steps.reduce((n, s) => n + (s.cost ?? 0), 0);
      const cents = (x: number) => Math.round(x * 100);
      expect(micro(report.cost!.total!)).toBe(micro(total));
      expect(cents(sumOf(report, (c) => c.amount ?? 0))).toBe(cents(total));
      expect(micro(sumOf(report, (c) => c.amount ?? 0))).toBe(micro(total));
      // ACP's cumulative cost is the main session's (a subagent's calls are its own session's).
      const acp = recording.acp.usageUpdates.at(-1)!.cost!.amount;
      expect(cents(report.cost!.total!)).toBe(cents(acp));
    },
  );

  it('keeps what content no longer in context cost, and says what the provider did not report', async () => {
    // Calls priced at $3 per million fresh input tokens, $0.30 cached, $15 output.
    const step = (input: number, cacheRead: number, cost: number) => ({
      ...part.stepFinish({ input, cacheRead, output: 40 }),
      cost,
    });
    const messages = [
      user([part.text('look at the log')]),
      assistant(
        [
          part.stepStart(),
          part.tool({
            tool: 'read',
            input: { filePath: '/srv/ws/evidence/a.log' },
            output: 'x '.repeat(2000),
            time: { compacted: 2_000_000_000_000 },
          }),
          step(4000, 0, 0.0126),
        ],
        { finish: 'tool-calls' },
      ),
      assistant([part.stepStart(), part.text('found it'), step(6000, 4000, 0.0198)]),
      user([part.text('and now?')]),
      assistant([part.stepStart(), part.text('done'), step(4500, 3000, 0.015)]),
    ];
    const report = await coreReport({
      messages,
      files: { 'evidence/a.log': 4000 },
      usage: { contextUsed: 7500, contextSize: 200_000, recordedAt: 0 },
    });
    const cost = report.cost!;
    expect(micro(cost.total!)).toBe(micro(0.0474));
    expect(micro(sumOf(report, (c) => c.amount ?? 0))).toBe(micro(0.0474));
    expect(cost.pricesFit).toBe('exact');
    expect(cost.prices).toMatchObject({ input: 3, cacheRead: 0.3, output: 15 });
    // The read was pruned: no longer in context, it keeps what it cost while it was.
    const evidence = cost.sources.find((s) => s.id === 'evidence')!;
    expect(evidence.leftItems).toBe(1);
    expect(evidence.leftAmount).toBeGreaterThan(0);
    expect(evidence.leftAmount).toBeLessThanOrEqual(evidence.amount!);
    expect(cost.notes.join(' ')).not.toMatch(/no cost|before rounding/);

    const unpriced = await coreReport({
      messages: messages.map((m) => ({
        ...m,
        parts: (m.parts as Record<string, unknown>[]).map(({ cost: _c, ...p }) => p),
      })),
      usage: { contextUsed: 7500, contextSize: 200_000, recordedAt: 0 },
    });
    expect(unpriced.cost!.total).toBeNull();
    expect(unpriced.cost!.sources.every((s) => s.amount === null)).toBe(true);
    const prompts = (unpriced.timeline ?? []).reduce((n, p) => n + p.promptTokens, 0);
    expect(unpriced.cost!.tokens.input).toBe(prompts);
    expect(sumOf(unpriced, (c) => c.inputTokens)).toBe(prompts);
    expect(unpriced.cost!.notes.join(' ')).toMatch(/no model call reported a cost/i);
  });
});
