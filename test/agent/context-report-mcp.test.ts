/**
 * The agent asks about its own context: the real pinned OpenCode, started by the server with
 * investibook's MCP server in its sandbox, calls `investibook_context_report` on the scripted
 * model's word, and the model receives the report's text in the next request — the verdict
 * and the sources as /debug has them. The call is then a tool payload like any other in the
 * next report. And the MCP server's token is worth nothing else: an agent that takes it from
 * its MCP server's environment can read its own workspace's report and nothing more, and the
 * database is still not in its sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_WORKSPACE_ID } from '../../src/node/demo/builder';
import { contextSummary } from '../../src/node/mcp/summary';
import type { AgentEvent } from '../../src/shared/agent';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { OTHER_WS, startAgentHarness, type AgentHarness } from '../support/agent-harness';
import { treeDigest } from '../support/fixtures';

const WS = DEMO_WORKSPACE_ID;
const TOOL = 'investibook_context_report';

const of = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

const bash = (command: string) => ({ name: 'bash', args: { command, description: 'try it' } });

/** The environment of any process in the sandbox holding the MCP server's token, as shell text. */
const STOLEN = `T=$(for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null; done | sed -n 's/^INVESTIBOOK_TOKEN=//p' | head -1)`;

/** What the agent tries with a token taken from its MCP server: the command is written once the server listens. */
const tokenStep = { tools: [bash('true')] };

/** The origin the agent's MCP server is given (`--api`): the report gateway's relay inside its own network. */
const INSIDE = `O=$(for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done | sed -n 's/.*--api \\(http[^ ]*\\).*/\\1/p' | head -1)`;

function tokenCommand(origin: string, dbPath: string, otherRoot: string): string {
  const status = (method: string, path: string, at = '$O', extra = '') =>
    `$(curl -s -o /dev/null -w '%{http_code}' ${extra} -X ${method} -H 'Content-Type: application/json' -H "Authorization: Bearer $T"${method === 'POST' ? ` -d '{"text":"again"}'` : ''} ${at}${path})`;
  return [
    STOLEN,
    INSIDE,
    `echo "token:\${T:+found}"`,
    `echo "inside:\${O}"`,
    ...[
      `/api/workspace/${WS}/debug/context`,
      `/api/workspace/${WS}/messages`,
      `/api/workspace/${WS}/debug/context/reader`,
      `/api/workspace/${OTHER_WS}/debug/context`,
      '/api/workspaces',
    ].map((path) => `echo "GET ${path} ${status('GET', path)}"`),
    `echo "POST prompt ${status('POST', `/api/workspace/${WS}/agent/prompt`)}"`,
    // The server itself, on the host's loopback: not there from the agent's network, not through its proxy.
    `echo "host direct ${status('GET', `/api/workspace/${WS}/debug/context`, origin, '--noproxy "*" --max-time 5')}"`,
    `echo "host via proxy ${status('GET', `/api/workspace/${WS}/debug/context`, origin, '-x "$HTTP_PROXY" --noproxy "" --max-time 5')}"`,
    `echo "database:$(test -e ${dbPath} && echo visible || echo hidden)"`,
    `echo "other workspace:$(test -e ${otherRoot} && echo visible || echo hidden)"`,
  ].join('; ');
}

let h: AgentHarness;
beforeAll(async () => {
  h = await startAgentHarness({
    second: true,
    permissions: 'allow',
    turns: () => [
      {
        when: 'How full is your context',
        steps: [{ tools: [{ name: TOOL, args: {} }] }, { text: 'Evidence fills most of it; I will read less.' }],
      },
      { when: 'Use the token', steps: [tokenStep, { text: 'Done.' }] },
    ],
  });
  tokenStep.tools[0]!.args.command = tokenCommand(h.origin, h.dbPath, h.otherRoot);
});
afterAll(() => h?.close());

describe('the agent asks for its own context report', () => {
  let sessionId: string;
  let before: ContextReport;

  it('has the tool, allowed unasked, and the model receives the report of its own session', async () => {
    const first = await h.prompt('What do we know so far?');
    sessionId = of(first.events, 'turn')[0]!.sessionId;
    // Every request of the agent offers the tool (OpenCode names it server_tool).
    const offered = h.requests.filter((r) => r.kind === 'step').at(-1)!;
    expect(offered.body.tools?.map((t) => (t as { function?: { name?: string } }).function?.name)).toContain(TOOL);
    before = contextReportSchema.parse(await (await h.api(`/debug/context?session_id=${sessionId}&items=20`)).json());

    const seen = h.requests.length;
    const workspaceBefore = treeDigest(h.root);
    const rowsBefore = await h.store.contentRows();
    const { events } = await h.prompt('How full is your context?', { sessionId });
    expect(of(events, 'done')[0]?.stopReason).toBe('end_turn');
    // Read-only and the agent's own: never asked.
    expect(of(events, 'permission')).toEqual([]);
    const call = of(events, 'tool').filter((t) => t.tool === TOOL);
    expect(call.at(-1)).toMatchObject({ status: 'completed' });

    // The request after the call carries the tool's result: the report's text.
    const after = h.requests.slice(seen).filter((r) => r.kind === 'step');
    const results = after.flatMap((r) =>
      r.body.messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : '')),
    );
    const text = results.find((t) => t.includes('Context report ·'));
    expect(text, JSON.stringify(results).slice(0, 500)).toBeDefined();
    expect(text).toContain(`Context report · workspace ${WS} · session ${sessionId}`);
    // The verdict and the sources as the report has them (as of the turn before: its measured total).
    const summary = contextSummary(before);
    expect(summary.verdict.length).toBeGreaterThan(2);
    expect(text).toContain(summary.verdict[0]!);
    expect(text).toContain('Sources (tokens, Used % — the share of the used context, cost over the session):');
    for (const row of summary.sources.slice(0, 3)) expect(text).toContain(`- ${row.label}: `);
    expect(text).toMatch(/^Largest items \(tokens, Used %\):\n1\. /m);
    expect(text).toContain(`Context: ${before.actual!.contextUsed.toLocaleString('en-US')} / 200,000 tokens`);

    // It wrote nothing: the workspace is byte for byte as it was, and the database holds what it
    // held (no row changed or gone) plus the turn's own messages and usage.
    expect(treeDigest(h.root)).toBe(workspaceBefore);
    const rowsAfter = await h.store.contentRows();
    expect(rowsBefore.filter((row) => !rowsAfter.includes(row))).toEqual([]);
    const added = rowsAfter.filter((row) => !rowsBefore.includes(row));
    expect(added.length).toBeGreaterThan(0);
    expect(added.filter((row) => !row.includes(sessionId))).toEqual([]);
  });

  it('is a tool payload like any other in the next report: “Context report (MCP)”, in its server’s own row', async () => {
    const report = contextReportSchema.parse(
      await (await h.api(`/debug/context?session_id=${sessionId}&items=all`)).json(),
    );
    const items = report.sources.flatMap((s) => s.items.map((i) => ({ ...i, source: s.id })));
    const made = items.filter((i) => i.label === 'Context report (MCP)');
    expect(made).toHaveLength(1);
    // An MCP tool's output belongs to its server, here investibook's own (contract §3), in a row of its own.
    expect(made[0]!.source).toBe('mcp:investibook');
    expect(report.sources.find((s) => s.id === 'mcp:investibook')?.label).toBe('MCP server: investibook');
    expect(made[0]!.scaledTokens).toBeGreaterThan(50);
    expect(items.some((i) => i.label.includes(TOOL))).toBe(false);
  });

  it('gives a token that reads its own report and nothing else; the database stays out of sight', async () => {
    const attempt = h.requests.length;
    const { events } = await h.prompt('Use the token, please', { sessionId });
    const shell = of(events, 'tool').filter((t) => t.tool === 'bash');
    expect(shell.at(-1)?.status).toBe('completed');
    const output = h.requests
      .slice(attempt)
      .flatMap((r) => r.body.messages.filter((m) => m.role === 'tool'))
      .map((m) => (typeof m.content === 'string' ? m.content : ''))
      .find((t) => t.includes('token:'));
    expect(output).toContain('token:found');
    expect(output).toMatch(/inside:http:\/\/127\.0\.0\.1:\d+/);
    expect(output).not.toContain(`inside:${h.origin}`);
    expect(output).toContain(`GET /api/workspace/${WS}/debug/context 200`);
    // The gateway passes this workspace's report and nothing else (the grant would refuse them too: 401/404).
    expect(output).toContain(`GET /api/workspace/${WS}/messages 403`);
    expect(output).toContain(`GET /api/workspace/${WS}/debug/context/reader 403`);
    expect(output).toContain(`GET /api/workspace/${OTHER_WS}/debug/context 403`);
    expect(output).toContain('GET /api/workspaces 403');
    expect(output).toContain('POST prompt 403');
    expect(output).toContain('host direct 000');
    expect(output).toContain('host via proxy 403');
    expect(output).toContain('database:hidden');
    expect(output).toContain('other workspace:hidden');
  });
});
