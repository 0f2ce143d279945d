/**
 * The kept answers about an agent's set-up (src/node/agent/opencode/definitions-cache.ts): the
 * key holds what OpenCode's definitions depend on and nothing that changes without them; what is
 * kept is owner-only and read back only under its key, with every model's tools.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  readAnswers,
  setupKey,
  writeAnswers,
  type RuntimeAnswers,
} from '../../src/node/agent/opencode/definitions-cache';

let dir: string;
let root: string;
let how: { cwd: string; env: NodeJS.ProcessEnv };
const serve = () => ({ command: join(dir, 'opencode'), args: ['serve'] });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-definitions-cache-'));
  root = join(dir, 'ws');
  mkdirSync(join(root, '.opencode', 'skill', 'triage'), { recursive: true });
  writeFileSync(join(root, 'opencode.json'), '{}');
  writeFileSync(join(root, '.opencode', 'skill', 'triage', 'SKILL.md'), 'one');
  writeFileSync(join(dir, 'opencode'), 'the binary');
  mkdirSync(join(dir, 'home'));
  how = { cwd: root, env: { HOME: join(dir, 'home'), OPENCODE_SERVER_PASSWORD: 'a', PATH: '/usr/bin' } };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the key of a set-up', () => {
  it('stays while nothing OpenCode reads changed: rewritten with the same content, a new password, packages', () => {
    const key = setupKey(how, serve(), {});
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(join(root, 'opencode.json'), '{}');
    mkdirSync(join(root, '.opencode', 'node_modules', 'x'), { recursive: true });
    writeFileSync(join(root, '.opencode', 'node_modules', 'x', 'index.js'), 'installed');
    const env = { ...how.env, OPENCODE_SERVER_PASSWORD: 'b', PATH: '/bin' };
    expect(setupKey({ ...how, env }, serve(), {})).toBe(key);
  });

  it('changes with a configuration, a skill, the binary, a variable, a given MCP server', () => {
    const key = setupKey(how, serve(), {});
    const keys = new Set([key]);
    writeFileSync(join(root, '.opencode', 'skill', 'triage', 'SKILL.md'), 'two');
    keys.add(setupKey(how, serve(), {}));
    writeFileSync(join(root, 'opencode.json'), '{"permission":{}}');
    keys.add(setupKey(how, serve(), {}));
    writeFileSync(join(dir, 'home', 'AGENTS.md'), 'not read for tools');
    mkdirSync(join(dir, 'home', '.claude', 'skills', 's'), { recursive: true });
    keys.add(setupKey(how, serve(), {}));
    writeFileSync(join(dir, 'opencode'), 'another binary');
    keys.add(setupKey(how, serve(), {}));
    keys.add(setupKey({ ...how, env: { ...how.env, OPENCODE_CONFIG_CONTENT: '{}' } }, serve(), {}));
    keys.add(setupKey(how, serve(), { report: { type: 'local', command: ['node', 'mcp.mjs'] } }));
    expect(keys.size).toBe(7);
    // A secret's value is not part of it: its name is.
    const given = (value: string) =>
      setupKey(how, serve(), { report: { type: 'local', command: ['node'], environment: { TOKEN: value } } });
    expect(given('one')).toBe(given('two'));
  });

  it('is none for a command found on PATH (its version cannot be told)', () => {
    expect(setupKey(how, { command: 'opencode', args: ['serve'] }, {})).toBeNull();
  });
});

describe('the answers kept', () => {
  const answers = (tools: RuntimeAnswers['tools']): RuntimeAnswers => ({
    version: '1.18.33',
    paths: { directory: '/ws', worktree: '/' },
    project: {},
    providers: { providers: [] },
    agents: [{ name: 'build' }],
    mcp: [],
    tools,
  });
  const read = { id: 'read', description: 'Reads', parameters: '{}' };

  it('are owner-only, read back under their key only, and with every model asked', () => {
    const file = join(dir, 'state', 'definitions', 'w.json');
    writeAnswers(file, 'k1', answers({ 'scripted/a': [read] }));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readAnswers(file, 'k1', ['scripted/a'])?.tools).toEqual({ 'scripted/a': [read] });
    expect(readAnswers(file, 'k2', ['scripted/a'])).toBeNull();
    expect(readAnswers(file, 'k1', ['scripted/a', 'scripted/b'])).toBeNull();
    // Another model's tools under the same key join those kept; another key replaces them.
    writeAnswers(file, 'k1', answers({ 'scripted/b': [] }));
    expect(readAnswers(file, 'k1', ['scripted/a', 'scripted/b'])).not.toBeNull();
    writeAnswers(file, 'k2', answers({ 'scripted/b': [] }));
    expect(readAnswers(file, 'k2', ['scripted/a'])).toBeNull();
    expect(readAnswers(join(dir, 'none.json'), 'k1', [])).toBeNull();
  });
});
