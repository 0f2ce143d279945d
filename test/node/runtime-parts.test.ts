/**
 * The runtime item in parts (issue 22): on every session the real OpenCode recorded (one with an
 * MCP server configured), its definitions recorded as the bridge records them, the parts add up
 * to the measured item exactly and each tool's part is within 10 % of what its schema weighs in
 * the recorded request; without recorded definitions the item stays one block and says why.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { NO_DEFINITIONS } from '../../src/node/core/opencode/runtime-parts';
import { fmt } from '../../src/shared/format';
import { familyCounting } from '../../src/node/scripted-model/server';
import { contextReportSchema, type ContextReport, type ReportItem } from '../../src/shared/wire';
import { captureIo } from '../support/cli';
import { createFixture, reportOf, WS, type Fixture } from '../support/fixtures';
import { loadRecording, recordingNames, seedRecording } from '../support/recordings';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const runtimeItem = (report: ContextReport): ReportItem =>
  report.sources.flatMap((s) => s.items).find((i) => i.runtime)!;

describe('the runtime item in parts', () => {
  for (const name of recordingNames().filter((n) => loadRecording(n).runtime)) {
    it(`${name}: its parts sum to the measured item, each tool within 10 % of its schema in the last request`, async () => {
      fx = await createFixture();
      const recording = loadRecording(name);
      seedRecording(fx, recording, WS);
      const report = contextReportSchema.parse(await reportOf(fx, { items: 'all' }));
      const item = runtimeItem(report);
      expect(report.calibration?.runtime?.parts?.recorded, JSON.stringify(report.calibration?.runtime?.parts)).toBe(
        true,
      );
      expect(item.parts!.reduce((n, p) => n + p.tokens, 0)).toBe(item.scaledTokens);
      const rules = familyCounting(recording.config.family, recording.config.tokenizer);
      const sent = new Map(
        ((recording.lastRequest.tools ?? []) as { function: { name: string } }[]).map((t) => [
          t.function.name,
          rules.count(JSON.stringify(t)),
        ]),
      );
      const tools = item.parts!.filter((p) => p.kind === 'tool');
      expect(tools.map((t) => t.name).sort()).toEqual([...sent.keys()].filter((n) => !n.includes('_')).sort());
      for (const tool of tools) {
        const truth = sent.get(tool.name!)!;
        expect(Math.abs(tool.tokens - truth) / truth, `${tool.name}: ${tool.tokens} vs ${truth}`).toBeLessThanOrEqual(
          0.1,
        );
      }
    });
  }

  it('subagent: MCP tools grouped by server, each within 10 %, and which tools were called', async () => {
    fx = await createFixture();
    const recording = loadRecording('subagent');
    seedRecording(fx, recording, WS);
    const report = contextReportSchema.parse(await reportOf(fx, { items: 'all' }));
    const item = runtimeItem(report);
    const parts = item.parts!;
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.reduce((n, p) => n + p.tokens, 0)).toBe(item.scaledTokens);
    expect(report.calibration?.runtime?.parts).toMatchObject({ recorded: true, agent: 'build' });

    const rules = familyCounting(recording.config.family, recording.config.tokenizer);
    const sent = new Map(
      (recording.lastRequest.tools as { function: { name: string } }[]).map((t) => [
        t.function.name,
        rules.count(JSON.stringify(t)),
      ]),
    );
    const tools = parts.filter((p) => p.kind === 'tool');
    expect(tools.map((t) => t.name).sort()).toEqual([...sent.keys()].filter((n) => !n.includes('_')).sort());
    for (const tool of tools) {
      const truth = sent.get(tool.name!)!;
      expect(Math.abs(tool.tokens - truth) / truth, `${tool.name}: ${tool.tokens} vs ${truth}`).toBeLessThanOrEqual(
        0.1,
      );
    }
    // The MCP server's tools, grouped: each tool's estimate, and the group (tools and instructions).
    const server = parts.find((p) => p.kind === 'mcp_server')!;
    expect(server.name).toBe('incident-tools');
    expect(server.tools).toHaveLength(7);
    for (const tool of server.tools!) {
      const truth = sent.get(tool.name)!;
      expect(Math.abs(tool.estimatedTokens - truth) / truth, tool.name).toBeLessThanOrEqual(0.1);
    }
    const system = recording.lastRequest.messages.find((m) => m.role === 'system')!.content as string;
    const instructions = /<mcp_instructions>[\s\S]*?<\/mcp_instructions>/.exec(system)?.[0] ?? '';
    const serverTruth = server.tools!.reduce((n, t) => n + sent.get(t.name)!, 0) + rules.count(instructions);
    expect(Math.abs(server.tokens - serverTruth) / serverTruth).toBeLessThanOrEqual(0.1);
    // Which tools the session called: the parent read and delegated; the subagent, not the parent, used MCP.
    expect(tools.find((t) => t.name === 'task')?.called).toBe(true);
    expect(tools.find((t) => t.name === 'bash')?.called).toBe(false);
    expect(server.tools!.every((t) => !t.called)).toBe(true);
    // As of the first call, nothing was called yet: the delegation came later.
    const first = runtimeItem(contextReportSchema.parse(await reportOf(fx, { items: 'all', call: 1 })));
    expect(first.parts!.filter((p) => p.kind === 'tool' && p.called).map((p) => p.name)).toEqual([]);

    // The CLI's table prints the same parts, with the same figures.
    const io = captureIo(fx.dir, {});
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath, '--items', 'all'], io)).toBe(0);
    expect(io.stdout()).toContain(
      `${item.label}, part of Agent/runtime instructions, in ${parts.length} parts (as OpenCode’s “build” agent sent them to scripted/scripted):`,
    );
    for (const part of parts)
      expect(io.stdout()).toMatch(new RegExp(`${escape(part.label)}.*\\s${fmt(part.tokens)}\\s`));
  });

  it('suggests the tools the session never called, built-in and MCP, by the sum of their parts', async () => {
    fx = await createFixture();
    seedRecording(fx, loadRecording('subagent'), WS);
    const report = await reportOf(fx, { items: 'all' });
    const parts = runtimeItem(report).parts!;
    const server = parts.find((p) => p.kind === 'mcp_server')!;
    // The skill tool stays on (OpenCode sends the skill catalog only with it), and says so.
    const builtIn = parts.filter((p) => p.kind === 'tool' && p.called === false && p.name !== 'skill');
    const suggestion = report.suggestions.find((s) => s.kind === 'unused_tools')!;
    // The server is in OpenCode's global config, not the workspace's: its tools are turned off by name.
    const mcpTools = server.tools!.filter((t) => !t.called).map((t) => t.name);
    expect(mcpTools).toHaveLength(7);
    expect(suggestion.tools).toEqual([...builtIn.map((p) => p.name), ...mcpTools]);
    expect(suggestion.title).toBe(
      `${suggestion.tools!.length} tools the build agent never called are sent in every call: ${suggestion.tools!.join(', ')}`,
    );
    // The server's part, less what its instructions weigh (they stay when only its tools are denied).
    const toolsEstimate = server.tools!.reduce((n, t) => n + t.estimatedTokens, 0);
    const serverShare = Math.round((server.tokens * toolsEstimate) / server.estimatedTokens);
    expect(suggestion.frees.tokens).toBe(builtIn.reduce((n, p) => n + p.tokens, 0) + serverShare);
    // Edits and writes are one permission in OpenCode: `edit`.
    const permission = (t: string) => (['edit', 'write', 'apply_patch'].includes(t) ? 'edit' : t);
    expect(JSON.parse(suggestion.change!.text)).toEqual({
      agent: { build: { permission: Object.fromEntries(suggestion.tools!.map((t) => [permission(t), 'deny'])) } },
    });
    expect(suggestion.detail).not.toMatch(/`/);
    if (parts.some((p) => p.name === 'skill' && p.called === false))
      expect(suggestion.detail).toContain('Left on: skill (OpenCode sends the skill catalog only with it');
  });

  it('without recorded definitions (rows from elsewhere) and a model the pinned OpenCode was not asked for, stays one measured block and says why', async () => {
    fx = await createFixture();
    seedRecording(fx, loadRecording('subagent'), WS, undefined, { runtime: false });
    const report = await reportOf(fx, { items: 'all' });
    expect(runtimeItem(report).parts).toBeUndefined();
    const reason = `${NO_DEFINITIONS}, and OpenCode 1.18.33's tools were measured for the models of its own catalog, and scripted/scripted is not among them`;
    expect(report.calibration?.runtime?.parts).toEqual({
      recorded: false,
      reason: expect.stringContaining(reason) as string,
    });
    const io = captureIo(fx.dir, {});
    expect(await run(['debug', 'context', WS, '--db', fx.dbPath], io)).toBe(0);
    expect(io.stdout().replace(/\s+/g, ' ')).toContain(`one measured block — ${reason}`);
  });
});
