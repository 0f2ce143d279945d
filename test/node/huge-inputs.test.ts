/** Huge inputs stay within bounds: a 50 MB tool output and a 10,000-message session. */
import { describe, expect, it } from 'vitest';
import { contextReportSchema } from '../../src/shared/wire';
import { addUsage, createFixture, readTool, reportOf, SESSION, WS } from '../support/fixtures';

describe('huge inputs', () => {
  it('estimates a 50 MB tool output from samples, with a warning', async () => {
    const fx = await createFixture({ 'evidence/dump.log': 'x' });
    try {
      const line = '2026-11-28T02:14:00Z WARN store=4 region=2287016 serverIsBusy took=1834ms 客户\n';
      const output = line.repeat(Math.ceil((50 * 1024 * 1024) / Buffer.byteLength(line)));
      const parts = JSON.stringify([{ id: 'prt_0', ...readTool(fx.root, 'evidence/dump.log', output) }]);
      fx.raw
        .prepare(
          'INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES (?, ?, ?, 1, 1, ?, ?)',
        )
        .run('msg_huge', WS, SESSION, '{"role":"assistant"}', parts);
      addUsage(fx, 190_000);
      const rssBefore = process.memoryUsage().rss;
      const report = contextReportSchema.parse(await reportOf(fx));
      const grownMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
      const dump = report.sources.find((s) => s.id === 'evidence')!.items[0]!;
      expect(dump.label).toBe('Read evidence: dump.log');
      expect(dump.bytes).toBeGreaterThan(50 * 1024 * 1024);
      expect(dump.estimatedTokens).toBeGreaterThan(10_000_000);
      expect(report.warnings.join('\n')).toMatch(
        /msg_huge\/parts\/0: .* of text; its tokens were estimated from samples/,
      );
      expect(grownMb).toBeLessThan(1024);
    } finally {
      await fx.cleanup();
    }
  });

  it('reports on a 10,000-message session with every item counted and 20 shown per source', async () => {
    const fx = await createFixture({});
    try {
      const insert = fx.raw.prepare(
        'INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES (?, ?, ?, ?, ?, ?, ?)',
      );
      fx.raw.transaction(() => {
        for (let i = 0; i < 10_000; i++) {
          const id = `msg_${String(i).padStart(6, '0')}`;
          const role = i % 2 ? 'assistant' : 'user';
          insert.run(
            id,
            WS,
            SESSION,
            i,
            i,
            JSON.stringify({ role }),
            JSON.stringify([{ id: 'p', type: 'text', text: `message ${i} about store ${i % 6}` }]),
          );
        }
      })();
      addUsage(fx, 150_000);
      const report = contextReportSchema.parse(await reportOf(fx));
      const conversation = report.sources.find((s) => s.id === 'conversation')!;
      expect(conversation.itemCount).toBe(10_000);
      expect(conversation.items).toHaveLength(20);
      expect(conversation.more.itemCount).toBe(9_980);
      expect(report.sources.reduce((n, s) => n + s.scaledTokens!, 0) + report.calibration!.unattributed.tokens).toBe(
        150_000,
      );
    } finally {
      await fx.cleanup();
    }
  });
});
