/**
 * Reveal content and the reader: bounded pages pinned to a snapshot (410 when it changed),
 * errors that change nothing, base64 and binary never paged, request order as the engine's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { ReportService } from '../../src/node/report/service';
import type { ReadSnapshot, Store } from '../../src/node/storage/store';
import type { createApp } from '../../src/node/server/app';
import {
  contextReportSchema,
  errorBodySchema,
  ITEM_PAGE_CHARS,
  itemContentSchema,
  readerPageSchema,
  type ContextReport,
} from '../../src/shared/wire';
import { captureIo } from '../support/cli';
import {
  addMessages,
  addUsage,
  createFixture,
  databaseDigest,
  OTHER_TOKEN,
  readTool,
  text,
  TOKEN,
  tool,
  treeDigest,
  WS,
  type Fixture,
} from '../support/fixtures';

let fx: Fixture;
let app: ReturnType<typeof createApp>;
const auth = (token = TOKEN) => ({ headers: { Authorization: `Bearer ${token}` } });
const LONG = Array.from({ length: 900 }, (_, i) => `${i}: store 4 region 2287016 serverIsBusy`).join('\n');
const PNG = Buffer.alloc(3000, 7).toString('base64');

beforeEach(async () => {
  fx = await createFixture({
    'AGENTS.md': '# Rules\nCite evidence.\n',
    '.opencode/skills/alpha/SKILL.md': '---\nname: alpha\ndescription: Alpha\n---\n',
    'evidence/long.log': 'x',
  });
  addMessages(fx, [
    { role: 'user', parts: [text('Why is store 4 hot?')] },
    {
      role: 'assistant',
      parts: [{ type: 'reasoning', text: 'Read the long log.' }, readTool(fx.root, 'evidence/long.log', LONG)],
    },
    {
      role: 'assistant',
      parts: [
        tool('bash', { command: 'render panel' }, `chart: data:image/png;base64,${PNG} done`),
        tool('bash', { command: 'cat core' }, `ELF\u0000\u0001\u0002binary`),
      ],
    },
  ]);
  addUsage(fx, 9000);
  app = await fx.app();
});
afterEach(() => fx.cleanup());

async function report(): Promise<ContextReport> {
  return contextReportSchema.parse(
    await (await app.request(`/api/workspace/${WS}/debug/context?items=all`, auth())).json(),
  );
}
const item = (r: ContextReport, label: string) =>
  r.sources.flatMap((s) => s.items).find((i) => i.label.startsWith(label))!;
const itemUrl = (r: ContextReport, id: string, query = '') =>
  `/api/workspace/${WS}/debug/context/items/${id}?snapshot=${r.snapshotId}${query}`;

describe('item content', () => {
  it('pages an item in zero-based pages of at most 8,000 characters, as the model sees it', async () => {
    const r = await report();
    const log = item(r, 'Read evidence: long.log');
    const first = itemContentSchema.parse(await (await app.request(itemUrl(r, log.id, '&page=0'), auth())).json());
    expect(first).toMatchObject({
      itemId: log.id,
      label: log.label,
      source: 'evidence',
      page: 0,
      pageSize: ITEM_PAGE_CHARS,
      snapshotId: r.snapshotId,
    });
    expect(first.pageCount).toBe(Math.ceil(first.totalChars / ITEM_PAGE_CHARS));
    expect(first.pageCount).toBeGreaterThan(3);
    expect(first.text).toHaveLength(ITEM_PAGE_CHARS);
    expect(first.text).toContain('"filePath"');
    const pages = [first.text];
    for (let page = 1; page < first.pageCount; page++) {
      pages.push(
        itemContentSchema.parse(await (await app.request(itemUrl(r, log.id, `&page=${page}`), auth())).json()).text,
      );
    }
    expect(pages.join('')).toContain(LONG);
    expect(pages.join('')).toHaveLength(first.totalChars);
  });

  it('never pages base64 or binary bodies: it names the omission', async () => {
    const r = await report();
    const chart = itemContentSchema.parse(
      await (await app.request(itemUrl(r, item(r, 'Shell: render panel').id), auth())).json(),
    );
    expect(chart.text).not.toContain(PNG.slice(0, 100));
    expect(chart.text).toMatch(/\[image\/png body omitted: [\d.]+ KB of base64\]/);
    expect(chart.omissions).toHaveLength(1);
    const core = itemContentSchema.parse(
      await (await app.request(itemUrl(r, item(r, 'Shell: cat core').id), auth())).json(),
    );
    expect(core.text).not.toContain('\u0000');
    expect(core.text).toMatch(/\[binary content omitted: \d+ B\]/);
  });

  it('answers 410 context_changed once the snapshot changed', async () => {
    const r = await report();
    const id = item(r, 'Read evidence: long.log').id;
    addMessages(fx, [{ role: 'user', parts: [text('one more question')] }]);
    const response = await app.request(itemUrl(r, id), auth());
    expect(response.status).toBe(410);
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('context_changed');
    expect((await report()).snapshotId).not.toBe(r.snapshotId);
  });

  it('never serves text from a message that changed after the report was read, and reads it in one snapshot', async () => {
    const r = await report();
    const id = item(r, 'Read evidence: long.log').id;
    // The message changes between the report and the read of its text.
    fx.raw
      .prepare(
        "UPDATE messages_v2 SET parts = replace(parts, 'serverIsBusy', 'REWRITTEN'), time_updated = time_updated + 1 WHERE parts LIKE '%long.log%'",
      )
      .run();
    let snapshots = 0;
    const counting: Store = Object.assign(Object.create(fx.store) as Store, {
      snapshot: async <T>(work: (read: ReadSnapshot) => Promise<T>) => {
        snapshots++;
        return fx.store.snapshot(work);
      },
    });
    const service = new ReportService(counting);
    await expect(service.itemContent({ workspaceId: WS, itemId: id, snapshotId: r.snapshotId })).rejects.toMatchObject({
      code: 'context_changed',
    });
    expect(snapshots).toBe(1);
    const now = await service.report({ workspaceId: WS });
    const text = await service.itemContent({ workspaceId: WS, itemId: id, snapshotId: now.snapshotId });
    expect(text.text).toContain('REWRITTEN');
    expect(snapshots).toBe(3);
  });

  it('rejects a bad page or item with an error that changes nothing', async () => {
    const r = await report();
    const before = { db: await databaseDigest(fx.dbPath), tree: treeDigest(fx.root) };
    const id = item(r, 'Read evidence: long.log').id;
    for (const [query, status, code] of [
      ['&page=99', 400, 'page_out_of_range'],
      ['&page=-1', 400, 'invalid_page'],
      ['&page=one', 400, 'invalid_page'],
    ] as const) {
      const response = await app.request(itemUrl(r, id, query), auth());
      expect(response.status).toBe(status);
      expect(errorBodySchema.parse(await response.json()).error.code).toBe(code);
    }
    const missing = await app.request(itemUrl(r, 'it_0000000000000000'), auth());
    expect(missing.status).toBe(404);
    expect(errorBodySchema.parse(await missing.json()).error.code).toBe('item_not_found');
    expect((await app.request(itemUrl(r, id), { method: 'POST', ...auth() })).status).toBe(405);
    expect({ db: await databaseDigest(fx.dbPath), tree: treeDigest(fx.root) }).toEqual(before);
  });

  it('uses the same access check', async () => {
    const r = await report();
    const id = item(r, 'Read evidence: long.log').id;
    expect((await app.request(itemUrl(r, id))).status).toBe(401);
    const foreign = await app.request(itemUrl(r, id), auth(OTHER_TOKEN));
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({
      error: { code: 'workspace_not_found', message: 'Workspace not found', requestId: expect.any(String) },
    });
  });
});

describe('reader', () => {
  it("lists every item in the engine's request order: instructions, catalog, then the history", async () => {
    const r = await report();
    const page = readerPageSchema.parse(
      await (await app.request(`/api/workspace/${WS}/debug/context/reader?snapshot=${r.snapshotId}`, auth())).json(),
    );
    const engineOrder = r.sources.flatMap((s) => s.items).sort((a, b) => a.order - b.order);
    expect(page.blockCount).toBe(r.estimate.itemCount);
    expect(page.blocks.map((b) => b.itemId)).toEqual(engineOrder.map((i) => i.id));
    expect(page.blocks.map((b) => b.order)).toEqual(engineOrder.map((i) => i.order));
    expect(page.blocks.slice(0, 3).map((b) => b.label)).toEqual([
      'Instructions: AGENTS.md',
      'Skill catalog: 1 enabled skill + 1 built-in',
      'User message: Why is store 4 hot?',
    ]);
    expect(page.blocks.every((b) => b.preview.length <= 601)).toBe(true);
    expect(JSON.stringify(page)).not.toContain(PNG.slice(0, 100));
    expect(
      (await app.request(`/api/workspace/${WS}/debug/context/reader?snapshot=${r.snapshotId}&page=1`, auth())).status,
    ).toBe(400);
    expect((await app.request(`/api/workspace/${WS}/debug/context/reader?snapshot=snap_stale`, auth())).status).toBe(
      410,
    );
  });
});

describe('suggestions', () => {
  it('are computed from the data: duplicates, a dominant item, pruning, a full window, an idle skill', async () => {
    addMessages(fx, [
      {
        role: 'assistant',
        parts: [tool('skill', { name: 'alpha' }, 'alpha body'), readTool(fx.root, 'evidence/long.log', LONG)],
      },
      {
        role: 'assistant',
        parts: [readTool(fx.root, 'evidence/long.log', 'old', { time: { compacted: 1 } }), text('done')],
      },
    ]);
    addUsage(fx, 190_000);
    const r = await report();
    const kinds = r.suggestions.map((s) => s.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(['duplicate_read', 'large_item', 'pruned_outputs', 'near_compaction', 'unused_skill']),
    );
    const duplicate = r.suggestions.find((s) => s.kind === 'duplicate_read')!;
    expect(duplicate.figures.reads).toBe(2);
    expect(duplicate.figures.repeatedEstimatedTokens).toBe(item(r, 'Read evidence: long.log').estimatedTokens);
    expect(r.suggestions.find((s) => s.kind === 'near_compaction')!.figures.percent).toBe(95);
    for (const large of r.suggestions.filter((s) => s.kind === 'large_item'))
      expect(large.figures.percentOfUsed).toBeGreaterThan(20);
  });

  it('does not call a skill unused once the conversation names it', async () => {
    addMessages(fx, [
      { role: 'assistant', parts: [tool('skill', { name: 'alpha' }, 'alpha body')] },
      { role: 'assistant', parts: [text('Following the alpha method, store 4 is hot.')] },
    ]);
    expect((await report()).suggestions.map((s) => s.kind)).not.toContain('unused_skill');
  });
});

describe('the CLI --item', () => {
  it('prints a page of an item, pinned with --snapshot', async () => {
    const r = await report();
    const id = item(r, 'Read evidence: long.log').id;
    const local = captureIo(fx.dir);
    expect(
      await run(
        ['debug', 'context', WS, '--db', fx.dbPath, '--item', id, '--page', '1', '--snapshot', r.snapshotId],
        local,
      ),
    ).toBe(0);
    expect(local.stdout()).toMatch(/^Read evidence: long\.log · page 2 of \d+/);
    const json = captureIo(fx.dir);
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath, '--item', id, '--json'], json)).toBe(0);
    expect(itemContentSchema.parse(JSON.parse(json.stdout())).page).toBe(0);
    const stale = captureIo(fx.dir);
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath, '--item', id, '--snapshot', 'snap_old'], stale)).toBe(
      1,
    );
    expect(stale.stderr()).toMatch(/context changed/);
    const missing = captureIo(fx.dir);
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath, '--item', 'it_nope'], missing)).toBe(3);
  });
});
