/**
 * The demo seeded by the compiled programs (build/node/seed-demo.mjs, the bench's demo:
 * bench/start.ts), as `npm start` seeds a user's: its stored analyses carry the build's code
 * digest, the version the built CLI reads (report/stored-analyses.ts), not the sources' own.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript, no declarations
import { codeDigest, ensureBuilt } from '../../scripts/build-node.mjs';
import { PROJECT_ROOT } from '../../src/node/project';

const exec = promisify(execFile);
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-seed-demo-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the demo seeded by the compiled programs', () => {
  it("stores every message's analysis under the build's version", async () => {
    const seeder = (await ensureBuilt('seed-demo')) as string;
    const db = join(dir, 'demo.db');
    const { stdout } = await exec(process.execPath, [seeder, db, 'seed-token']);
    expect(JSON.parse(stdout)).toEqual({ root: join(dir, 'workspaces', 'demo') });
    const read = new Database(db, { readonly: true });
    try {
      const versions = read.prepare('SELECT analyzer_version, COUNT(*) AS n FROM message_analyses GROUP BY 1').all();
      expect(versions).toEqual([{ analyzer_version: expect.stringMatching(/^investibook@.+\/\d+\//), n: 48 }]);
      const version = (versions as { analyzer_version: string }[])[0]!.analyzer_version;
      expect(version.endsWith(`/${codeDigest(PROJECT_ROOT) as string}`)).toBe(true);
    } finally {
      read.close();
    }
  }, 300_000);

  it('refuses to run without a database and a token (exit 2)', async () => {
    const seeder = (await ensureBuilt('seed-demo')) as string;
    await expect(exec(process.execPath, [seeder])).rejects.toMatchObject({ code: 2 });
  }, 300_000);
});
