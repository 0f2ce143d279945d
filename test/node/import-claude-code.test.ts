/**
 * `investibook import` and `debug context --export` with Claude Code transcripts, through the
 * CLI's main as a user runs them: a `.jsonl` file and standard input told by their content,
 * `--from-claude-code DIR` reading Claude Code's own folder for DIR (its subagents' too), the
 * same report from the file straight, and a bad file refused in one line, exit 2, nothing written.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { projectFolder } from '../../src/node/import/claude-code/run';
import { captureIo, placeIn } from '../support/cli';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'claude-code');

interface Recording {
  sessionId: string;
  transcripts: Record<string, string[]>;
}
const recording = (name: string) => JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as Recording;
const mainLines = (r: Recording) => r.transcripts[Object.keys(r.transcripts).find((k) => !k.includes('/subagents/'))!]!;

interface Report {
  actual: { contextUsed: number };
  sources: { id: string; items?: { label: string }[] }[];
}
/** The runtime's own item, named by its adapter: the first of Agent/runtime instructions. */
const runtimeItem = (report: Report) =>
  report.sources
    .find((s) => s.id === 'agent_instructions')
    ?.items?.find((i) => i.label.startsWith('Claude Code system'))?.label;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-import-cc-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh folder with a workspace folder `ws` in it. */
const place = () => placeIn(dir);

async function cli(args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) {
  const io = captureIo(dir, options.env);
  if (options.stdin !== undefined) io.stdin = Readable.from([options.stdin]);
  const code = await run(args, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

describe('import: Claude Code transcripts', () => {
  it('imports a .jsonl file by its content, once; the report names Claude Code', async () => {
    const p = place();
    const fresh = recording('fresh');
    const file = join(p.base, 'session.jsonl');
    writeFileSync(file, `${mainLines(fresh).join('\n')}\n`);
    const first = await cli(['import', file, '--root', p.root, '--db', p.db]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(`Imported session ${fresh.sessionId} into workspace \\S+ from ${file}: \\d+ new`),
    );
    const again = await cli(['import', file, '--root', p.root, '--db', p.db]);
    expect(again.stdout).toMatch(/Already imported session .*: 0 new, \d+ unchanged/);
    const workspace = /into workspace (\S+)/.exec(first.stdout)![1]!;
    const report = await cli(['debug', 'context', workspace, '--session', fresh.sessionId, '--json', '--db', p.db]);
    expect(report.code).toBe(0);
    expect(runtimeItem(JSON.parse(report.stdout) as Report)).toBe('Claude Code system prompt and tool schemas');
  });

  it('reads standard input the same way', async () => {
    const p = place();
    const fresh = recording('fresh');
    const result = await cli(['import', '-', '--root', p.root, '--db', p.db], {
      stdin: `${mainLines(fresh).join('\n')}\n`,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Imported session ${fresh.sessionId}`);
  });

  it("--from-claude-code DIR imports what Claude Code keeps for DIR, its subagents' sessions too", async () => {
    const p = place();
    const sub = recording('subagent');
    const home = join(p.base, 'home');
    const folder = projectFolder(home, p.root);
    for (const [name, lines] of Object.entries(sub.transcripts)) {
      const path = join(folder, name.split('/').slice(1).join('/'));
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, `${lines.join('\n')}\n`);
    }
    const result = await cli(['import', '--from-claude-code', p.root, '--db', p.db], { env: { HOME: home } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Imported session ${sub.sessionId} `);
    expect(result.stdout).toMatch(new RegExp(`Imported session ${sub.sessionId}/agent-\\w+ `));
  });

  it('reports straight from a transcript with debug context --export', async () => {
    const p = place();
    const fresh = recording('fresh');
    const file = join(p.base, 'session.jsonl');
    writeFileSync(file, `${mainLines(fresh).join('\n')}\n`);
    const result = await cli(['debug', 'context', '--export', file, '--root', p.root, '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(runtimeItem(report)).toBe('Claude Code system prompt and tool schemas');
    expect(report.actual.contextUsed).toBeGreaterThan(0);
  });

  it('refuses a truncated transcript in one line, exit 2, and writes nothing', async () => {
    const p = place();
    const lines = mainLines(recording('fresh'));
    const file = join(p.base, 'cut.jsonl');
    writeFileSync(file, `${lines.slice(0, 4).join('\n')}\n${lines[4]!.slice(0, 30)}`);
    const result = await cli(['import', file, '--root', p.root, '--db', p.db]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`investibook: ${file} ends in the middle of a line (truncated?)\n`);
    expect(existsSync(p.db)).toBe(false);
  });
});
