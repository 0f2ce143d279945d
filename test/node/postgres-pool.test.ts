/**
 * The PostgreSQL store's connections under a burst: callers beyond the pool wait their turn
 * (bounded apart from the connecting), so a burst on a slow machine queues instead of failing
 * with database_timeout; a caller that waits too long still gets database_timeout, and the
 * connections it waited for are all there afterwards. A real PostgreSQL server.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPostgres, type PostgresStore } from '../../src/node/storage/postgres/postgres-store';
import { StoreUnavailable } from '../../src/node/storage/store';
import { createDatabase } from '../support/postgres';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let url: string;
const stores: PostgresStore[] = [];

beforeAll(async () => {
  url = await createDatabase(inject('postgresUrl'), 'pool');
  stores.push(await openPostgres(url, { readOnly: false }));
});
afterAll(async () => {
  for (const store of stores) await store.close();
});

async function open(options: { maxConnections: number; connectTimeoutMs: number; queueTimeoutMs: number }) {
  const store = await openPostgres(url, { readOnly: true, ...options });
  stores.push(store);
  return store;
}

/** A report's read that holds its connection for `ms`. */
const holding = (store: PostgresStore, ms: number) =>
  store.snapshot(async (read) => {
    await sleep(ms);
    return read.getWorkspace('none');
  });

describe('the PostgreSQL store under a burst', () => {
  it('has a burst larger than its pool wait for a connection, longer than the connect bound, and answer', async () => {
    const store = await open({ maxConnections: 2, connectTimeoutMs: 200, queueTimeoutMs: 10_000 });
    const started = Date.now();
    const answers = await Promise.allSettled(Array.from({ length: 8 }, () => holding(store, 150)));
    // Four rounds of two: the last waited ~450 ms, more than twice the 200 ms pg alone allowed.
    expect(Date.now() - started).toBeGreaterThan(400);
    expect(answers.filter((a) => a.status === 'rejected')).toEqual([]);
  });

  it('answers database_timeout to a caller that waited beyond its bound, and gives every connection back', async () => {
    const store = await open({ maxConnections: 1, connectTimeoutMs: 3000, queueTimeoutMs: 100 });
    const first = holding(store, 600);
    const second = await holding(store, 0).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(StoreUnavailable);
    expect((second as StoreUnavailable).code).toBe('database_timeout');
    expect((second as Error).message).toMatch(/all 1 connections busy for 100 ms/);
    await expect(first).resolves.toBeNull();
    // The one connection is free again: one caller after another, then two at once (one waits).
    await expect(holding(store, 0)).resolves.toBeNull();
    await expect(Promise.all([holding(store, 20), holding(store, 20)])).resolves.toEqual([null, null]);
  });
});
