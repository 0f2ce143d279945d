/**
 * node-postgres's pool for Kysely's PostgresDialect. Kysely checks a connection out for every
 * query; a connection lost while checked out (the server gone) fails its queries, is destroyed
 * on release, and never takes the process down with an unhandled 'error' event.
 */
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

export function kyselyPool(pool: pg.Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let broken: Error | null = null;
      const lost = (error: Error) => {
        broken ??= error;
      };
      client.on('error', lost);
      return {
        query: ((text: string, values: ReadonlyArray<unknown>) =>
          client.query(text, values as unknown[])) as unknown as PostgresPoolClient['query'],
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
