/**
 * The advice works (issue 28, point 6), with the real pinned OpenCode on the scripted model: a
 * turn in the demo workspace, its report's suggestion for the tools the model was sent and never
 * called (built-in and MCP — never investibook's own report tool), its change applied to a
 * scratch workspace's opencode.json, the same turn there, the definitions recorded again — and
 * those tools are gone from the request and from the runtime item, which is smaller by the
 * suggestion's figure (±10 %).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { contextReportSchema, type ContextReport, type ReportItem } from '../../src/shared/wire';
import { startAgentHarness, type AgentHarness } from '../support/agent-harness';

const PROMPT = 'What do we know so far?';
let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** One turn of a new session, its definitions recorded; its report, and the tools its first request sent. */
async function turnAndReport(h: AgentHarness): Promise<{ report: ContextReport; sent: string[] }> {
  const { status, events } = await h.prompt(PROMPT);
  expect(status).toBe(200);
  const turn = events.find((e) => e.type === 'turn');
  expect(turn).toBeDefined();
  await h.bridge.settled();
  const response = await h.api(`/debug/context?session_id=${turn!.sessionId}&items=all`);
  const report = contextReportSchema.parse(await response.json());
  expect(report.calibration?.runtime?.parts).toMatchObject({ recorded: true, agent: 'build' });
  const first = h.requests.find((r) => r.kind === 'step')!;
  const sent = ((first.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
  return { report, sent };
}

const runtimeItem = (report: ContextReport): ReportItem =>
  report.sources.flatMap((s) => s.items).find((i) => i.runtime)!;

/** Deep-merges a configuration fragment into what a file holds, as a user pasting it would. */
function merge(into: Record<string, unknown>, fragment: Record<string, unknown>): Record<string, unknown> {
  const out = { ...into };
  for (const [key, value] of Object.entries(fragment)) {
    const before = out[key];
    out[key] =
      typeof value === 'object' && value !== null && typeof before === 'object' && before !== null
        ? merge(before as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return out;
}

describe('the never-called tools, turned off as the report says', () => {
  it('leave the request, and the runtime item is smaller by the suggestion’s figure (±10 %)', async () => {
    harness = await startAgentHarness();
    const before = await turnAndReport(harness);
    const suggestion = before.report.suggestions.find((s) => s.kind === 'unused_tools')!;
    expect(suggestion.change?.kind).toBe('opencode_config');
    const off = suggestion.tools!;
    // Built-in tools, all of them in the request the model got; never the report's own MCP tool,
    // which the model was sent and did not call either.
    expect(off).toEqual(expect.arrayContaining(['task', 'webfetch']));
    expect(before.sent).toContain('investibook_context_report');
    expect(off).not.toContain('investibook_context_report');
    expect(off.every((t) => before.sent.includes(t))).toBe(true);
    const measuredBefore = runtimeItem(before.report).scaledTokens!;
    await harness.close();

    // A scratch copy of the same workspace, the change put in its opencode.json.
    const fragment = JSON.parse(suggestion.change!.text) as Record<string, unknown>;
    harness = await startAgentHarness({
      prepare: (root) => {
        const path = join(root, 'opencode.json');
        const config = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
        writeFileSync(path, JSON.stringify(merge(config, fragment), null, 2));
      },
    });
    const after = await turnAndReport(harness);
    // Gone from what the model is sent, and from the definitions recorded again.
    expect(after.sent.filter((t) => off.includes(t))).toEqual([]);
    expect(after.sent.length).toBe(before.sent.length - off.length);
    const parts = runtimeItem(after.report).parts!;
    const named = parts.flatMap((p) => (p.kind === 'tool' ? [p.name!] : (p.tools ?? []).map((t) => t.name)));
    expect(named.filter((t) => off.includes(t))).toEqual([]);
    expect(named.sort()).toEqual([...after.sent].sort());
    // The runtime item, measured by the provider's counts, smaller by what the suggestion said.
    const freed = measuredBefore - runtimeItem(after.report).scaledTokens!;
    expect(Math.abs(freed - suggestion.frees.tokens)).toBeLessThanOrEqual(0.1 * suggestion.frees.tokens);
    // And the report no longer suggests turning them off.
    const still = after.report.suggestions.find((s) => s.kind === 'unused_tools')?.tools ?? [];
    expect(still.filter((t) => off.includes(t))).toEqual([]);
  });
});
