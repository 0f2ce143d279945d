/** Which file a tokenizer thread runs, from each form of the program. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/node/project';
import { workerFile } from '../../src/node/report/token-pool';

const built = (name: string) => pathToFileURL(join(PROJECT_ROOT, 'build', 'node', name)).href;

describe('the tokenizer thread’s code', () => {
  it('is the compiled worker from the CLI’s script and from the ES modules, never the sources', () => {
    // From cli.cjs the thread once took the source path, failed, and left every count to the
    // main thread: the compiled programs never start tsx.
    for (const program of ['cli.cjs', 'cli.mjs', 'server.mjs']) {
      const file = workerFile(built(program));
      expect(file).toEqual({ filename: join(PROJECT_ROOT, 'build', 'node', 'token-worker.mjs') });
      expect(existsSync(file.filename)).toBe(true);
    }
  });

  it('is the TypeScript source through tsx from the sources', () => {
    const file = workerFile(pathToFileURL(join(PROJECT_ROOT, 'src', 'node', 'report', 'token-pool.ts')).href);
    expect(file.filename).toBe(join(PROJECT_ROOT, 'src', 'node', 'report', 'token-worker.ts'));
    expect(file.execArgv?.join(' ')).toMatch(/--import \S*tsx/);
  });
});
