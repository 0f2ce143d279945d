/**
 * The live agent end to end, with the real OpenCode runtime on the scripted model: a chat
 * message through the HTTP API is a real agent turn, streamed as it happens, persisted in
 * OpenCode's own shapes with its ACP usage, and explained by /debug. Then the faults: a turn
 * stopped, a model that errs, an agent killed mid-turn, an agent that is not there.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from '../../src/node/agent/confinement';
import { exportSession } from '../../src/node/agent/opencode/export-session';
import { definitionsCacheFile } from '../../src/node/agent/opencode/record';
import { messageRows } from '../../src/node/agent/opencode/session-export';
import { recordDefinitions, type DefinitionsOptions } from '../../src/node/agent/opencode/runtime-definitions';
import { DEMO_WORKSPACE_ID } from '../../src/node/demo/builder';
import type { AgentEvent } from '../../src/shared/agent';
import { contextReportSchema, messagesResponseSchema } from '../../src/shared/wire';
import { startAgentHarness, type AgentHarness } from '../support/agent-harness';

const WS = DEMO_WORKSPACE_ID;
let h: AgentHarness;

beforeAll(async () => {
  h = await startAgentHarness({
    turns: (root) => [
      {
        when: 'take your time',
        steps: [
          { tools: [{ name: 'read', args: { filePath: `${root}/evidence/pd-hot-regions.txt` } }] },
          { delayMs: 30_000, text: 'This answer comes too late.' },
        ],
      },
      { when: 'break the model', steps: [{ fail: { status: 400, message: 'scripted: invalid request' } }] },
    ],
  });
});
afterAll(() => h?.close());

const of = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

describe('a chat message to the live agent', () => {
  let sessionId: string;

  it('is a real OpenCode turn: streamed, persisted in OpenCode’s shapes, with its usage', async () => {
    // A new session answers the chat's reads from the moment its turn starts, stored or not.
    const early: Promise<number[]>[] = [];
    const { status, events } = await h.prompt('What do we know so far?', {
      during: (event) => {
        if (event.type !== 'turn') return;
        const query = `session_id=${event.sessionId}`;
        early.push(
          Promise.all(
            [`/messages?${query}`, `/usage?${query}`, `/debug/context?${query}`].map(
              async (path) => (await h.api(path)).status,
            ),
          ),
        );
      },
    });
    expect(await Promise.all(early)).toEqual([[200, 200, 200]]);
    expect(status).toBe(200);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('turn');
    expect(types.at(-1)).toBe('done');
    expect(types.indexOf('saved')).toBeLessThan(types.indexOf('done'));
    const [turn] = of(events, 'turn');
    expect(turn).toMatchObject({ newSession: true, sessionId: expect.stringMatching(/^ses_/) });
    sessionId = turn!.sessionId;
    expect(of(events, 'done')[0]!.stopReason).toBe('end_turn');
    const read = of(events, 'tool').filter((t) => t.paths?.includes('evidence/evidence_summary_for_agent.txt'));
    expect(read.length).toBeGreaterThan(0);
    expect(of(events, 'tool').some((t) => t.status === 'completed')).toBe(true);
    // OpenCode's tool name, input and output stream with the call, as the saved part has them.
    const call = of(events, 'tool').filter((t) => t.toolCallId === read[0]!.toolCallId);
    expect(call.every((t) => t.tool === 'read')).toBe(true);
    expect(call.find((t) => t.input)?.input).toEqual({
      filePath: `${h.root}/evidence/evidence_summary_for_agent.txt`,
    });
    expect(call.find((t) => t.status === 'completed')?.output).toContain('EVIDENCE SUMMARY FOR AGENT');
    expect(
      of(events, 'text')
        .map((t) => t.text)
        .join(''),
    ).toContain('From the evidence summary');
    const [usage] = of(events, 'usage');
    expect(usage).toMatchObject({ size: 200_000 });
    expect(usage!.used).toBeGreaterThan(1000);

    // Persisted as OpenCode wrote it: its ids, its parts, the workspace context as a synthetic part.
    const rows = await h.store.listMessages(WS, sessionId);
    const messages = rows.map((r) => ({
      id: r.id,
      info: JSON.parse(String(r.info)),
      parts: JSON.parse(String(r.parts)),
    }));
    expect(messages.every((m) => /^msg_/.test(m.id))).toBe(true);
    const user = messages.find((m) => m.info.role === 'user')!;
    expect(user.parts[0]).toMatchObject({ type: 'text', text: 'What do we know so far?' });
    expect(user.parts.find((p: { synthetic?: boolean }) => p.synthetic)?.text).toMatch(
      /^<workspace-context>\n<section source="/,
    );
    const tool = messages.flatMap((m) => m.parts).find((p: { type: string; tool?: string }) => p.tool === 'read');
    expect(tool).toMatchObject({ type: 'tool', state: { status: 'completed' } });
    expect(tool.state.input.filePath).toBe(`${h.root}/evidence/evidence_summary_for_agent.txt`);
    expect(messages.some((m) => m.info.role === 'assistant' && m.info.providerID === 'scripted')).toBe(true);
    // The scripted model really received the workspace context in the first prompt.
    const first = h.requests.find((r) => r.kind === 'step')!;
    expect(JSON.stringify(first.body.messages)).toContain('<workspace-context>');

    // Every ACP usage_update is an acp row.
    const [latest] = await h.store.acpUsageNewestFirst(WS, sessionId);
    expect(latest).toMatchObject({ source: 'acp', context_used: usage!.used, context_size: usage!.size });

    // The chat's history and /debug read them.
    const history = messagesResponseSchema.parse(await (await h.api(`/messages?session_id=${sessionId}`)).json());
    expect(history.messages.length).toBe(rows.length);
    const report = contextReportSchema.parse(
      await (await h.api(`/debug/context?session_id=${sessionId}&items=all`)).json(),
    );
    expect(report.actual?.contextUsed).toBe(usage!.used);
    const evidence = report.sources.find((s) => s.id === 'evidence')!;
    expect(evidence.items.map((i) => i.label)).toContain('Read evidence summary: evidence_summary_for_agent.txt');
    const metadata = report.sources.find((s) => s.id === 'cluster_alert_metadata')!;
    expect(metadata.items.map((i) => i.label)).toContain('Workspace context: Cluster overview');
    expect(report.calibration?.mode).toBe('measured');

    // OpenCode's definitions, recorded by the bridge through OpenCode's own server in the sandbox: the runtime item in parts.
    await h.bridge.settled();
    expect(h.logs.filter((l) => /definitions/.test(l))).toEqual([]);
    const split = contextReportSchema.parse(await (await h.api(`/debug/context?session_id=${sessionId}`)).json());
    expect(split.calibration?.runtime?.parts).toMatchObject({ recorded: true, agent: 'build' });
    const runtime = split.sources.flatMap((s) => s.items).find((i) => i.runtime)!;
    expect(runtime.parts?.reduce((n, p) => n + p.tokens, 0)).toBe(runtime.scaledTokens);
    const sent = (first.body.tools ?? []) as { function: { name: string } }[];
    // Every tool the model was sent, OpenCode's own and those of the MCP servers it was given
    // through ACP (investibook's own report among them), each once.
    expect(
      (runtime.parts ?? [])
        .flatMap((p) =>
          p.kind === 'tool' ? [p.name!] : p.kind === 'mcp_server' ? (p.tools ?? []).map((t) => t.name) : [],
        )
        .sort(),
    ).toEqual(sent.map((t) => t.function.name).sort());
    expect(runtime.parts?.find((p) => p.kind === 'mcp_server')?.name).toBe('investibook');
  });

  it('asks OpenCode’s own server once per set-up: a later session’s definitions are the answers kept', async () => {
    // The bridge kept the first recording's answers, owner-only, where no agent's sandbox sees them.
    expect(statSync(definitionsCacheFile(h.settings.stateDir, WS)).mode & 0o777).toBe(0o600);
    const served: string[] = [];
    const workspace = { id: WS, root: h.root, others: [] };
    const options: DefinitionsOptions = {
      launch: async (program, needs) => {
        if (program.args.includes('--port')) served.push(program.args.join(' '));
        const how = await launch(h.settings, workspace, program, needs ? { network: { inbound: needs.inbound } } : {});
        return { ...how, close: async () => how.network?.close() };
      },
      isolatedNetwork: true,
      serve: h.settings.runtimeServer!,
      // Its start is bounded by the test's own timeout, not by the product's 30 s: a loaded
      // machine takes longer, and that is no failure of what is tested.
      startTimeoutMs: 600_000,
      cache: { file: join(h.dir, 'definitions-cache.json') },
      sessions: new Map([
        [sessionId, {}],
        ['ses_later', {}],
      ]),
    };
    const use = [{ agent: 'build', providerID: 'scripted', modelID: 'scripted' }];
    const [first] = await recordDefinitions([{ sessionId, uses: use }], options);
    expect(served).toHaveLength(1);
    expect(first!.definitions.failed).toBeUndefined();
    expect(first!.definitions.tools.map((t) => t.id)).toContain('read');
    // The same set-up: no server started, the same definitions.
    const [later] = await recordDefinitions([{ sessionId: 'ses_later', uses: use }], options);
    expect(served).toHaveLength(1);
    expect(later).toEqual({ ...first, sessionId: 'ses_later' });
    // A configuration file changed: asked again (then put back as it was).
    const config = join(h.root, 'opencode.json');
    const original = readFileSync(config, 'utf8');
    writeFileSync(config, `${original}\n`);
    try {
      await recordDefinitions([{ sessionId: 'ses_later', uses: use }], options);
    } finally {
      writeFileSync(config, original);
    }
    expect(served).toHaveLength(2);
  });

  it('continues the same session, and the files the agent read count where they belong', async () => {
    // The export program made to fail for this turn: it is saved all the same, read from
    // OpenCode's storage by its binary as a script runner (no OpenCode started for it).
    // A Bun project's files in the workspace are not the reader's: a bunfig.toml preload that
    // would print first, a .env that would point it elsewhere.
    const planted = {
      'bunfig.toml': 'preload = ["./preload.js"]\n',
      'preload.js': 'console.log("{}")\n',
      '.env': 'XDG_DATA_HOME=/nowhere\n',
    };
    for (const [name, text] of Object.entries(planted)) writeFileSync(join(h.root, name), text);
    const exporter = h.settings.exporter;
    h.settings.exporter = { command: '/bin/false', args: [] };
    const { events } = await h.prompt('Tell me about the slow queries', { sessionId }).finally(() => {
      h.settings.exporter = exporter;
      for (const name of Object.keys(planted)) rmSync(join(h.root, name));
    });
    expect(h.logs.filter((l) => /read back|not read from/.test(l))).toEqual([]);
    expect(of(events, 'saved')[0]?.messages).toBeGreaterThan(1);
    expect(of(events, 'turn')[0]).toMatchObject({ sessionId, newSession: false });
    expect(of(events, 'done')[0]?.stopReason).toBe('end_turn');
    const report = contextReportSchema.parse(
      await (await h.api(`/debug/context?session_id=${sessionId}&items=all`)).json(),
    );
    const labels = report.sources.find((s) => s.id === 'evidence')!.items.map((i) => i.label);
    expect(labels.some((l) => l.startsWith('Read evidence: slow-query.log'))).toBe(true);
    expect(JSON.stringify(report.sources)).not.toMatch(/tool output/i);
  });

  it('keeps the session as OpenCode’s export has it, byte for byte, though it read it from OpenCode’s storage', async () => {
    const exporter = h.settings.exporter!;
    const exported = await exportSession(
      await launch(
        h.settings,
        { id: WS, root: h.root, others: [] },
        { command: exporter.command, args: exporter.args.map((a) => a.replaceAll('{session}', sessionId)) },
      ),
    );
    const stored = (await h.store.listMessages(WS, sessionId)).map((r) => ({
      id: r.id,
      // Parsed and written again: the same text only when the keys are in the same order.
      info: JSON.stringify(JSON.parse(String(r.info))),
      parts: JSON.stringify(JSON.parse(String(r.parts))),
    }));
    const theirs = messageRows(exported).map((r) => ({
      id: r.id,
      info: JSON.stringify(r.info),
      parts: JSON.stringify(r.parts),
    }));
    expect(theirs.length).toBeGreaterThan(2);
    expect(stored).toEqual(theirs);
  });

  it('tells the chat when the agent asks permission, and answers by the server’s policy', async () => {
    const { events } = await h.prompt('Can you check with the cluster?', { sessionId });
    const [permission] = of(events, 'permission');
    expect(permission).toMatchObject({ allowed: false, title: expect.stringContaining('tiup') });
    // The refused call fails with OpenCode's words for a refusal: the chat says who refused it.
    const refused = of(events, 'tool').find((t) => t.status === 'failed')!;
    expect(refused).toMatchObject({ tool: 'bash', input: { command: expect.stringContaining('tiup') } });
    expect(refused.error).toBe('The user rejected permission to use this specific tool call.');
    expect(of(events, 'done')[0]?.stopReason).toBe('end_turn');
  });
});

/** The user's text is in the session's persisted messages (OpenCode's or the bridge's own). */
async function keptText(sessionId: string, text: string): Promise<boolean> {
  const rows = await h.store.listMessages(WS, sessionId);
  return rows.some((r) => String(r.parts).includes(JSON.stringify(text).slice(1, -1)));
}

describe('when a turn does not go to plan', () => {
  it('stops a turn on Stop: over for the user as OpenCode answers, saved after, and takes the next prompt at once', async () => {
    let sessionId = '';
    let asked = false;
    let next: ReturnType<typeof h.prompt> | null = null;
    let statusAtDone: Promise<unknown> | null = null;
    const { events } = await h.prompt('Please take your time', {
      during: (event) => {
        if (event.type === 'turn') sessionId = event.sessionId;
        if (event.type === 'tool' && event.status === 'completed' && !asked) {
          asked = true;
          void h.api('/agent/cancel', { method: 'POST', body: JSON.stringify({ sessionId }) });
        }
        if (event.type === 'done') {
          // The turn is over for the user: not running, and the next prompt is taken (it waits
          // for the stopped turn's save rather than being refused as busy).
          statusAtDone = h.api('/agent').then((r) => r.json());
          next = h.prompt('What do we know so far?', { sessionId });
        }
      },
    });
    expect(asked).toBe(true);
    expect(of(events, 'done')[0]?.stopReason).toBe('cancelled');
    // The end does not wait for the save (`opencode export`, seconds): `done` first, `saved` after.
    const types = events.map((e) => e.type);
    expect(types.indexOf('done')).toBeLessThan(types.indexOf('saved'));
    expect(of(events, 'saved')).toHaveLength(1);
    expect(((await statusAtDone!) as { running: unknown[] }).running).toEqual([]);
    expect(await keptText(sessionId, 'Please take your time')).toBe(true);
    const rows = await h.store.listMessages(WS, sessionId);
    expect(rows.some((r) => String(r.parts).includes('pd-hot-regions.txt'))).toBe(true);
    const after = await next!;
    expect(of(after.events, 'done')[0]?.stopReason).toBe('end_turn');
    expect((await (await h.api('/agent')).json()).running).toEqual([]);
  });

  it('shows a model error in place and keeps the message and the failed reply', async () => {
    const { events } = await h.prompt('Now break the model');
    const sessionId = of(events, 'turn')[0]!.sessionId;
    const failure = of(events, 'error')[0] ?? null;
    const done = of(events, 'done')[0] ?? null;
    // OpenCode ends the turn with an error (a JSON-RPC error): either way the chat is told.
    expect(failure ?? done).not.toBeNull();
    if (failure) expect(failure.message).toMatch(/scripted: invalid request|error/i);
    expect(await keptText(sessionId, 'Now break the model')).toBe(true);
    const rows = await h.store.listMessages(WS, sessionId);
    expect(rows.some((r) => JSON.parse(String(r.info)).error !== undefined)).toBe(true);
  });

  it('survives the agent being killed mid-turn, and starts it again for the next prompt', async () => {
    let sessionId = '';
    let killed = false;
    const { events } = await h.prompt('Please take your time', {
      during: (event) => {
        if (event.type === 'turn') sessionId = event.sessionId;
        if (event.type === 'tool' && event.status === 'completed' && !killed) {
          killed = true;
          process.kill(h.bridge.processId(WS)!, 'SIGKILL');
        }
      },
    });
    expect(killed).toBe(true);
    expect(of(events, 'turn')).toHaveLength(1);
    expect(of(events, 'error')[0]).toMatchObject({ code: 'agent_exited' });
    expect(await keptText(sessionId, 'Please take your time')).toBe(true);
    const next = await h.prompt('What do we know so far?', { sessionId });
    expect(of(next.events, 'turn')[0]).toMatchObject({ sessionId, newSession: false });
    expect(of(next.events, 'done')[0]?.stopReason).toBe('end_turn');
  });
});

describe('a model endpoint that is down', () => {
  it('ends the turn at the turn timeout with an error in place, keeps the message, the server stays up', async () => {
    // OpenCode retries an unreachable model with backoff for as long as it is let: the bridge's
    // turn timeout (INVESTIBOOK_AGENT_TURN_TIMEOUT_MS, 10 min by default) ends the turn.
    const down = await startAgentHarness({ modelUrl: 'http://127.0.0.1:9/v1', turnTimeoutMs: 8_000 });
    try {
      const { events } = await down.prompt('Is the model there?');
      const sessionId = of(events, 'turn')[0]!.sessionId;
      expect(of(events, 'error')[0]).toMatchObject({ code: 'turn_timeout' });
      expect(of(events, 'error')[0]!.message).toMatch(/model reachable/);
      const rows = await down.store.listMessages(WS, sessionId);
      expect(rows.some((r) => String(r.parts).includes('Is the model there?'))).toBe(true);
      expect((await down.api('/agent')).status).toBe(200);
    } finally {
      await down.close();
    }
  });
});

describe('an agent that is not there', () => {
  it('says so in place, keeps the message, and the server stays up', async () => {
    const missing = await startAgentHarness({ command: '/nonexistent/opencode' });
    try {
      const { events } = await missing.prompt('Is anyone there?');
      // The chat still learns the session its message is kept in.
      expect(of(events, 'turn')[0]).toMatchObject({ newSession: true, sessionId: expect.stringMatching(/^ses_/) });
      expect(of(events, 'error')[0]).toMatchObject({ code: 'agent_not_found' });
      expect(of(events, 'error')[0]!.message).toMatch(/INVESTIBOOK_AGENT_COMMAND/);
      const history = messagesResponseSchema.parse(await (await missing.api('/messages')).json());
      expect(JSON.stringify(history)).toContain('Is anyone there?');
      expect((await missing.api('/agent')).status).toBe(200);
    } finally {
      await missing.close();
    }
  });
});
