/**
 * A workspace's own sources (contract §3, issue 38 point 2): `.investibook/sources.json` declares
 * sources and claims paths, tools, MCP servers and addresses; conflicts and malformed files are
 * warnings, never a failed report; `debug context --export FILE --sources FILE` for a session with
 * no workspace of its own.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { parseDeclaredSources } from '../../src/node/report/declared-sources';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { captureIo } from '../support/cli';

const PUBLIC = join(import.meta.dirname, '..', 'fixtures', 'public');
const PANDA = join(PUBLIC, 'openai-gpt-5.3-codex_dark-factory_silent-panda.json');
const CAP = join(PUBLIC, 'glm-5.2+gpt-5.6-sol_cap.json');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'investibook-declared-'));
  dirs.push(dir);
  return dir;
};

async function exportReport(args: string[]): Promise<{ report: ContextReport; stderr: string }> {
  const io = captureIo(tempDir());
  const code = await run(['debug', 'context', ...args, '--json', '--items', 'all'], io);
  expect(code, io.stderr()).toBe(0);
  return { report: contextReportSchema.parse(JSON.parse(io.stdout())), stderr: io.stderr() };
}

describe('declarations', () => {
  it('claims paths, tools, MCP servers and addresses, for a source of its own or one of the nine', () => {
    const { sources, warnings } = parseDeclaredSources(
      JSON.stringify({
        sources: [
          { id: 'vendored_docs', label: 'Vendored docs', paths: ['docs/external/**'], urls: ['duckdb.org'] },
          { id: 'evidence', label: 'ignored for one of the nine', paths: ['logs/**'], tools: ['mcp:grafana'] },
        ],
      }),
      'sources.json',
    );
    expect(warnings).toEqual([]);
    expect(sources).toEqual([
      { id: 'vendored_docs', label: 'Vendored docs', paths: ['docs/external/**'], tools: [], urls: ['duckdb.org'] },
      { id: 'evidence', label: 'Evidence', paths: ['logs/**'], tools: ['mcp:grafana'], urls: [] },
    ]);
  });

  it('a claim made twice is a warning and the first keeps it; the candidate skill cache is never claimed', () => {
    const { sources, warnings } = parseDeclaredSources(
      JSON.stringify({
        sources: [
          { id: 'a', paths: ['docs/**'], tools: ['webfetch'] },
          { id: 'b', paths: ['docs/**', 'src/**', '.opencode/.all-skills/**'], tools: ['WebFetch'] },
          { id: 'a', paths: ['other/**'] },
        ],
      }),
      'sources.json',
    );
    expect(sources.map((s) => [s.id, s.paths, s.tools])).toEqual([
      ['a', ['docs/**'], ['webfetch']],
      ['b', ['src/**'], []],
    ]);
    expect(warnings).toEqual([
      'sources.json: path docs/** is claimed by a and b; a keeps it',
      'sources.json: b claims .opencode/.all-skills/**; the candidate skill cache is never counted',
      'sources.json: tool WebFetch is claimed by a and b; a keeps it',
      'sources.json: source a is declared twice; the first is kept',
    ]);
  });

  it('a malformed file is one warning and no declaration', () => {
    expect(parseDeclaredSources('{"sources": [', 'x.json').warnings[0]).toMatch(/^x\.json: not valid JSON/);
    expect(parseDeclaredSources('{"sources": [{"id": "Bad Id"}]}', 'x.json')).toEqual({
      sources: [],
      warnings: ['x.json: an id is lowercase letters, digits and _.:- at sources.0.id; no sources declared'],
    });
    expect(parseDeclaredSources('[]', 'x.json').sources).toEqual([]);
  });
});

describe('declared sources in the report', () => {
  it('--sources: a source of its own after the nine, listed like a built-in one, and a claim for one of the nine', async () => {
    const file = join(tempDir(), 'sources.json');
    writeFileSync(
      file,
      JSON.stringify({
        sources: [
          { id: 'duckdb_docs', label: 'DuckDB docs', paths: ['docs/external/duckdb/**'] },
          { id: 'evidence', paths: ['core/src/gen/**'] },
        ],
      }),
    );
    const { report } = await exportReport(['--export', PANDA, '--sources', file]);
    const ids = report.sources.map((s) => s.id);
    expect(ids.slice(0, 9)).not.toContain('duckdb_docs');
    const docs = report.sources.find((s) => s.id === 'duckdb_docs')!;
    expect(docs.label).toBe('DuckDB docs');
    expect(docs.itemCount).toBeGreaterThan(10);
    expect(docs.items.every((i) => i.path?.startsWith('docs/external/duckdb'))).toBe(true);
    expect(
      report.sources.find((s) => s.id === 'evidence')!.items.every((i) => i.path?.startsWith('core/src/gen/')),
    ).toBe(true);
    expect(report.sources.find((s) => s.id === 'evidence')!.itemCount).toBeGreaterThan(0);
    // Every figure still adds up to the total.
    const rows = [...report.sources.map((s) => s.scaledTokens!), ...report.remainder!.map((r) => r.tokens)];
    expect(rows.reduce((a, b) => a + b, 0)).toBe(report.actual!.contextUsed);
  });

  it('the workspace’s own .investibook/sources.json claims an MCP server’s tools', async () => {
    const root = tempDir();
    mkdirSync(join(root, '.investibook'));
    writeFileSync(
      join(root, '.investibook', 'sources.json'),
      JSON.stringify({ sources: [{ id: 'code_search', label: 'Code search', tools: ['mcp:zread'] }] }),
    );
    const { report } = await exportReport(['--export', CAP, '--root', root]);
    // Both of the server's calls, its file read included: a declaration comes before the path (contract §3).
    expect(report.sources.find((s) => s.id === 'code_search')).toMatchObject({ label: 'Code search', itemCount: 2 });
    expect(report.sources.find((s) => s.id === 'mcp:zread')).toBeUndefined();
  });

  it('a malformed file is a warning in the report, never a failed report', async () => {
    const file = join(tempDir(), 'sources.json');
    writeFileSync(file, '{ not json');
    const { report } = await exportReport(['--export', PANDA, '--sources', file]);
    expect(report.warnings).toContainEqual(expect.stringMatching(/sources\.json: not valid JSON/));
    expect(report.sources.slice(0, 9).map((s) => s.id)).toHaveLength(9);
  });

  it('--sources without --export, or a file that is not there, is a usage error in one line', async () => {
    const io = captureIo(tempDir());
    expect(await run(['debug', 'context', '--sources', 'x.json'], io)).toBe(2);
    expect(io.stderr()).toMatch(/^investibook: --sources only makes sense with --export\n$/);
    const missing = captureIo(tempDir());
    expect(await run(['debug', 'context', '--export', PANDA, '--sources', 'nope.json'], missing)).toBe(2);
    expect(missing.stderr().trim().split('\n').at(-1)).toBe('investibook: --sources nope.json: no such file');
  });
});
