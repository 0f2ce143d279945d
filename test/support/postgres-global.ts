/**
 * Vitest global setup: one real PostgreSQL server for the whole run (test/support/postgres.ts);
 * tests reach it through `inject('postgresUrl')` and create databases of their own.
 */
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The admin URL of the test PostgreSQL server (database `postgres`). */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startPostgres();
  project.provide('postgresUrl', server.url('postgres'));
  return () => server.stop();
}
