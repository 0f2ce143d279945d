/**
 * The report on real sessions that users published (test/fixtures/public, with their provenance
 * in sources.json), each imported by `investibook import` as a user would: Anthropic Claude with long thinking, OpenAI reasoning models of two OpenCode
 * generations, DeepSeek, GLM, a model served through Ollama (548 calls, no cost, no cache), a
 * model switch, compactions. There is no recorded request to compare with, so the report is held
 * to what the providers' own counts allow:
 *
 * - the runtime item (OpenCode's system prompt and tool schemas) is what the first call of a
 *   combination of agent and model measured, measured again only where the rows show the
 *   runtime changed — never to absorb growth;
 * - what each call added, by its estimates, follows the growth the provider measured for it
 *   (less the hidden reasoning the provider kept, plus what it dropped), within ±40 %, for nine
 *   calls in ten at least;
 * - hidden reasoning is measured apart, and what each provider does with reasoning is what the
 *   counts show (kept within a turn, dropped at a new user message, received back or not).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/node/cli/main';
import type * as timeline from '../../src/node/core/timeline';
import { ReportService } from '../../src/node/report/service';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { captureIo } from '../support/cli';
import { WS } from '../support/fixtures';

// Every call on the timeline: the wire bounds it to 200 points (the largest jumps and the calls
// with an event kept first), and growth compares only between consecutive calls.
vi.mock('../../src/node/core/timeline', async (original) => {
  const actual = await original<typeof timeline>();
  return { ...actual, downsample: (points: Parameters<typeof actual.downsample>[0]) => [...points] };
});

const DIR = join(import.meta.dirname, '..', 'fixtures', 'public');
const SOURCES = JSON.parse(readFileSync(join(DIR, 'sources.json'), 'utf8')) as {
  file: string;
  url: string;
  kept: string;
}[];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A public export as `investibook import` stores it (the command itself, in-process): OpenCode's
 * rows and nothing else, so the total is the last measured call's prompt as the provider counted it.
 */
async function reportOfExport(file: string): Promise<ContextReport> {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-public-'));
  dirs.push(dir);
  const root = join(dir, 'ws');
  mkdirSync(root);
  const io = captureIo(dir);
  const code = await run(['import', join(DIR, file), '--db', join(dir, 'x.db'), '--root', root, '--workspace', WS], io);
  expect(io.stderr()).toBe('');
  expect(code).toBe(0);
  const store = await openSqlite(join(dir, 'x.db'), { readOnly: true });
  try {
    const report = await new ReportService(store).report({ workspaceId: WS, items: 'all' });
    expect(contextReportSchema.safeParse(report).success).toBe(true);
    expect(report.actual).toMatchObject({
      source: 'provider',
      contextUsed: report.calibration!.reference!.promptTokens,
    });
    return report;
  } finally {
    await store.close();
  }
}

/** What the rows may give as the reason the runtime was measured (again). */
const ROW_REASONS =
  /^(first call|another agent|another model|other tools or system prompt asked for|tools or system prompt back to the defaults)(, as measured before)?$/;

/** What each provider is known to do, from these sessions' counts (docs/opencode.md). */
const EXPECT: Record<string, (r: ContextReport) => void> = {
  'anthropic-claude-sonnet-5_pfm-categorization.json': (r) => {
    // Its calls' growth is shared by the Claude tokenizer's counts, named on every point.
    expect(new Set(r.timeline!.map((p) => p.tokenizer))).toEqual(new Set(['Claude tokenizer (ai-tokenizer)']));
    // 32,000 tokens of thinking behind a summary: measured apart, not in the runtime item.
    const hidden = r.remainder!.find((row) => row.kind === 'hidden_reasoning')!;
    expect(hidden.percentOfUsed!).toBeGreaterThan(15);
    const runtime = r.sources.flatMap((s) => s.items).find((i) => i.runtime)!;
    expect(runtime.percentOfUsed!).toBeLessThan(10);
    expect(r.calibration!.reasoning).toMatchObject({ keepsHidden: true });
  },
  'openai-gpt-5.6-sol_matugen-theme-sync.json': (r) => {
    expect(new Set(r.timeline!.map((p) => p.tokenizer))).toEqual(new Set(['o200k_base BPE']));
    // Every earlier call's encrypted reasoning, kept across turns; counted once per summary part.
    expect(r.remainder!.find((row) => row.kind === 'hidden_reasoning')!.tokens).toBeGreaterThan(3000);
    expect(r.timeline!.reduce((n, p) => n + (p.hiddenAdded ?? 0), 0)).toBeGreaterThan(3000);
    expect(r.calibration!.reasoning).toMatchObject({ keepsHidden: true, dropsHiddenAtTurn: false });
  },
  'openai-gpt-5.3-codex_dark-factory_crisp-garden.json': (r) => {
    // OpenCode 1.2.5 with OpenAI: the turn's reasoning is kept within it, dropped at the next user message.
    expect(r.calibration!.reasoning).toMatchObject({ keepsHidden: true, dropsHiddenAtTurn: true });
  },
  'openai-gpt-5.3-codex_dark-factory_curious-sailor.json': (r) => {
    // Before its compaction (history, estimated cheaply) the prompt falls at two new user
    // messages by the turn's reasoning: dropped there, nothing left unexplained.
    const falls = r.timeline!.filter((p, i) => i > 0 && p.promptTokens < r.timeline![i - 1]!.promptTokens - 1000);
    expect(falls.length).toBeGreaterThanOrEqual(2);
    for (const point of falls) expect(point.hiddenAdded!).toBeLessThan(-1000);
    expect(r.remainder!.find((row) => row.kind === 'unexplained')).toBeUndefined();
  },
  'glm-5_infini_astrbot-anime1.json': (r) => {
    // Visible reasoning counted for the turn it belongs to; dropped at the next user message.
    expect(r.calibration!.reasoning).toMatchObject({ visibleCurrentTurnOnly: true });
    expect(r.excluded.some((e) => e.label.startsWith('Reasoning the provider does not receive'))).toBe(true);
  },
  'glm-5.2+gpt-5.6-sol_cap.json': (r) => {
    // The model switched once: the runtime measured again there, with the reason.
    expect(r.calibration!.runtime!.changes.map((c) => c.reason)).toContain('another model');
    // The relay's own jump of 65,751 tokens after an aborted call: unexplained, never in a source.
    expect(r.remainder!.find((row) => row.kind === 'unexplained')!.tokens).toBeGreaterThan(60_000);
  },
  'deepseek-v4-flash-free_tuiptv.json': (r) => {
    expect(r.calibration!.runtime!.changes.map((c) => c.reason)).toContain('another agent, as measured before');
  },
  'ollama-minimax-m2.7-cloud_k1lib-bootstrap.json': (r) => {
    // 548 calls: every one on the timeline, two compactions, one switch from big-pickle to the Ollama model.
    expect(r.timeline!.length).toBeGreaterThan(500);
    expect(r.timeline!.filter((p) => p.events.includes('compaction'))).toHaveLength(2);
    expect(r.calibration!.runtime!.changes.map((c) => c.reason)).toEqual(['first call', 'another model']);
    expect(new Set(r.timeline!.map((p) => p.tokenizer))).toEqual(new Set(['o200k_base BPE']));
    // Ollama reports no cache and OpenCode a cost of 0 on every call: tokens shown, never money.
    const cost = r.cost!;
    expect(cost.total).toBeNull();
    expect(cost.callsWithCost).toBe(0);
    expect(cost.tokens).toMatchObject({ cacheRead: 0, cacheWrite: 0 });
    expect(cost.notes.join(' ')).toMatch(/cost of 0/);
    expect(cost.notes.join(' ')).toMatch(/no cache/);
    // Call 184's prompt rebounds from call 183's fall that nothing explains (−17,689, then
    // +17,966) as a screenshot arrives: the rebound undoes the fall, the screenshot keeps what
    // its size costs by the rule (~800 tokens a call), never the provider's rebound (16,308 before).
    const shot = r.timeline!.find((p) => p.added.some((a) => a.label.startsWith('Attachment: Screen Shot')))!;
    const image = shot.added.find((a) => a.label.startsWith('Attachment: Screen Shot'))!;
    expect(image.tokens).toBeLessThan(2_000);
    expect(shot.events).toContain('unexplained');
    expect(cost.sources.find((s) => s.id === 'attachment_metadata')!.inputTokens).toBeLessThan(100_000);
  },
};

describe('public OpenCode sessions', () => {
  it('are kept with their provenance', () => {
    expect(SOURCES.length).toBeGreaterThanOrEqual(10);
    for (const source of SOURCES) {
      expect(source.url).toMatch(/^https:\/\/github\.com\/.+\/[0-9a-f]{40}\//);
      expect(['verbatim', 'skeleton']).toContain(source.kept);
    }
  });

  for (const { file } of SOURCES) {
    it(`${file}: the runtime item measures the runtime, and each call's items follow its growth`, async () => {
      const r = await reportOfExport(file);
      expect(r.calibration!.mode).toBe('measured');
      const rows = r.remainder ?? [];
      expect(r.sources.reduce((n, s) => n + s.scaledTokens!, 0) + rows.reduce((n, row) => n + row.tokens, 0)).toBe(
        r.actual!.contextUsed,
      );
      const changes = r.calibration!.runtime!.changes;
      for (const change of changes) expect(change.reason).toMatch(ROW_REASONS);

      const timeline = r.timeline!;
      const changed = new Set(changes.map((c) => c.call));
      let checked = 0;
      let within = 0;
      timeline.forEach((point, index) => {
        if (index === 0 || changed.has(point.call) || point.events.includes('compaction')) return;
        const growth = point.promptTokens - timeline[index - 1]!.promptTokens - (point.hiddenAdded ?? 0);
        const added = (point.addedEstimate ?? 0) - (point.dropped ?? 0);
        checked++;
        if (Math.abs(added - growth) <= 0.4 * Math.max(Math.abs(growth), Math.abs(added)) + 64) within++;
      });
      if (checked >= 5) expect(within / checked).toBeGreaterThanOrEqual(0.9);
      EXPECT[file]?.(r);
    });
  }
});
