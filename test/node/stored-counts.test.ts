/**
 * The numbers never depend on who wrote the rows: a session written straight into contract §1's
 * columns (another writer: no token counts) and the same session with the counts the write path
 * stores (counting/count-sessions.ts) give the same report, field for field — also after another
 * writer changed or added rows the counts were made without — on SQLite and on PostgreSQL. And
 * the counts are read (the check bites): a stored count that lies changes the report.
 */
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { countSessions } from '../../src/node/counting/count-sessions';
import { ReportService } from '../../src/node/report/service';
import { countsVersion } from '../../src/node/report/stored-counts';
import { openStore } from '../../src/node/storage/open';
import type { Store } from '../../src/node/storage/store';
import { part } from '../../src/shared/opencode/build';
import { createDatabase } from '../support/postgres';

const WS = 'ws_counts';
const SESSION = 'ses_counts';
const NOW = () => new Date('2026-01-01T00:00:00.000Z');
const FILES = ['evidence/a.log', 'meta/cluster.json', 'notes.md'] as const;

const anyText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.stringMatching(/^[a-z 客户支付超时数据库\n{}":,0-9]{0,600}$/),
  fc.constantFrom('', ' ', 'SELECT * FROM orders WHERE id = 1;', 'x'.repeat(2000)),
);
const anyStep = fc.oneof(
  fc.record({ kind: fc.constant('read' as const), path: fc.constantFrom(...FILES), body: anyText }),
  fc.record({ kind: fc.constant('shell' as const), path: fc.constantFrom(...FILES), body: anyText }),
  fc.record({ kind: fc.constant('say' as const), body: anyText }),
  fc.record({ kind: fc.constant('think' as const), body: anyText }),
);
const anyTurn = fc.record({ question: anyText, steps: fc.array(anyStep, { minLength: 1, maxLength: 3 }) });
const anySession = fc.record({
  turns: fc.array(anyTurn, { minLength: 1, maxLength: 4 }),
  // Anthropic's family counts with the Claude table and a multiplier; others with o200k.
  provider: fc.constantFrom('anthropic', 'openai', 'local'),
  // What another writer did after the counts were stored: a row changed, turns added.
  edit: fc.option(fc.record({ at: fc.nat(), text: anyText })),
  later: fc.array(anyTurn, { maxLength: 2 }),
  usage: fc.boolean(),
});
type Session = typeof anySession extends fc.Arbitrary<infer T> ? T : never;
type Turn = Session['turns'][number];

interface Row {
  id: string;
  info: Record<string, unknown>;
  parts: unknown[];
  at: number;
}

function rowsOf(turns: readonly Turn[], root: string, provider: string, start: number): Row[] {
  const rows: Row[] = [];
  let at = 1_800_000_000_000 + start * 10_000;
  for (const turn of turns) {
    const n = start + rows.length;
    rows.push({
      id: `msg_${String(n).padStart(6, '0')}`,
      info: { role: 'user' },
      parts: [part.text(turn.question)],
      at,
    });
    const parts = turn.steps.map((step, k) => {
      if (step.kind === 'say') return part.text(step.body);
      if (step.kind === 'think') return part.reasoning(step.body);
      const input = step.kind === 'read' ? { filePath: `${root}/${step.path}` } : { command: `cat ${step.path}` };
      return part.tool({
        tool: step.kind === 'read' ? 'read' : 'bash',
        input,
        output: step.body,
        callID: `c${n}_${k}`,
      });
    });
    at += 1000;
    rows.push({
      id: `msg_${String(n + 1).padStart(6, '0')}`,
      info: {
        role: 'assistant',
        providerID: provider,
        modelID: provider === 'anthropic' ? 'claude-sonnet-4' : 'gpt-5',
        path: { cwd: root, root },
        finish: 'stop',
        tokens: { input: 2000 + n * 50, output: 40, reasoning: 0, cache: { read: 0, write: 0 } },
      },
      parts: [part.stepStart(), ...parts, part.stepFinish({ input: 2000 + n * 50, output: 40 })],
      at,
    });
    at += 1000;
  }
  return rows;
}

/** The session's rows as another writer stores them: §1's columns, nothing else. */
async function write(store: Store, rows: readonly Row[]): Promise<void> {
  for (const row of rows) {
    const message = {
      id: row.id,
      workspaceId: WS,
      sessionId: SESSION,
      timeCreated: row.at,
      timeUpdated: row.at,
      info: { ...row.info, time: { created: row.at } },
      parts: row.parts,
    };
    await store.upsertMessage(message);
  }
}

async function seed(store: Store, root: string, session: Session): Promise<void> {
  await store.insertWorkspace({ id: WS, name: 'Counts', root_path: root, created_at: 1 });
  await write(store, rowsOf(session.turns, root, session.provider, 0));
  if (session.usage)
    await store.insertUsage({
      workspaceId: WS,
      sessionId: SESSION,
      source: 'acp',
      contextUsed: 9000,
      contextSize: 200_000,
      costAmount: null,
      costCurrency: null,
      createdAt: 1_900_000_000_000,
    });
}

/** What another writer did after the counts were stored. */
async function laterWrites(store: Store, root: string, session: Session): Promise<void> {
  const first = rowsOf(session.turns, root, session.provider, 0);
  if (session.edit) {
    const row = first[session.edit.at % first.length]!;
    await write(store, [{ ...row, parts: [...row.parts, part.text(session.edit.text)], at: row.at + 1 }]);
  }
  await write(store, rowsOf(session.later, root, session.provider, first.length));
}

const report = async (location: string) => {
  const store = await openStore({ location, readOnly: true });
  try {
    return await new ReportService(store, { now: NOW }).report({ workspaceId: WS, sessionId: SESSION, items: 'all' });
  } finally {
    await store.close();
  }
};

const folder = mkdtempSync(join(tmpdir(), 'investibook-counts-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function workspaceFolder(name: string): string {
  const root = join(folder, name);
  mkdirSync(join(root, 'evidence'), { recursive: true });
  mkdirSync(join(root, 'meta'), { recursive: true });
  writeFileSync(join(root, 'AGENTS.md'), '# Rules\nAnswer from the evidence.\n');
  for (const path of FILES) writeFileSync(join(root, path), `${path}\n`.repeat(20));
  return root;
}

const backends: [string, (name: string) => Promise<string>][] = [
  ['SQLite', async (name) => join(folder, `${name}.db`)],
  ['PostgreSQL', async () => createDatabase(inject('postgresUrl'), 'counts')],
];

let runs = 0;
describe.each(backends)('stored token counts on %s', (_backend, location) => {
  it('the report with stored counts equals the report without, after other writers changed and added rows', async () => {
    await fc.assert(
      fc.asyncProperty(anySession, async (session) => {
        const name = `run${runs++}`;
        const root = workspaceFolder(name);
        const [without, withCounts] = [await location(`${name}-a`), await location(`${name}-b`)];
        for (const where of [without, withCounts]) {
          const store = await openStore({ location: where });
          try {
            await seed(store, root, session);
            // The write path, on one of the two only; then other writers, on both alike.
            if (where === withCounts) await countSessions(store, WS, [SESSION]);
            await laterWrites(store, root, session);
          } finally {
            await store.close();
          }
        }
        // PostgreSQL's snapshot id names its rows' versions (xmin), which two databases never share.
        const figures = async (where: string) => {
          const { snapshotId, ...rest } = await report(where);
          return where.startsWith('postgres') ? rest : { snapshotId, ...rest };
        };
        expect(await figures(withCounts)).toEqual(await figures(without));
      }),
      { numRuns: 15 },
    );
  });

  it('reads the counts it finds: a stored count that lies changes the report (the check bites)', async () => {
    const root = workspaceFolder(`lie-${runs++}`);
    const where = await location(`lie-${runs}`);
    const store = await openStore({ location: where });
    try {
      const session: Session = {
        turns: [{ question: 'Why is store 4 slow?', steps: [{ kind: 'say', body: 'Store 4 has a hot region.' }] }],
        provider: 'openai',
        edit: null,
        later: [],
        usage: false,
      };
      await seed(store, root, session);
      const fresh = await report(where);
      const counted = await countSessions(store, WS, [SESSION]);
      expect(counted.texts).toBeGreaterThan(0);
      expect((await report(where)).estimate).toEqual(fresh.estimate);
      // Every stored count made 1,000 larger: a report that read them must say more.
      const stored = await store.tokenCounts(WS, [SESSION], countsVersion());
      await store.transaction(async (tx) => {
        const lie = stored.map((r) => ({
          workspace_id: WS,
          session_id: 'ses_lies',
          tokenizer: r.tokenizer,
          tokenizer_version: countsVersion(),
          content_sha256: r.content_sha256,
          tokens: Number(r.tokens) + 1000,
        }));
        await tx.putTokenCounts(lie);
      });
      // Filed under another session: not this report's.
      expect((await report(where)).estimate).toEqual(fresh.estimate);
      await store.transaction((tx) =>
        tx.putTokenCounts(
          stored.map((r) => ({
            workspace_id: WS,
            session_id: SESSION,
            tokenizer: r.tokenizer,
            tokenizer_version: `${countsVersion()}-next`,
            content_sha256: r.content_sha256,
            tokens: Number(r.tokens) + 1000,
          })),
        ),
      );
      // Another version's: not read either.
      expect((await report(where)).estimate).toEqual(fresh.estimate);
      await rawLie(store, where);
      expect((await report(where)).estimate.totalTokens).toBeGreaterThan(fresh.estimate.totalTokens + 1000);
    } finally {
      await store.close();
    }
  });
});

/** This session's own counts made 1,000 larger, as no write path would (the store has no update: SQL). */
async function rawLie(store: Store, where: string): Promise<void> {
  const stored = await store.tokenCounts(WS, [SESSION], countsVersion());
  await replaceCounts(
    where,
    stored.map((r) => ({ ...r, tokens: Number(r.tokens) + 1000 })),
  );
}

async function replaceCounts(
  where: string,
  rows: readonly { tokenizer: string; content_sha256: string; tokens: number }[],
): Promise<void> {
  if (where.startsWith('postgres')) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: where });
    await client.connect();
    for (const r of rows)
      await client.query('UPDATE token_counts SET tokens = $1 WHERE content_sha256 = $2 AND tokenizer = $3', [
        r.tokens,
        r.content_sha256,
        r.tokenizer,
      ]);
    await client.end();
    return;
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(where);
  const update = db.prepare('UPDATE token_counts SET tokens = ? WHERE content_sha256 = ? AND tokenizer = ?');
  for (const r of rows) update.run(r.tokens, r.content_sha256, r.tokenizer);
  db.close();
}
