/**
 * OpenCode's own pruning foreseen (issue 37 point 2, prune-advice.ts), on a session the real
 * runtime pruned: the forecast agrees with what OpenCode did and did not do there — it cleared
 * four old reads at the end of a turn and nothing since, so nothing more is due now or as the next
 * turn ends (the reads left whole are within its 40,000-token protection, measured as it measures
 * them, characters ÷ 4, and it stops at the outputs it pruned before). The rule itself is
 * unit-tested in next-prompt.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { createFixture, reportOf, WS, type Fixture } from '../support/fixtures';
import { loadRecording, seedRecording, type Recording } from '../support/recordings';

let fx: Fixture | undefined;
afterEach(() => fx?.cleanup());

async function reportOfRecording(recording: Recording): Promise<ContextReport> {
  fx = await createFixture();
  seedRecording(fx, recording, WS);
  return contextReportSchema.parse(await reportOf(fx, { items: 'all' }));
}

describe('OpenCode’s pruning, foreseen', () => {
  it('on the session OpenCode pruned: nothing more is due, as OpenCode itself left it', async () => {
    const report = await reportOfRecording(loadRecording('pruning'));
    expect(report.suggestions.find((s) => s.kind === 'pruned_outputs')).toBeDefined();
    expect(report.suggestions.filter((s) => s.kind === 'prune_forecast')).toEqual([]);
  });
});
