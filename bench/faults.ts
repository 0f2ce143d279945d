/**
 * How fast faults answer (the tests only hold that they answer, in one line or with a 503):
 * a write while another process holds SQLite's write lock (503 database_busy after the store's
 * busy wait), and the CLI's one-line failure on an impossible path, beside Node's own start-up.
 */
import { serve } from '@hono/node-server';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '../src/node/auth';
import { createApp } from '../src/node/server/app';
import { openSqlite } from '../src/node/storage/sqlite/sqlite-store';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface FaultTimes {
  /** A POST while the write lock is held elsewhere, to its 503. */
  busyMs: number;
  /** `investibook db init` on an impossible path, to its exit. */
  cliFailureMs: number;
  /** `node -e ''`: the start-up every process pays. */
  nodeMs: number;
}

export async function measureFaults(project: string): Promise<FaultTimes> {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-bench-faults-'));
  const dbPath = join(dir, 'faults.db');
  const store = await openSqlite(dbPath);
  try {
    await store.transaction(async (tx) => {
      await tx.insertUser('usr_bench', 'Bench');
      await tx.insertTokenHash(sha256Hex('bench-faults'), 'usr_bench');
      await tx.insertWorkspace({ id: 'ws_faults', name: 'Faults', root_path: 'ws', created_at: 1 });
      await tx.addMember('ws_faults', 'usr_bench');
    });
    const server = serve({ fetch: createApp({ store, reportStore: store }).fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((ok) => server.once('listening', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/workspace/ws_faults/messages`;
    // Another process's connection, as far as this one can tell: a store of its own on the file.
    const other = await openSqlite(dbPath);
    const busy: number[] = [];
    try {
      other.db.exec('BEGIN IMMEDIATE');
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const response = await fetch(url, {
          method: 'POST',
          headers: { Authorization: 'Bearer bench-faults', 'Content-Type': 'application/json' },
          body: JSON.stringify({ text: 'while locked' }),
        });
        await response.arrayBuffer();
        if (response.status !== 503) throw new Error(`a write under the lock answered ${response.status}`);
        busy.push(performance.now() - started);
      }
    } finally {
      other.db.exec('ROLLBACK');
      await other.close();
      await new Promise((done) => server.close(done));
    }
    const timed = (args: string[]) =>
      median(
        [0, 1, 2, 3, 4].map(() => {
          const started = performance.now();
          spawnSync(process.execPath, args, { encoding: 'utf8' });
          return performance.now() - started;
        }),
      );
    return {
      busyMs: median(busy),
      cliFailureMs: timed([join(project, 'bin/investibook.js'), 'db', 'init', '--db', '/proc/nope/x.db']),
      nodeMs: timed(['-e', '']),
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
