/**
 * node-postgres's pool for Kysely's PostgresDialect, with a client-side bound on every query.
 * A server frozen mid-query (SIGSTOP, a hung host) keeps the TCP connection open and never
 * answers, so a server-side statement_timeout never fires: after `timeoutMs` the query fails
 * with QueryTimeout, and its connection is destroyed on release, never handed out again (its
 * late answer would be read as the next query's). Getting a connection is bounded by the pool's
 * own connectionTimeoutMillis.
 */
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

export class QueryTimeout extends Error {
  constructor(readonly ms: number) {
    super(`the database did not answer within ${ms} ms`);
    this.name = 'QueryTimeout';
  }
}

export function kyselyPool(pool: pg.Pool, timeoutMs: number): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let broken: Error | null = null;
      // A connection lost while checked out (the server gone): its queries fail; the process stays up.
      const lost = (error: Error) => {
        broken ??= error;
      };
      client.on('error', lost);
      const query = (text: string, values: ReadonlyArray<unknown>): Promise<PostgresQueryResult<unknown>> => {
        // A connection with a query still in flight answers nothing else (a rollback would wait for it).
        if (broken) return Promise.reject(broken);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            broken = new QueryTimeout(timeoutMs);
            reject(broken);
          }, timeoutMs);
          client.query(text, values as unknown[]).then(
            (result) => {
              clearTimeout(timer);
              resolve(result as unknown as PostgresQueryResult<unknown>);
            },
            (error: unknown) => {
              clearTimeout(timer);
              reject(error);
            },
          );
        });
      };
      return {
        query: query as PostgresPoolClient['query'],
        // A truthy argument makes pg's pool destroy the connection instead of keeping it.
        release: (destroy?: boolean) => {
          client.removeListener('error', lost);
          client.release(broken ?? (destroy ? true : undefined));
        },
      };
    },
    end: () => pool.end(),
  };
}
