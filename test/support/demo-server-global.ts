/**
 * Vitest global setup of the e2e project: one `npm start` server on the demo, on a fresh SQLite
 * file, for every file that only reads the demo (test/support/server-process.ts
 * `sharedDemoServer`). A file may add a workspace of its own beside it and read that (the files
 * run one at a time, and another workspace's rows change nothing of the demo's). A file that
 * writes to the demo workspace (messages, a load) or needs a server set up its own way starts its
 * own, and says why: one file's writes would change another's figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startServerProcess, type SharedDemoServer } from './server-process';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The e2e project's one demo server. */
    demoServer: SharedDemoServer;
  }
}

const TOKEN = 'e2e-demo-token';

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-e2e-demo-'));
  const dbPath = join(dir, 'investibook.db');
  const server = await startServerProcess(dbPath, TOKEN);
  project.provide('demoServer', { url: server.url, origin: server.origin, token: TOKEN, dbPath });
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
