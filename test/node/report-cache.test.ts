/** The warm cache changes speed, never the answer. */
import { describe, expect, it } from 'vitest';
import { generateReport } from '../../src/node/report/context-report';
import { ReportCache } from '../../src/node/report/report-cache';
import { openReadOnly } from '../../src/node/storage/store';
import { addMessages, addUsage, createFixture, readTool, text, WS } from '../support/fixtures';

const strip = <T extends { generatedAt: string }>(r: T) => ({ ...r, generatedAt: '' });

describe('ReportCache', () => {
  it('gives the same report warm as cold, and sees changed and new messages', () => {
    const fx = createFixture({ 'AGENTS.md': 'rules', 'evidence/a.txt': 'A' });
    try {
      const [first] = addMessages(fx.db, [
        { role: 'user', parts: [text('question')] },
        { role: 'assistant', parts: [readTool(fx.root, 'evidence/a.txt', 'A '.repeat(200))] },
        { role: 'assistant', parts: [readTool(fx.root, 'evidence/a.txt', 'A '.repeat(200))] },
      ]);
      addUsage(fx.db, 3000);
      const cache = new ReportCache();
      const db = openReadOnly(fx.dbPath);
      const report = () => generateReport(db, { workspaceId: WS, items: 'all' }, { cache });
      const cold = report();
      // Per message: its header (to find the live window) and its analysis.
      expect(cache.size).toBe(6);
      expect(strip(report())).toEqual(strip(cold));
      expect(strip(generateReport(db, { workspaceId: WS, items: 'all' }))).toEqual(strip(cold));

      fx.db
        .prepare('UPDATE messages_v2 SET parts = ?, time_updated = time_updated + 1 WHERE id = ?')
        .run(JSON.stringify([text('edited question')]), first);
      addMessages(fx.db, [{ role: 'user', parts: [text('follow-up')] }]);
      const warm = report();
      const labels = warm.sources.find((s) => s.id === 'conversation')!.items.map((i) => i.label);
      expect(labels).toEqual(expect.arrayContaining(['User message: edited question', 'User message: follow-up']));
      expect(strip(warm)).toEqual(strip(generateReport(db, { workspaceId: WS, items: 'all' })));
      db.close();
    } finally {
      fx.cleanup();
    }
  });

  it('keeps at most maxEntries, dropping the oldest, and misses on a changed stamp', () => {
    const cache = new ReportCache(2);
    const entry = (t: number) => ({
      timeUpdated: t,
      size: 1,
      info: { role: 'user' as const, summary: false, time: {} },
      compaction: null,
      infoWarnings: [],
      analysis: null,
    });
    cache.set('s', 'a', entry(1));
    cache.set('t', 'b', entry(1));
    cache.set('t', 'c', entry(1));
    expect(cache.size).toBe(2);
    expect(cache.get('s', 'a', 1)).toBeUndefined();
    expect(cache.get('t', 'b', 1)).toBeDefined();
    expect(cache.get('t', 'b', 2)).toBeUndefined();
    cache.set('t', 'b', entry(2));
    expect(cache.size).toBe(2);
  });
});
