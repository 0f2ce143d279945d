/**
 * The report against what the model actually saw. Each recording (npm run record:opencode) was
 * made by the real OpenCode runtime against the scripted model, which kept the last request it
 * received; that request, split by source with the test's own code, is the truth. The report,
 * made from the recorded rows alone, must put every source within 2 percentage points of it,
 * and measure OpenCode's invisible system prompt and tool schemas within 5 %. The demo's own
 * sessions are recordings too, and held to the same standard.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SOURCE_IDS, contextReportSchema } from '../../src/shared/wire';
import { RECORDING_CONFIG } from '../recording/workspace';
import { createFixture, reportOf, WS, type Fixture } from '../support/fixtures';
import { groundTruth } from '../support/ground-truth';
import { familyCounting } from '../../src/node/scripted-model/server';
import { lastCharged, loadRecording, recordingNames, seedRecording } from '../support/recordings';

let fx: Fixture | undefined;
afterEach(() => fx?.cleanup());

const names = recordingNames();

describe('ground truth: the report against the recorded requests of the real OpenCode runtime', () => {
  it('has the four kinds of session the report must get right', () => {
    expect(names).toEqual(
      expect.arrayContaining([
        'fresh',
        'compaction-tail',
        'auto-compaction',
        'pruning',
        'shell-reread',
        'faults',
        'fresh-cl100k',
        'demo-incident',
        'demo-warmup',
      ]),
    );
  });

  for (const name of names) {
    it(`${name}: every source within 2 points of what the model saw, the runtime overhead within 5 %`, async () => {
      fx = await createFixture();
      const recording = loadRecording(name);
      seedRecording(fx, recording, WS);
      const report = await reportOf(fx, { items: 'all' });
      expect(contextReportSchema.safeParse(report).success).toBe(true);

      const truth = groundTruth(recording.lastRequest, {
        root: recording.workspace.root,
        localRoot: fx.root,
        // Both workspaces name the same instruction file in their opencode.json.
        instructionFiles: ['AGENTS.md', ...RECORDING_CONFIG.instructions],
        rules: familyCounting(recording.config.family, recording.config.tokenizer),
        hidden: lastCharged(recording).hidden,
      });
      // The agent's total is the last call's prompt: the request the truth is made from.
      expect(report.actual?.contextUsed).toBe(truth.total);
      expect(report.calibration?.mode).toBe('measured');
      for (const id of SOURCE_IDS) {
        const source = report.sources.find((s) => s.id === id)!;
        expect(
          Math.abs((source.percentOfUsed ?? 0) - truth.percent[id]),
          `${id}: report ${source.percentOfUsed}%, truth ${truth.percent[id].toFixed(2)}%`,
        ).toBeLessThanOrEqual(2);
      }
      const overhead = report.calibration!.runtimeOverhead!;
      expect(Math.abs(overhead - truth.runtimeOverhead) / truth.runtimeOverhead).toBeLessThanOrEqual(0.05);
      // Hidden reasoning the provider kept: measured apart, within 2 points too; nothing else left over.
      const remainder = new Map((report.remainder ?? []).map((r) => [r.kind, r]));
      const hidden = remainder.get('hidden_reasoning')?.percentOfUsed ?? 0;
      expect(
        Math.abs(hidden - truth.hiddenPercent),
        `hidden: report ${hidden}%, truth ${truth.hiddenPercent}%`,
      ).toBeLessThanOrEqual(2);
      expect(remainder.get('unexplained')?.tokens ?? 0).toBe(0);
      const sum =
        report.sources.reduce((n, s) => n + (s.scaledTokens ?? 0), 0) +
        (report.remainder ?? []).reduce((n, r) => n + r.tokens, 0);
      expect(sum).toBe(report.actual!.contextUsed);
      expect(report.calibration!.unattributed.tokens).toBe(
        report.actual!.contextUsed - sum + report.calibration!.unattributed.tokens,
      );
    });
  }
});
