/**
 * node-postgres's pool for Kysely's PostgresDialect, with a client-side bound on every query and a
 * gate in front of it.
 * A server frozen mid-query (SIGSTOP, a hung host) keeps the TCP connection open and never
 * answers, so a server-side statement_timeout never fires: after `timeoutMs` the query fails
 * with QueryTimeout, and its connection is destroyed on release, never handed out again (its
 * late answer would be read as the next query's). Getting a connection is bounded by the pool's
 * own connectionTimeoutMillis — which pg counts from the moment it is asked, its queue included:
 * a burst of reports on a slow machine then failed for waiting behind each other, not for a
 * database that did not answer. So a caller first waits here for one of the pool's connections
 * (ConnectionGate, bounded apart), and pg's bound is left to the connecting itself.
 */
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

export class QueryTimeout extends Error {
  constructor(readonly ms: number) {
    super(`the database did not answer within ${ms} ms`);
    this.name = 'QueryTimeout';
  }
}

/** At most `max` callers hold a connection; the others wait in turn, each at most `waitMs`. */
export class ConnectionGate {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly max: number,
    private readonly waitMs: number,
  ) {}

  acquire(): Promise<void> {
    if (this.held < this.max) {
      this.held++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        // Worded as pg words its own, so that it is told apart the same way (database_timeout).
        reject(
          new Error(`timeout exceeded when trying to connect: all ${this.max} connections busy for ${this.waitMs} ms`),
        );
      }, this.waitMs);
      this.waiting.push(grant);
    });
  }

  /** A connection given back: the next caller in line has it, else it is free. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held--;
  }
}

export function kyselyPool(pool: pg.Pool, timeoutMs: number, gate?: ConnectionGate): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      await gate?.acquire();
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        gate?.release();
        throw error;
      }
      let released = false;
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
          if (released) return;
          released = true;
          client.removeListener('error', lost);
          client.release(broken ?? (destroy ? true : undefined));
          gate?.release();
        },
      };
    },
    end: () => pool.end(),
  };
}
