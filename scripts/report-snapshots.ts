/**
 * npm run report-snapshots -- OUT_DIR: writes the report JSON of every recorded scenario
 * (test/fixtures/opencode and demo/recordings, seeded as test/support/recordings.ts seeds them,
 * subagents' sessions and the runtime's definitions included), every public export
 * (test/fixtures/public, stored as the bridge would store it) and the seeded demo, with
 * generatedAt fixed, one file each. A refactoring that must change no figure is checked by
 * writing the snapshots before and after and comparing the folders byte for byte
 * (`diff -r BEFORE AFTER`).
 *
 * Per session: the report with every item, the report as of its first model call, the reader's
 * first page and the reader-backed text of its first item (the paths that re-read rows).
 */
import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemoDatabase, DEMO_WORKSPACE_ID } from '../src/node/demo/builder';
import { AppError } from '../src/node/errors';
import { ReportService } from '../src/node/report/service';
import { openSqlite } from '../src/node/storage/sqlite/sqlite-store';
import { WS, type Fixture } from '../test/support/fixtures';
import { PUBLIC_DIR, PUBLIC_SESSION, seedPublicExport } from '../test/support/public-exports';
import { loadRecording, recordingNames, seedRecording } from '../test/support/recordings';

const GENERATED_AT = new Date('2026-01-01T00:00:00.000Z');
/**
 * Paths and file times are in the figures (a path is text the model reads; a file changed after
 * a call may change the runtime's prompt), so both are fixed: one folder, every file as of 2030.
 */
const DIR = join(tmpdir(), 'investibook-report-snapshots');
const FILE_TIME = new Date('2030-01-01T00:00:00.000Z');
const out = process.argv[2];
if (!out) {
  console.error('usage: npm run report-snapshots -- OUT_DIR');
  process.exit(2);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

/** Each answer of one session, or the error it gave, as JSON. */
async function snapshotSession(dbPath: string, workspaceId: string, sessionId: string): Promise<string> {
  const store = await openSqlite(dbPath, { readOnly: true });
  const service = new ReportService(store, { now: () => GENERATED_AT });
  const answer = async (work: () => Promise<unknown>) => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppError) return { error: error.code, message: error.message };
      throw error;
    }
  };
  try {
    const request = { workspaceId, sessionId };
    const report = await service.report({ ...request, items: 'all' });
    const firstItem = report.sources.flatMap((s) => s.items)[0];
    return JSON.stringify(
      {
        report,
        asOfFirstCall: await answer(() => service.report({ ...request, items: 'all', call: 1 })),
        readerPage: await answer(() => service.readerPage({ ...request, page: 0 })),
        firstItem: firstItem ? await answer(() => service.itemContent({ ...request, itemId: firstItem.id })) : null,
      },
      null,
      2,
    );
  } finally {
    await store.close();
  }
}

/** A database with the test workspace (as test/support/fixtures.ts makes it) in the fixed folder. */
async function fixture(): Promise<Pick<Fixture, 'dbPath' | 'root' | 'raw'> & { close(): Promise<void> }> {
  rmSync(DIR, { recursive: true, force: true });
  const root = join(DIR, 'ws');
  mkdirSync(root, { recursive: true });
  const dbPath = join(DIR, 'test.db');
  const store = await openSqlite(dbPath);
  await store.insertWorkspace({ id: WS, name: 'Test workspace', root_path: 'ws', created_at: 1 });
  return { dbPath, root, raw: store.db, close: () => store.close() };
}

/** Every file and folder under `root` as of FILE_TIME. */
function fixTimes(root: string): void {
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true }))
    utimesSync(join(entry.parentPath, entry.name), FILE_TIME, FILE_TIME);
  utimesSync(root, FILE_TIME, FILE_TIME);
}

async function recordings(): Promise<void> {
  for (const name of recordingNames()) {
    const fx = await fixture();
    try {
      const recording = loadRecording(name);
      seedRecording(fx, recording, WS);
      fixTimes(fx.root);
      const sessions = [recording.sessionId, ...(recording.children ?? []).map((c) => c.sessionId)];
      for (const [index, sessionId] of sessions.entries()) {
        const file = index === 0 ? `recording-${name}.json` : `recording-${name}.child-${index}.json`;
        writeFileSync(join(out!, file), await snapshotSession(fx.dbPath, WS, sessionId));
      }
    } finally {
      await fx.close();
    }
  }
}

/** As test/node/public-exports.test.ts stores them (test/support/public-exports.ts). */
async function publicExports(): Promise<void> {
  for (const file of readdirSync(PUBLIC_DIR).filter((f) => f.endsWith('.json') && f !== 'sources.json')) {
    const fx = await fixture();
    try {
      fixTimes(fx.root);
      seedPublicExport(fx, file);
      writeFileSync(join(out!, `public-${file}`), await snapshotSession(fx.dbPath, WS, PUBLIC_SESSION));
    } finally {
      await fx.close();
    }
  }
}

async function demo(): Promise<void> {
  rmSync(DIR, { recursive: true, force: true });
  try {
    const dbPath = join(DIR, 'demo.db');
    const seeded = await seedDemoDatabase(dbPath, 'snapshot-token');
    fixTimes(seeded.root);
    for (const sessionId of seeded.sessions)
      writeFileSync(join(out!, `demo-${sessionId}.json`), await snapshotSession(dbPath, DEMO_WORKSPACE_ID, sessionId));
  } finally {
    rmSync(DIR, { recursive: true, force: true });
  }
}

await recordings();
await publicExports();
await demo();
console.log(`report snapshots written to ${out}`);
