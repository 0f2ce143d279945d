/**
 * A stored analysis is used only while everything it was made from holds: a session analysed on
 * the write path (counting/count-sessions.ts stores each message's analysis) and then changed by
 * other writers — a row rewritten with a new stamp or with the same one, rows deleted, turns
 * added, a file the session read grown — reports exactly as the same session never analysed
 * (a fresh computation), on SQLite and PostgreSQL. And the stored analyses are read (the check
 * bites): one that lies changes the report while its row is as it was, and not once it changed.
 */
import fc from 'fast-check';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { countSessions } from '../../src/node/counting/count-sessions';
import { AppError } from '../../src/node/errors';
import { ReportService } from '../../src/node/report/service';
import { analyzerVersion } from '../../src/node/report/stored-analyses';
import { openStore } from '../../src/node/storage/open';
import type { Store } from '../../src/node/storage/store';
import { part } from '../../src/shared/opencode/build';
import { createDatabase } from '../support/postgres';

const WS = 'ws_analyses';
const SESSION = 'ses_analyses';
const NOW = () => new Date('2026-01-01T00:00:00.000Z');
const FILES = ['evidence/a.log', 'notes.md'] as const;

const anyText = fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('', 'see `notes.md`', 'x'.repeat(400)));
const anyStep = fc.oneof(
  fc.record({ kind: fc.constant('read' as const), path: fc.constantFrom(...FILES), body: anyText }),
  fc.record({ kind: fc.constant('say' as const), body: anyText }),
);
const anyTurn = fc.record({ question: anyText, steps: fc.array(anyStep, { minLength: 1, maxLength: 2 }) });
/** What another writer does once the write path has stored the analyses. */
const anyChange = fc.oneof(
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), text: anyText, sameStamp: fc.boolean() }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), turn: anyTurn }),
  fc.record({ kind: fc.constant('grow' as const), path: fc.constantFrom(...FILES) }),
);
const anySession = fc.record({
  turns: fc.array(anyTurn, { minLength: 1, maxLength: 3 }),
  provider: fc.constantFrom('anthropic', 'openai'),
  changes: fc.array(anyChange, { maxLength: 3 }),
});
type Session = typeof anySession extends fc.Arbitrary<infer T> ? T : never;
type Turn = Session['turns'][number];

interface Row {
  id: string;
  info: Record<string, unknown>;
  parts: unknown[];
  at: number;
}

function turnRows(turn: Turn, n: number, root: string, provider: string): Row[] {
  const at = 1_800_000_000_000 + n * 10_000;
  const parts = turn.steps.map((step, k) =>
    step.kind === 'say'
      ? part.text(step.body)
      : part.tool({
          tool: 'read',
          input: { filePath: `${root}/${step.path}` },
          output: step.body,
          callID: `c${n}_${k}`,
        }),
  );
  return [
    { id: `msg_${String(n).padStart(6, '0')}`, info: { role: 'user' }, parts: [part.text(turn.question)], at },
    {
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
      at: at + 1000,
    },
  ];
}

async function write(store: Store, rows: readonly Row[]): Promise<void> {
  for (const row of rows)
    await store.upsertMessage({
      id: row.id,
      workspaceId: WS,
      sessionId: SESSION,
      timeCreated: row.at,
      timeUpdated: row.at,
      info: { ...row.info, time: { created: row.at } },
      parts: row.parts,
    });
}

/** Applies the other writers' changes (the folder's once: both databases share it). */
async function change(store: Store, root: string, session: Session, rows: Row[], folder: boolean): Promise<void> {
  let next = session.turns.length * 2;
  for (const c of session.changes) {
    if (c.kind === 'add') {
      const added = turnRows(c.turn, next, root, session.provider);
      next += 2;
      rows.push(...added);
      await write(store, added);
    } else if (c.kind === 'grow') {
      if (folder) appendFileSync(join(root, c.path), 'one more line\n'.repeat(7));
    } else if (rows.length > 0) {
      const i = c.at % rows.length;
      const row = rows[i]!;
      if (c.kind === 'delete') {
        rows.splice(i, 1);
        await store.deleteMessage(WS, SESSION, row.id);
      } else {
        rows[i] = { ...row, parts: [...row.parts, part.text(c.text)], at: c.sameStamp ? row.at : row.at + 1 };
        await write(store, [rows[i]!]);
      }
    }
  }
}

/** The report, or what it refused (every row deleted: no session). */
const report = async (location: string) => {
  const store = await openStore({ location, readOnly: true });
  try {
    const { snapshotId, ...rest } = await new ReportService(store, { now: NOW }).report({
      workspaceId: WS,
      sessionId: SESSION,
      items: 'all',
    });
    // PostgreSQL's snapshot id names its rows' versions (xmin), which two databases never share.
    return location.startsWith('postgres') ? rest : { snapshotId, ...rest };
  } catch (error) {
    if (error instanceof AppError) return { refused: error.code };
    throw error;
  } finally {
    await store.close();
  }
};

const folder = mkdtempSync(join(tmpdir(), 'investibook-analyses-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function workspaceFolder(name: string): string {
  const root = join(folder, name);
  mkdirSync(join(root, 'evidence'), { recursive: true });
  for (const path of FILES) writeFileSync(join(root, path), `${path}\n`.repeat(20));
  return root;
}

// Runs per backend: two databases a run, and a PostgreSQL database costs far more to create.
const backends: [string, (name: string) => Promise<string>, number][] = [
  ['SQLite', async (name) => join(folder, `${name}.db`), 8],
  ['PostgreSQL', async () => createDatabase(inject('postgresUrl'), 'analyses'), 4],
];

async function seeded(where: string, root: string, session: Session, analysed: boolean): Promise<Store> {
  const store = await openStore({ location: where });
  await store.insertWorkspace({ id: WS, name: 'Analyses', root_path: root, created_at: 1 });
  const rows = session.turns.flatMap((turn, k) => turnRows(turn, k * 2, root, session.provider));
  await write(store, rows);
  if (analysed) {
    const counted = await countSessions(store, WS, [SESSION]);
    expect(counted.analyses).toBe(rows.length);
  }
  await change(store, root, session, rows, analysed);
  return store;
}

let runs = 0;
describe.each(backends)('stored analyses on %s', (_backend, location, numRuns) => {
  it('the report with stored analyses equals a fresh one, after other writers changed, added and deleted rows', async () => {
    await fc.assert(
      fc.asyncProperty(anySession, async (session) => {
        const name = `run${runs++}`;
        const root = workspaceFolder(name);
        const [fresh, analysed] = [await location(`${name}-a`), await location(`${name}-b`)];
        // The write path on one of the two only; then other writers, on both alike.
        await (await seeded(analysed, root, session, true)).close();
        await (await seeded(fresh, root, session, false)).close();
        expect(await report(analysed)).toEqual(await report(fresh));
      }),
      { numRuns },
    );
  });

  it('reads the analyses it finds: one that lies is used while its row holds, and made again once it changed', async () => {
    const root = workspaceFolder(`lie-${runs++}`);
    const where = await location(`lie-${runs}`);
    const session: Session = {
      turns: [{ question: 'Why is store 4 slow?', steps: [{ kind: 'say', body: 'Store 4 has a hot region.' }] }],
      provider: 'openai',
      changes: [],
    };
    const store = await seeded(where, root, session, true);
    try {
      const truth = await report(where);
      const [reply] = (await store.messageAnalyses(WS, [SESSION], analyzerVersion())).filter(
        (r) => r.message_id === 'msg_000001',
      );
      const analysis = JSON.parse(reply!.analysis) as { warnings: string[] };
      analysis.warnings.push('a stored lie');
      await store.putMessageAnalyses([
        {
          ...reply!,
          workspace_id: WS,
          session_id: SESSION,
          analyzer_version: analyzerVersion(),
          analysis: JSON.stringify(analysis),
        },
      ]);
      // The row is as it was: the stored analysis is the report's.
      expect(truth).not.toHaveProperty('refused');
      expect(JSON.stringify(truth)).not.toContain('a stored lie');
      expect(await report(where)).toMatchObject({ warnings: expect.arrayContaining(['a stored lie']) as unknown });
      // Another writer rewrote the row, keeping its stamp: the lie is no longer the row's analysis.
      const [row] = turnRows(
        { question: '', steps: [{ kind: 'say', body: 'Store 4 has a hot region!' }] },
        0,
        root,
        'openai',
      ).slice(1);
      await write(store, [row!]);
      const elsewhere = await location(`lie-fresh-${runs}`);
      const fresh = await seeded(elsewhere, root, session, false);
      await write(fresh, [row!]);
      await fresh.close();
      expect(await report(where)).toEqual(await report(elsewhere));
    } finally {
      await store.close();
    }
  });
});
