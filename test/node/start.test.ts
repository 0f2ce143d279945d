/** npm start's entry point: seeds only when the database is absent, and keeps the sign-in link. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { start } from '../../src/node/server/start';
import { databaseDigest, treeDigest } from '../support/fixtures';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-start-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('start', () => {
  it('seeds a missing database once, then uses it as it is, with the same sign-in link', async () => {
    const dbPath = join(dir, 'data', 'investibook.db');
    const lines: string[] = [];
    const first = await start({ database: dbPath, port: 0, build: false, log: (line) => lines.push(line) });
    expect(lines[0]).toBe(`Created the demo database at ${dbPath}`);
    expect(lines.at(-1)).toMatch(/^Open http:\/\/127\.0\.0\.1:\d+\/w\/demo\?token=ib_[\w-]+$/);
    const token = first.token!;
    const posted = await fetch(`${first.url.replace('/w/demo', '')}/api/workspace/demo/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'kept across restarts' }),
    });
    expect(posted.status).toBe(201);
    await first.close();
    const after = await databaseDigest(dbPath);

    const again: string[] = [];
    const second = await start({ database: dbPath, port: 0, build: false, log: (line) => again.push(line) });
    expect(again.some((line) => line.startsWith('Created'))).toBe(false);
    expect(second.token).toBe(token);
    const messages = await (
      await fetch(`${second.url.replace('/w/demo', '')}/api/workspace/demo/messages`, {
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json();
    expect(JSON.stringify(messages)).toContain('kept across restarts');
    await second.close();
    expect(await databaseDigest(dbPath)).toBe(after);
    expect(existsSync(`${dbPath}.demo-token`)).toBe(true);
  });

  it('registers $INVESTIBOOK_TOKEN for the demo user on an existing database', async () => {
    const dbPath = join(dir, 'investibook.db');
    const first = await start({ database: dbPath, port: 0, build: false, log: () => {} });
    await first.close();
    const second = await start({ database: dbPath, port: 0, build: false, token: 'chosen-token', log: () => {} });
    const response = await fetch(`${second.url.replace('/w/demo', '')}/api/workspace/demo`, {
      headers: { Authorization: 'Bearer chosen-token' },
    });
    expect(response.status).toBe(200);
    await second.close();
  });

  it('makes the current reports once listening, reading only, and not when told not to', async () => {
    const dbPath = join(dir, 'data', 'investibook.db');
    const seeded = await start({ database: dbPath, port: 0, build: false, warm: false, log: () => {} });
    expect(await seeded.warmed).toEqual([]);
    await seeded.close();
    const before = { db: await databaseDigest(dbPath), tree: treeDigest(join(dir, 'data', 'workspaces')) };

    const warm = await start({ database: dbPath, port: 0, build: false, log: () => {} });
    expect(await warm.warmed).toContain('demo');
    const response = await fetch(`${warm.url.replace('/w/demo', '')}/api/workspace/demo/debug/context`, {
      headers: { Authorization: `Bearer ${warm.token}` },
    });
    expect(response.status).toBe(200);
    await warm.close();
    expect({ db: await databaseDigest(dbPath), tree: treeDigest(join(dir, 'data', 'workspaces')) }).toEqual(before);
  });
});
