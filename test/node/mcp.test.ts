/**
 * `investibook mcp` as an MCP client meets it: a real child process on stdio, spoken to by the
 * official SDK's own Client and by bare JSON-RPC lines — initialize, tools/list, tools/call —
 * answering with the report's words and figures (the same the CLI prints), writing nothing
 * (byte-identical digests), and telling every fault in words: an unknown workspace or session,
 * a workspace without sessions, a missing or locked database. The same from a running server
 * (`--api`), and from the build the sandboxed agent runs, which holds no database driver.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fmt } from '../../src/shared/format';
// @ts-expect-error plain JavaScript, no declarations
import { ensureBuilt } from '../../scripts/build-node.mjs';
import { AgentBridge } from '../../src/node/agent/bridge';
import { run } from '../../src/node/cli/main';
import { seedDemoDatabase } from '../../src/node/demo/builder';
import { contextSummary, summaryText } from '../../src/node/mcp/summary';
import { ReportService } from '../../src/node/report/service';
import { createApp } from '../../src/node/server/app';
import { openSqlite, type SqliteStore } from '../../src/node/storage/sqlite/sqlite-store';
import { verdictLines } from '../../src/shared/report-figures';
import type { ContextReport } from '../../src/shared/wire';
import { captureIo } from '../support/cli';
import { createFixture, databaseDigest, treeDigest, WS, type Fixture } from '../support/fixtures';

const BIN = join(import.meta.dirname, '../../bin/investibook.js');
const TOKEN = 'mcp-test-token';

interface Called {
  isError?: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

/** An MCP client connected to `investibook mcp ARGS`, as a real process. */
async function connect(args: string[], options: { command?: string[]; env?: Record<string, string> } = {}) {
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(options.command ?? [BIN, 'mcp']), ...args],
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: 'investibook-test', version: '1.0.0' });
  await client.connect(transport);
  const call = async (args: Record<string, unknown> = {}): Promise<Called> => {
    const result = (await client.callTool({ name: 'context_report', arguments: args })) as {
      isError?: boolean;
      content: { type: string; text?: string }[];
      structuredContent?: Record<string, unknown>;
    };
    return {
      ...(result.isError ? { isError: true } : {}),
      text: result.content.map((c) => c.text ?? '').join(''),
      structured: result.structuredContent,
    };
  };
  return { client, call, stderr, close: () => client.close() };
}

const fileDigest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

let dir: string;
let dbPath: string;
let root: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-mcp-'));
  dbPath = join(dir, 'investibook.db');
  ({ root } = await seedDemoDatabase(dbPath, TOKEN));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The report the tool reads, made in this process the same way. */
async function reportHere(path = dbPath, workspaceId = 'demo'): Promise<ContextReport> {
  const store = await openSqlite(path, { readOnly: true });
  try {
    return await new ReportService(store).report({ workspaceId, items: 20 });
  } finally {
    await store.close();
  }
}

/** The rows, the database file's bytes, the workspace folder (SQLite's own -wal and -shm beside the file aside). */
const snapshot = async () => ({ db: await databaseDigest(dbPath), file: fileDigest(dbPath), tree: treeDigest(root) });

describe('investibook mcp', () => {
  it('answers initialize, tools/list and tools/call from a plain MCP client, and writes nothing', async () => {
    const before = await snapshot();
    const mcp = await connect(['demo', '--db', dbPath]);
    try {
      // initialize
      expect(mcp.client.getServerVersion()).toMatchObject({ name: 'investibook' });
      expect(mcp.client.getServerCapabilities()?.tools).toBeDefined();
      // tools/list: one read-only tool with its input and output schemas
      const { tools } = await mcp.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['context_report']);
      const [tool] = tools;
      expect(tool!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool!.inputSchema.properties).toHaveProperty('items');
      expect(Object.keys(tool!.outputSchema?.properties ?? {})).toEqual(
        expect.arrayContaining(['verdict', 'sources', 'largestItems', 'repeatedReads', 'suggestions', 'cost']),
      );
      // tools/call: the report's own words and figures (the client checked them against the output schema)
      const result = await mcp.call();
      const report = await reportHere();
      expect(result.isError).toBeUndefined();
      expect(result.text).toBe(summaryText(report));
      const { generatedAt: _a, ...structured } = result.structured as { generatedAt: string };
      const { generatedAt: _b, ...expected } = contextSummary(report);
      expect(structured).toEqual(expected);

      // What the demo's session holds, as the agent reads it.
      expect(result.text).toMatch(/^Context report · workspace demo · session ses_/);
      expect(result.text).toMatch(/^Evidence holds [\d.]+% of the context \([\d,]+ tokens\)\.$/m);
      expect(result.text).toMatch(/^Read more than once: \d+ files? — \d+ extra reads? repeats? /m);
      expect(result.text).toMatch(/^- Read evidence summary: evidence_summary_for_agent\.txt: read 2 times$/m);
      expect(result.text).toMatch(
        /^Cost over the session: \$[\d.]+ over \d+ calls \(every call bills its whole prompt again\)/m,
      );
      expect(expected.suggestions.length).toBeGreaterThan(0);
      expect(expected.largestItems).toHaveLength(8);
      // It leads with the suggestion that frees the most, and hands over each change as it is.
      const first = report.suggestions[0]!;
      expect(result.text).toContain(`\nWhat to do: ${first.title}. Frees ${fmt(first.frees.tokens)} tokens `);
      const listed = (result.structured as { suggestions: { title: string; change?: { text: string } }[] }).suggestions;
      expect(listed.map((s) => s.title)).toEqual(report.suggestions.map((s) => s.title));
      for (const s of report.suggestions) expect(result.text).toContain(s.change!.text);

      // The same sentences as the CLI's table.
      const io = captureIo(dir);
      expect(await run(['debug', 'context', 'demo', '--db', dbPath], io)).toBe(0);
      const verdict = verdictLines(report)!;
      // The demo's calls are priced: the verdict's cost line is the session's.
      expect(report.cost?.total).not.toBeNull();
      for (const line of [verdict.biggest, verdict.item, verdict.headroom, verdict.cache, verdict.cost]) {
        expect(line).not.toBeNull();
        expect(io.stdout()).toContain(line!);
        expect(result.text).toContain(line!);
      }

      // Fewer items on request; out-of-range input refused in words, the server still there.
      const three = await mcp.call({ items: 3 });
      expect((three.structured as { largestItems: unknown[] }).largestItems).toHaveLength(3);
      const bad = await mcp.call({ items: 0 }).catch((error: Error) => ({ isError: true, text: error.message }));
      expect(bad.isError).toBe(true);
      expect(bad.text).toMatch(/items/);
      // An argument it does not take is refused, never dropped: asked for call 8, it does not
      // answer with the current report. A JSON-RPC invalid-params error naming what it takes.
      const refused = await mcp.call({ call: 8 }).then(
        () => null,
        (error: { code?: number; message: string }) => error,
      );
      expect(refused?.code).toBe(-32602);
      expect(refused?.message).toMatch(/does not take "call"/);
      expect(refused?.message).toMatch(/takes one optional argument, items \(an integer from 1 to 20/);
      expect((await mcp.call()).isError).toBeUndefined();
      // stderr says which workspace it serves, from which database.
      expect(mcp.stderr.join('')).toContain(
        `serving context_report on stdio for workspace demo (folder ${root}), from the database ${dbPath} (read-only)`,
      );
    } finally {
      await mcp.close();
    }
    // Nothing written: the rows, the file's bytes, the workspace's files and their times.
    expect(await snapshot()).toEqual(before);
  });

  it('speaks the protocol itself: JSON-RPC lines on stdio, no SDK on the client side', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', 'demo', '--db', dbPath], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout });
    const answers = new Map<number, (message: Record<string, unknown>) => void>();
    const anonymous: Record<string, unknown>[] = [];
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { id?: number | null };
      if (typeof message.id === 'number') answers.get(message.id)?.(message);
      else anonymous.push(message);
    });
    const nextAnonymous = async () => {
      while (anonymous.length === 0) await new Promise((tick) => setTimeout(tick, 10));
      return anonymous.shift()!;
    };
    let next = 0;
    const request = (method: string, params: Record<string, unknown>) =>
      new Promise<Record<string, unknown>>((done) => {
        const id = ++next;
        answers.set(id, done);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    try {
      const init = await request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'plain', version: '0' },
      });
      expect(init).toMatchObject({
        jsonrpc: '2.0',
        id: 1,
        result: { protocolVersion: '2025-06-18', serverInfo: { name: 'investibook' }, capabilities: { tools: {} } },
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      const list = (await request('tools/list', {})) as { result: { tools: { name: string }[] } };
      expect(list.result.tools.map((t) => t.name)).toEqual(['context_report']);
      const call = (await request('tools/call', { name: 'context_report', arguments: { items: 2 } })) as {
        result: { content: { type: string; text: string }[]; structuredContent: { largestItems: unknown[] } };
      };
      expect(call.result.content[0]!.type).toBe('text');
      const report = await reportHere();
      expect(call.result.content[0]!.text).toBe(summaryText(report, contextSummary(report, 2)));
      expect(call.result.structuredContent.largestItems).toHaveLength(2);
      // Arguments it does not take: invalid params (-32602), saying what it takes; the server goes on.
      const extra = (await request('tools/call', { name: 'context_report', arguments: { call: 8, items: 2 } })) as {
        error?: { code: number; message: string };
        result?: unknown;
      };
      expect(extra.result).toBeUndefined();
      expect(extra.error?.code).toBe(-32602);
      expect(extra.error?.message).toMatch(/does not take "call".*takes one optional argument, items/);
      const wrongType = (await request('tools/call', { name: 'context_report', arguments: { items: 'all' } })) as {
        error?: { code: number; message: string };
      };
      expect(wrongType.error).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/items must be an integer/),
      });
      // An unknown tool and an unknown method are answered, not fatal.
      const unknownTool = (await request('tools/call', { name: 'nope', arguments: {} })) as {
        error?: { code: number; message: string };
      };
      expect(unknownTool.error).toMatchObject({ code: -32602, message: expect.stringMatching(/nope/) });
      const unknownMethod = (await request('resources/list', {})) as { error?: { code: number } };
      expect(unknownMethod.error?.code).toBe(-32601);
      // A line that is not JSON: a parse error with id null, and the server goes on.
      child.stdin.write('this is not json\n');
      expect(await nextAnonymous()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
      child.stdin.write(`${JSON.stringify({ hello: 'world' })}\n`);
      expect(await nextAnonymous()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      const again = (await request('tools/list', {})) as { result: { tools: { name: string }[] } };
      expect(again.result.tools.map((t) => t.name)).toEqual(['context_report']);
      // A line over the bound (10 MiB, the SDK's own): an invalid request, and the server goes on.
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 999, method: 'tools/list', pad: 'x'.repeat(11 << 20) })}\n`,
      );
      expect(await nextAnonymous()).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringMatching(/over this server's bound of 10485760 bytes/) },
      });
      const afterLong = (await request('tools/list', {})) as { result: { tools: { name: string }[] } };
      expect(afterLong.result.tools.map((t) => t.name)).toEqual(['context_report']);
      // `__proto__` and `constructor` are arguments like any other it does not take.
      for (const key of ['__proto__', 'constructor']) {
        const line = `{"jsonrpc":"2.0","id":${++next},"method":"tools/call","params":{"name":"context_report","arguments":{"${key}":{"items":1}}}}`;
        const answer = new Promise<Record<string, unknown>>((done) => answers.set(next, done));
        child.stdin.write(`${line}\n`);
        const refused = (await answer) as { error?: { code: number; message: string }; result?: unknown };
        expect(refused.result, key).toBeUndefined();
        expect(refused.error, key).toMatchObject({
          code: -32602,
          message: expect.stringContaining(`does not take "${key}"`),
        });
      }
    } finally {
      const exited = new Promise((done) => child.once('exit', done));
      child.stdin.end();
      await exited;
    }
    expect(child.exitCode).toBe(0);
  });

  describe('faults, in words', () => {
    let fx: Fixture;
    beforeAll(async () => {
      fx = await createFixture({ 'AGENTS.md': 'Be brief.\n' });
    });
    afterAll(() => fx.cleanup());

    it('an unknown workspace or session, a workspace without sessions', async () => {
      const unknown = await connect(['nope', '--db', dbPath]);
      try {
        const result = await unknown.call();
        expect(result).toMatchObject({
          isError: true,
          text: 'The context report is not available: workspace not found: nope',
        });
      } finally {
        await unknown.close();
      }
      const session = await connect(['demo', '--db', dbPath, '--session', 'ses_missing']);
      try {
        expect((await session.call()).text).toBe(
          'The context report is not available: session not found in workspace demo: ses_missing',
        );
      } finally {
        await session.close();
      }
      const empty = await connect([WS, '--db', fx.dbPath]);
      try {
        const result = await empty.call();
        expect(result.isError).toBeUndefined();
        expect(result.text).toMatch(/^Context report · workspace ws_test · no session yet: /);
        expect(result.text).toContain('Context: no usage reported for this session yet');
        expect(result.text).toContain('- Agent/runtime instructions: ≈');
      } finally {
        await empty.close();
      }
    });

    it('a missing database, never created; a locked one; and answers again once it is free', async () => {
      const missing = join(dir, 'nowhere', 'missing.db');
      const gone = await connect(['demo', '--db', missing]);
      try {
        expect(await gone.call()).toMatchObject({ isError: true, text: expect.stringContaining('database not found') });
      } finally {
        await gone.close();
      }
      expect(() => readFileSync(missing)).toThrow();

      // Another writer holding a database in exclusive mode (alone on it): readers cannot even open it.
      const lockedPath = join(fx.dir, 'locked.db');
      fx.raw.exec(`VACUUM INTO '${lockedPath}'`);
      const locked = await connect([WS, '--db', lockedPath]);
      const holder = await openSqlite(lockedPath);
      try {
        holder.db.pragma('locking_mode = EXCLUSIVE');
        holder.db.exec('BEGIN EXCLUSIVE');
        const result = await locked.call();
        expect(result.isError).toBe(true);
        expect(result.text).toMatch(/^The context report is not available: .*(locked|busy)/);
        holder.db.exec('ROLLBACK');
      } finally {
        await holder.close();
      }
      try {
        expect((await locked.call()).isError).toBeUndefined();
      } finally {
        await locked.close();
      }
    });

    it('refuses contradictory options before serving: exit 2, one line', async () => {
      for (const args of [
        ['mcp', 'demo', '--api', 'http://127.0.0.1:1', '--token', 't', '--db', dbPath],
        ['mcp', 'demo', '--db', dbPath, '--token', 't'],
        ['mcp', 'demo', '--api', 'http://127.0.0.1:1'],
      ]) {
        const io = captureIo(dir);
        expect(await run(args, io), args.join(' ')).toBe(2);
        expect(io.stderr().trim().split('\n')).toHaveLength(1);
        expect(io.stdout()).toBe('');
      }
    });
  });

  describe('from a running server (--api), as the sandboxed agent runs it', () => {
    let server: ServerType;
    let origin: string;
    let store: SqliteStore;
    let reportStore: SqliteStore;
    let bridge: AgentBridge;
    beforeAll(async () => {
      store = await openSqlite(dbPath);
      reportStore = await openSqlite(dbPath, { readOnly: true });
      bridge = new AgentBridge(null, store);
      server = serve({ fetch: createApp({ store, reportStore, agent: bridge }).fetch, hostname: '127.0.0.1', port: 0 });
      await new Promise((ok) => server.once('listening', ok));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((done) => server.close(done));
      await reportStore.close();
      await store.close();
    });

    it('gives the same answer with a member’s token, and with a report grant from the build without drivers', async () => {
      const local = await connect(['demo', '--db', dbPath]);
      const expected = (await local.call()).text;
      await local.close();

      const member = await connect(['demo', '--api', origin], { env: { INVESTIBOOK_TOKEN: TOKEN } });
      try {
        expect((await member.call()).text).toBe(expected);
      } finally {
        await member.close();
      }

      const entry = (await ensureBuilt('mcp')) as string;
      const bundle = readFileSync(entry, 'utf8');
      expect(bundle).not.toMatch(/from ["'](better-sqlite3|pg|kysely)["']|require\(["'](better-sqlite3|pg)["']\)/);
      const grant = bridge.reportGrants.issue('demo');
      const agent = await connect(['--api', origin, '--', 'demo'], {
        command: [entry],
        env: { INVESTIBOOK_TOKEN: grant.token },
      });
      try {
        expect((await agent.call()).text).toBe(expected);
        grant.revoke();
        const refused = await agent.call();
        expect(refused).toMatchObject({ isError: true });
        expect(refused.text).toMatch(/^The context report is not available: .*401.*Sign in/);
      } finally {
        await agent.close();
      }

      // That build reads no database at all.
      const noDriver = spawnSync(process.execPath, [entry, 'demo', '--db', dbPath], { encoding: 'utf8', cwd: root });
      expect(noDriver.status).toBe(2);
      expect(noDriver.stderr).toMatch(/only asks a server: use --api URL/);
    });
  });
});
