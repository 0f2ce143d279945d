/** The one schema for the environment: defaults, parsing, and a bad value in one sentence, exit 2. */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { cliEnvSchema, EnvError, envSchema, readEnv } from '../../src/node/env';
import { tokenizerThreads } from '../../src/node/report/token-pool';
import { captureIo } from '../support/cli';
import { PROJECT } from '../support/server-process';

describe('the environment', () => {
  it('has defaults, and an empty value means unset', () => {
    const env = readEnv({ PORT: '', INVESTIBOOK_DB: '', INVESTIBOOK_AGENT_PERMISSIONS: '  ' });
    expect(env).toMatchObject({
      PORT: 8787,
      INVESTIBOOK_DB: undefined,
      INVESTIBOOK_ALLOWED_HOSTS: [],
      INVESTIBOOK_LOG_LEVEL: 'info',
      INVESTIBOOK_AGENT_PERMISSIONS: 'reject',
      INVESTIBOOK_AGENT_TURN_TIMEOUT_MS: 600_000,
      INVESTIBOOK_AGENT_BWRAP: 'bwrap',
    });
  });

  it('parses what it reads: ports, host lists, command lines, thread counts', () => {
    const env = readEnv({
      PORT: '0',
      INVESTIBOOK_ALLOWED_HOSTS: ' Example.COM:443, ,app.internal',
      INVESTIBOOK_AGENT_COMMAND: '"/opt/open code/opencode" acp',
      INVESTIBOOK_TOKENIZER_THREADS: '0',
      UNRELATED: 'kept out',
    });
    expect(env.PORT).toBe(0);
    expect(env.INVESTIBOOK_ALLOWED_HOSTS).toEqual(['example.com:443', 'app.internal']);
    expect(env.INVESTIBOOK_AGENT_COMMAND).toEqual(['/opt/open code/opencode', 'acp']);
    expect(env.INVESTIBOOK_TOKENIZER_THREADS).toBe(0);
    expect(env).not.toHaveProperty('UNRELATED');
    expect(tokenizerThreads({ INVESTIBOOK_TOKENIZER_THREADS: '3' })).toBe(3);
    expect(tokenizerThreads({})).toBeGreaterThanOrEqual(1);
  });

  it.each([
    [{ PORT: 'http' }, 'PORT must be a port number, not "http"'],
    [{ PORT: '70000' }, 'PORT must be a port number, not "70000"'],
    [{ INVESTIBOOK_TOKENIZER_THREADS: '-1' }, /^INVESTIBOOK_TOKENIZER_THREADS must be a whole number of threads/],
    [{ INVESTIBOOK_LOG_LEVEL: 'loud' }, /^INVESTIBOOK_LOG_LEVEL must be "info" or .* not "loud"$/],
    [{ INVESTIBOOK_AGENT_SANDBOX: 'maybe' }, 'INVESTIBOOK_AGENT_SANDBOX must be "bwrap" or "off", not "maybe"'],
  ])('refuses %j in one sentence naming the variable', (env, message) => {
    expect(() => readEnv(env)).toThrow(EnvError);
    expect(() => readEnv(env)).toThrow(message);
  });

  it('names every bad variable on one line', () => {
    expect(() => readEnv({ PORT: 'x', INVESTIBOOK_AGENT_PERMISSIONS: 'maybe' })).toThrow(
      'PORT must be a port number, not "x"; INVESTIBOOK_AGENT_PERMISSIONS must be "reject" or "allow", not "maybe"',
    );
  });

  it('the CLI reads only its own variables, and a bad one is a usage error (exit 2)', async () => {
    expect(readEnv({ PORT: 'x', INVESTIBOOK_DB: 'a.db' }, cliEnvSchema)).toEqual({ INVESTIBOOK_DB: 'a.db' });
    const io = captureIo(tmpdir(), { INVESTIBOOK_TOKENIZER_THREADS: 'many' });
    expect(await run(['debug', 'context', 'demo', '--db', '/nonexistent.db'], io)).toBe(2);
    expect(io.stderr()).toMatch(
      /^investibook: INVESTIBOOK_TOKENIZER_THREADS must be a whole number of threads.*"many"\n$/,
    );
  });

  it('npm start with a bad value: one line on stderr, exit 2, nothing created', async ({ signal }) => {
    const dir = mkdtempSync(join(tmpdir(), 'investibook-env-'));
    try {
      const result = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          [join(PROJECT, 'bin/start.js')],
          // No time bound (a loaded machine stretches a start): a hang ends at the test's timeout, which kills it.
          { env: { ...process.env, INVESTIBOOK_DB: join(dir, 'x.db'), PORT: 'eighty' }, signal },
          (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr, stdout }),
        );
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('investibook: PORT must be a port number, not "eighty"\n');
      expect(result.stdout).toBe('');
      expect(existsSync(join(dir, 'x.db'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('README', () => {
  it('lists every variable of the schema in its configuration table', () => {
    const readme = readFileSync(join(PROJECT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('**Logs.**'));
    for (const name of Object.keys(envSchema.shape)) expect(table, name).toContain(`\`${name}\``);
  });
});
