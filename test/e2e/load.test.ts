/**
 * Load on loopback: a real server process, 200 concurrent report requests and 50 concurrent
 * message POSTs, plus CLI processes reading the same database. Bounded and self-stopping.
 * Every request succeeds, no SQLITE_BUSY reaches a client, and afterwards the database holds
 * exactly its earlier content plus the 50 messages.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/node/storage/sqlite/sqlite-store';
import { contextReportSchema } from '../../src/shared/wire';
import { treeDigest } from '../support/fixtures';
import { PROJECT, startServerProcess, type ServerProcess } from '../support/server-process';

const exec = promisify(execFile);
const TOKEN = 'load-token';
let dir: string;
let dbPath: string;
let server: ServerProcess;

async function rows(): Promise<string[]> {
  const store = await openSqlite(dbPath, { readOnly: true });
  try {
    return await store.contentRows();
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-load-'));
  dbPath = join(dir, 'investibook.db');
  server = await startServerProcess(dbPath, TOKEN);
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('load on loopback', () => {
  it('serves 200 concurrent reports and 50 concurrent posts without a failure', async () => {
    const before = await rows();
    const tree = treeDigest(join(dir, 'workspaces'));
    const headers = { Authorization: `Bearer ${TOKEN}` };
    const api = `${server.origin}/api/workspace/demo`;
    const reports = Array.from({ length: 200 }, (_, i) =>
      fetch(`${api}/debug/context${i % 4 === 0 ? '?estimator=chars4' : ''}`, {
        headers,
        signal: AbortSignal.timeout(60_000),
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    );
    const posts = Array.from({ length: 50 }, (_, i) =>
      fetch(`${api}/messages`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: `load note ${i}` }),
        signal: AbortSignal.timeout(60_000),
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    );
    const readers = Array.from({ length: 3 }, () =>
      exec(process.execPath, [
        join(PROJECT, 'bin/investibook.js'),
        'debug',
        'context',
        'demo',
        '--db',
        dbPath,
        '--json',
        '--estimator',
        'chars4',
      ]),
    );
    const [reportResults, postResults, readerResults] = await Promise.all([
      Promise.all(reports),
      Promise.all(posts),
      Promise.all(readers),
    ]);

    expect(reportResults.map((r) => r.status)).toEqual(Array(200).fill(200));
    for (const r of reportResults) expect(contextReportSchema.safeParse(r.body).success).toBe(true);
    expect(postResults.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(JSON.stringify([reportResults, postResults])).not.toMatch(/SQLITE_BUSY|database is locked/);
    for (const r of readerResults) expect(contextReportSchema.safeParse(JSON.parse(r.stdout)).success).toBe(true);

    const after = await rows();
    const added = after.filter((line) => !before.includes(line));
    expect(before.every((line) => after.includes(line))).toBe(true);
    expect(added).toHaveLength(50);
    const texts = added.map((line) => JSON.parse(JSON.parse(line).parts)[0].text).sort();
    expect(texts).toEqual(Array.from({ length: 50 }, (_, i) => `load note ${i}`).sort());
    expect(treeDigest(join(dir, 'workspaces'))).toBe(tree);
  });
});
