/** The warm cache changes speed, never the answer. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approximateBytes, ReportCache, stampOf } from '../../src/node/report/report-cache';
import { ReportService } from '../../src/node/report/service';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { addMessages, addUsage, createFixture, readTool, SESSION, text, WS } from '../support/fixtures';

const strip = <T extends { generatedAt: string }>(r: T) => ({ ...r, generatedAt: '' });

describe('ReportCache', () => {
  it('gives the same report warm as cold, and sees changed and new messages', async () => {
    const fx = await createFixture({ 'AGENTS.md': 'rules', 'evidence/a.txt': 'A' });
    try {
      const [first] = addMessages(fx, [
        { role: 'user', parts: [text('question')] },
        { role: 'assistant', parts: [readTool(fx.root, 'evidence/a.txt', 'A '.repeat(200))] },
        { role: 'assistant', parts: [readTool(fx.root, 'evidence/a.txt', 'A '.repeat(200))] },
      ]);
      addUsage(fx, 3000);
      const cache = new ReportCache();
      const db = await openSqlite(fx.dbPath, { readOnly: true });
      const warmService = new ReportService(db, { cache });
      const report = () => warmService.report({ workspaceId: WS, items: 'all' });
      const coldReport = () => new ReportService(db).report({ workspaceId: WS, items: 'all' });
      const cold = await report();
      // Per message: its header (to find the live window) and its analysis; and the whole session.
      expect(cache.size).toBe(7);
      expect(strip(await report())).toEqual(strip(cold));
      expect(strip(await coldReport())).toEqual(strip(cold));

      fx.raw
        .prepare('UPDATE messages_v2 SET parts = ?, time_updated = time_updated + 1 WHERE id = ?')
        .run(JSON.stringify([text('edited question')]), first);
      addMessages(fx, [{ role: 'user', parts: [text('follow-up')] }]);
      const warm = await report();
      const labels = warm.sources.find((s) => s.id === 'conversation')!.items.map((i) => i.label);
      expect(labels).toEqual(expect.arrayContaining(['User message: edited question', 'User message: follow-up']));
      expect(strip(warm)).toEqual(strip(await coldReport()));
      await db.close();
    } finally {
      await fx.cleanup();
    }
  });

  it('answers an unchanged context from memory, and anything changed — usage, a file — anew', async () => {
    const fx = await createFixture({ 'AGENTS.md': 'rules', 'evidence/a.txt': 'A' });
    try {
      addMessages(fx, [{ role: 'user', parts: [text('question')] }]);
      addUsage(fx, 3000);
      const db = await openSqlite(fx.dbPath, { readOnly: true });
      let clock = 0;
      const service = new ReportService(db, { cache: new ReportCache(), now: () => new Date(++clock * 1000) });
      const report = () => service.report({ workspaceId: WS, items: 'all' });
      const first = await report();
      const again = await report();
      expect(again.generatedAt).not.toBe(first.generatedAt);
      expect(strip(again)).toEqual(strip(first));

      addUsage(fx, 3500);
      const afterUsage = await report();
      expect(afterUsage.actual?.contextUsed).toBe(3500);
      expect(afterUsage.snapshotId).not.toBe(first.snapshotId);

      writeFileSync(join(fx.root, 'AGENTS.md'), 'rules, and a much longer second rule about evidence');
      const afterFile = await report();
      expect(afterFile.snapshotId).not.toBe(afterUsage.snapshotId);
      const instructions = afterFile.sources.find((s) => s.id === 'agent_instructions')!;
      expect(instructions.bytes).toBeGreaterThan(afterUsage.sources.find((s) => s.id === 'agent_instructions')!.bytes);
      await db.close();
    } finally {
      await fx.cleanup();
    }
  });

  it('keeps at most maxBytes, dropping the least recently used', () => {
    const value = (n: number) => ({ text: 'x'.repeat(1000), n });
    const one = approximateBytes(value(0));
    expect(one).toBeGreaterThan(1000);
    const cache = new ReportCache(Math.round(2.5 * one));
    cache.set('a', value(1));
    cache.set('b', value(2));
    expect(cache.get('a')).toEqual(value(1)); // a is now the most recently used
    cache.set('c', value(3));
    expect(cache.size).toBe(2);
    expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(value(1));
    cache.set('a', value(4));
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toEqual(value(4));
    // A value larger than the bound is not kept at all.
    cache.set('big', { text: 'x'.repeat(10 * one) });
    expect(cache.get('big')).toBeUndefined();
    // A row version (PostgreSQL's xmin) tells apart two states with the same time_updated.
    expect(stampOf({ time_updated: 2, version: '901' })).not.toBe(stampOf({ time_updated: 2, version: '902' }));
  });

  it('holds for one report what it found, even when other reports push it out meanwhile', () => {
    const cache = new ReportCache(approximateBytes({ v: 'x'.repeat(100) }) + 10);
    cache.set('a', { v: 'x'.repeat(100) });
    const report = cache.pinned();
    expect(report.get('a')).toEqual({ v: 'x'.repeat(100) });
    cache.set('b', { v: 'y'.repeat(100) }); // another report's
    expect(cache.get('a')).toBeUndefined();
    expect(report.get('a')).toEqual({ v: 'x'.repeat(100) });
    expect(report.get('missing')).toBeUndefined();
  });

  it('keeps everything when unbounded (the CLI), its pin the cache itself', () => {
    const cache = new ReportCache(Infinity);
    const report = cache.pinned();
    for (let i = 0; i < 1000; i++) report.set(`k${i}`, { v: 'x'.repeat(10_000) });
    expect(cache.size).toBe(1000);
    expect(cache.get('k0')).toEqual({ v: 'x'.repeat(10_000) });
    expect(report.get('k999')).toEqual({ v: 'x'.repeat(10_000) });
    expect(report.get('missing')).toBeUndefined();
    expect(cache.bytes).toBe(0); // not measured
  });

  it('reads a read-only SQLite database through mapped pages for a snapshot only', async () => {
    const fx = await createFixture({ 'AGENTS.md': 'rules' });
    try {
      addMessages(fx, [{ role: 'user', parts: [text('question')] }]);
      addUsage(fx, 3000);
      const db = await openSqlite(fx.dbPath, { readOnly: true });
      const mapped = () => db.db.pragma('mmap_size', { simple: true });
      let during: unknown;
      const ids = await db.snapshot(async (r) => {
        during = mapped();
        return (await r.messageStamps(WS, SESSION)).length;
      });
      expect(during).toBeGreaterThan(0);
      expect(mapped()).toBe(0); // unmapped after: the report is made without the file's pages
      expect(ids).toBe(1);
      await expect(new ReportService(db).report({ workspaceId: WS })).resolves.toMatchObject({ workspaceId: WS });
      await db.close();
    } finally {
      await fx.cleanup();
    }
  });

  it('counts a value reached twice once, and Maps, Sets and arrays by their contents', () => {
    const shared = { text: 'z'.repeat(5000) };
    expect(approximateBytes([shared, shared])).toBeLessThan(approximateBytes([shared, { ...shared }]));
    expect(approximateBytes(new Map([['k', 'v'.repeat(3000)]]))).toBeGreaterThan(3000);
    expect(approximateBytes(new Set(['s'.repeat(3000)]))).toBeGreaterThan(3000);
  });
});
