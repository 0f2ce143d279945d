/**
 * The report's figures against the provider's own counts, on sessions recorded from the real
 * OpenCode runtime: measured items and runtime overhead, content added after the last call,
 * what left the context since, duplicates by content, shell reads, both cache conventions,
 * usage rows that measured nothing, and the fallback when there are no per-call counts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { contextReportSchema, type ContextReport, type SourceId } from '../../src/shared/wire';
import { addUsage, createFixture, reportOf, WS, type Fixture } from '../support/fixtures';
import { loadRecording, seedRecording, type Recording } from '../support/recordings';

let fx: Fixture | undefined;
afterEach(() => fx?.cleanup());

async function reportOfRecording(recording: Recording, change?: (fx: Fixture) => void): Promise<ContextReport> {
  fx = await createFixture();
  seedRecording(fx, recording, WS);
  change?.(fx);
  const report = await reportOf(fx, { items: 'all' });
  expect(contextReportSchema.safeParse(report).success).toBe(true);
  return report;
}

const items = (r: ContextReport, id?: SourceId) =>
  r.sources.filter((s) => id === undefined || s.id === id).flatMap((s) => s.items.map((i) => ({ ...i, source: s.id })));
const total = (r: ContextReport) =>
  r.sources.reduce((n, s) => n + (s.scaledTokens ?? 0), 0) + r.calibration!.unattributed.tokens;

/** The step tokens of every assistant message, as the provider reported them. */
function stepPrompts(recording: Recording): number[] {
  return recording.export.messages
    .filter((m) => m.info.role === 'assistant' && !m.info.summary)
    .flatMap((m) => m.parts.filter((p) => p.type === 'step-finish'))
    .map((p) => {
      const t = p.tokens as { input: number; cache: { read: number; write: number } };
      return t.input + t.cache.read + t.cache.write;
    });
}

describe('calibration by the provider counts', () => {
  it('shows the runtime overhead as a measured item and the final reply apart, outside the total', async () => {
    const recording = loadRecording('fresh');
    const r = await reportOfRecording(recording);
    expect(r.calibration).toMatchObject({ mode: 'measured', reference: { matchesUsage: true } });
    expect(r.estimate.method).toMatch(/calibrated by \d+ provider-measured model calls/);
    const overhead = items(r, 'agent_instructions').find((i) => i.runtime)!;
    expect(overhead).toMatchObject({
      label: 'OpenCode system prompt and tool schemas, measured',
      measured: true,
      order: 0,
    });
    expect(overhead.scaledTokens).toBe(r.calibration!.runtimeOverhead);
    expect(r.pending!.items.map((i) => i.label)).toEqual([
      expect.stringMatching(/^Assistant reply: Most likely cause/),
    ]);
    expect(items(r).some((i) => i.label.startsWith('Assistant reply: Most likely cause'))).toBe(false);
    expect(total(r)).toBe(r.actual!.contextUsed);
    // Tool results are measured by the growth of the call after them.
    expect(items(r, 'evidence').every((i) => i.measured)).toBe(true);
    expect(r.sources.find((s) => s.id === 'evidence')!.basis).toBe('measured');
  });

  it('draws the timeline from every measured call, its prompt exactly what the provider counted', async () => {
    const recording = loadRecording('fresh');
    const r = await reportOfRecording(recording);
    expect(r.timeline!.map((p) => p.promptTokens)).toEqual(stepPrompts(recording));
    for (const point of r.timeline!) {
      const sum = Object.values(point.bySource).reduce((a, b) => a + b, 0) + point.runtimeOverhead;
      expect(sum).toBe(point.promptTokens);
    }
    expect(r.timeline!.some((p) => p.events.includes('skill'))).toBe(true);
  });

  it('marks compaction and pruning on the timeline, and counts pruned outputs as their placeholder', async () => {
    const pruning = await reportOfRecording(loadRecording('pruning'));
    const point = pruning.timeline!.find((p) => p.events.includes('pruning'))!;
    expect(point.promptTokens).toBeLessThan(pruning.timeline![pruning.timeline!.indexOf(point) - 1]!.promptTokens);
    const cleared = items(pruning, 'evidence').filter((i) => i.label.endsWith('(output cleared)'));
    expect(cleared.length).toBeGreaterThan(0);
    expect(cleared.every((i) => (i.scaledTokens ?? 0) < 100)).toBe(true);
    expect(pruning.excluded.find((e) => e.label === 'Pruned tool outputs')!.count).toBe(cleared.length);
    const compacted = await reportOfRecording(loadRecording('compaction-tail'));
    expect(compacted.timeline!.some((p) => p.events.includes('compaction'))).toBe(true);
    expect(compacted.excluded.find((e) => e.label === 'History before the latest compaction')!.count).toBeGreaterThan(
      0,
    );
  });

  it('attributes shell commands by the workspace files they name, and flags only unchanged re-reads', async () => {
    const r = await reportOfRecording(loadRecording('shell-reread'));
    const label = (start: string) => items(r).find((i) => i.label.startsWith(start))!;
    expect(label('Shell: cat meta/cluster.json').source).toBe('cluster_alert_metadata');
    expect(label('Shell: grep -c "ERROR" evidence/app.log').source).toBe('evidence');
    // A command that names no path belongs to its working folder: inside the workspace, Issue/source files (contract §3).
    expect(label('Shell: ls').source).toBe('issue_source_files');
    const hot = items(r).filter((i) => i.label === 'Read evidence: pd-hot-regions.txt');
    expect(hot.map((i) => i.duplicate?.ordinal)).toEqual([1, 2]);
    // The notes were edited between the two reads: two different contents, no duplicate.
    const notes = items(r).filter((i) => i.label === 'Read file: notes/findings.md');
    expect(notes).toHaveLength(2);
    expect(notes.every((i) => i.duplicate === undefined)).toBe(true);
    expect(r.duplicates).toMatchObject({ files: 1, extraReads: 1 });
  });

  it('never books growth nothing explains to the runtime: it stays unexplained, the runtime what the first call measured', async () => {
    const recording = loadRecording('fresh');
    // Every prompt from the fourth call on is 3,000 tokens bigger, and the rows say nothing changed.
    const grown = structuredClone(recording);
    const replies = grown.export.messages.filter((m) => m.info.role === 'assistant');
    for (const reply of replies.slice(3)) {
      for (const part of reply.parts) if (part.type === 'step-finish') (part.tokens as { input: number }).input += 3000;
      (reply.info.tokens as { input: number }).input += 3000;
    }
    grown.acp.usageUpdates.at(-1)!.used += 3000;
    const before = await reportOfRecording(recording);
    const r = await reportOfRecording(grown);
    // (Two fixtures, two temporary folders: the instruction and catalog texts, which name the folder, differ by a few tokens.)
    expect(Math.abs(r.calibration!.runtimeOverhead! - before.calibration!.runtimeOverhead!)).toBeLessThan(20);
    expect(r.calibration!.runtime!.changes.map((c) => c.reason)).toEqual(['first call']);
    // The call's new items keep their estimates (the growth is implausible for them), so the
    // unexplained figure is the 3,000 give or take their estimate's error.
    expect(Math.abs(r.remainder!.find((row) => row.kind === 'unexplained')!.tokens - 3000)).toBeLessThan(50);
    expect(r.timeline![3]!.events).toContain('unexplained');
    r.sources.forEach((source, k) =>
      expect(Math.abs(source.scaledTokens! - before.sources[k]!.scaledTokens!)).toBeLessThan(50),
    );
    expect(total(r)).toBe(r.actual!.contextUsed);
  });

  it('measures the runtime again where the rows show it changed, and says why', async () => {
    const recording = loadRecording('shell-reread');
    // The user turned tools on for the last turn (as OpenCode records `tools` on a user message),
    // and the runtime's prompt grew by their schemas: 3,000 tokens from the call after it.
    const grown = structuredClone(recording);
    const messages = grown.export.messages;
    const user = messages.find((m) => m.info.role === 'user')!;
    (user.info as Record<string, unknown>).tools = { 'mcp-grafana_*': true };
    const r0 = await reportOfRecording(recording);
    const r = await reportOfRecording(grown);
    // One user message: its tools apply from the first call on — the runtime is measured there, with them.
    expect(r.calibration!.runtime!.changes.map((c) => c.reason)).toEqual(['first call']);
    expect(Math.abs(r.calibration!.runtimeOverhead! - r0.calibration!.runtimeOverhead!)).toBeLessThan(20);
    // A second user message asking for other tools: measured again at its first call.
    const second = structuredClone(grown);
    const later = second.export.messages.filter((m) => m.info.role === 'assistant').slice(2);
    const parent = structuredClone(user);
    parent.info.id = `${later[0]!.info.id.slice(0, -1)}0`;
    (parent.info as Record<string, unknown>).tools = { 'mcp-grafana_*': true, 'mcp-tikv_*': true };
    for (const reply of later) {
      (reply.info as Record<string, unknown>).parentID = parent.info.id;
      for (const part of reply.parts) if (part.type === 'step-finish') (part.tokens as { input: number }).input += 3000;
      (reply.info.tokens as { input: number }).input += 3000;
    }
    second.acp.usageUpdates.at(-1)!.used += 3000;
    second.export.messages.splice(second.export.messages.indexOf(later[0]!), 0, { ...parent, parts: [] });
    const r2 = await reportOfRecording(second);
    const changes = r2.calibration!.runtime!.changes;
    expect(changes.map((c) => c.reason)).toEqual(['first call', 'other tools or system prompt asked for']);
    expect(Math.abs(changes[1]!.delta - 3000)).toBeLessThan(100);
    expect(r2.notes.some((n) => n.includes('other tools or system prompt asked for'))).toBe(true);
    expect(r2.remainder!.find((row) => row.kind === 'unexplained')).toBeUndefined();
    expect(total(r2)).toBe(r2.actual!.contextUsed);
  });

  it('holds a re-measure at an agent switch to the definitions recorded for that agent, the rest unexplained', async () => {
    const recording = loadRecording('shell-reread');
    // From the third reply on, the plan agent, whose recorded definitions lack the bash tool.
    const switched = structuredClone(recording);
    const replies = switched.export.messages.filter((m) => m.info.role === 'assistant');
    for (const reply of replies.slice(2)) Object.assign(reply.info, { agent: 'plan', mode: 'plan' });
    const build = switched.runtime![0]!;
    const plan = structuredClone(build);
    Object.assign(plan, { key: 'plan scripted/scripted', definitions: { ...plan.definitions, agent: 'plan' } });
    const tools = (plan.definitions as { tools: { id: string }[] }).tools;
    (plan.definitions as { tools: { id: string }[] }).tools = tools.filter((t) => t.id !== 'bash');
    switched.runtime!.push(plan);
    const r = await reportOfRecording(switched);
    const [first, change] = r.calibration!.runtime!.changes;
    expect(change).toMatchObject({ reason: 'another agent', bound: { basis: 'recorded definitions', unexplained: 0 } });
    // The same counts: the prompt leaves the runtime it left before, within ±25 % of plan's definitions.
    expect(Math.abs(change!.delta)).toBeLessThan(50);
    expect(change!.bound!.expected).toBeLessThan(first!.delta);
    // The plan agent's prompt 3,000 tokens larger than its definitions allow: they do not agree.
    const grown = structuredClone(switched);
    for (const reply of grown.export.messages.filter((m) => m.info.role === 'assistant').slice(2)) {
      for (const part of reply.parts) if (part.type === 'step-finish') (part.tokens as { input: number }).input += 3000;
      (reply.info.tokens as { input: number }).input += 3000;
    }
    grown.acp.usageUpdates.at(-1)!.used += 3000;
    const g = await reportOfRecording(grown);
    const bounded = g.calibration!.runtime!.changes[1]!;
    expect(bounded.bound).toMatchObject({ basis: 'recorded definitions', expected: change!.bound!.expected });
    expect(bounded.bound!.measured).toBeGreaterThan(bounded.bound!.high);
    // The runtime is what plan's definitions make it; the 3,000 and more are unexplained, with the reason.
    expect(g.calibration!.runtimeOverhead).toBe(bounded.bound!.expected);
    const unexplained = g.remainder!.find((row) => row.kind === 'unexplained')!;
    expect(unexplained.tokens).toBe(bounded.bound!.unexplained);
    expect(unexplained.tokens).toBeGreaterThan(3000);
    expect(unexplained.reason).toContain(`At call ${bounded.call} (another agent)`);
    expect(unexplained.reason).toContain('recorded definitions');
    expect(total(g)).toBe(g.actual!.contextUsed);
  });

  it('shares a total newer than every persisted call among what was added since', async () => {
    const recording = loadRecording('fresh');
    // The last call was made (its ACP total recorded) but its message never stored.
    const cut = structuredClone(recording);
    const last = cut.export.messages.findLastIndex((m) => m.info.role === 'assistant');
    cut.export.messages.splice(last, 1);
    const r = await reportOfRecording(cut);
    const after = r.remainder!.find((row) => row.kind === 'after_last_call')!;
    const calls = stepPrompts(recording);
    expect(after.tokens).toBe(calls.at(-1)! - calls.at(-2)!);
    expect(after.reason).toMatch(/newer than every model call/);
    expect(r.remainder!.find((row) => row.kind === 'unexplained')).toBeUndefined();
    expect(r.pending!.items.reduce((n, i) => n + (i.scaledTokens ?? 0), 0)).toBe(after.tokens);
    expect(total(r)).toBe(r.actual!.contextUsed);
    // A total a little larger than that content explains: the rest is unexplained, in words.
    const r2 = await reportOfRecording(recording, (f) =>
      addUsage(f, recording.acp.usageUpdates.at(-1)!.used + 5000, { session: recording.sessionId }),
    );
    expect(r2.calibration).toMatchObject({ reference: { matchesUsage: false } });
    // Two numbers for now (issue 37 point 6): the report says which it shows and which the timeline's last call is.
    const used = r2.actual!.contextUsed;
    expect(r2.notes).toContain(
      `Two counts of now: the total is the agent's own (its ACP usage_update, ${used.toLocaleString('en-US')} tokens), and no model call's prompt as the provider counted it equals it — the timeline's last call is ${r2.timeline!.at(-1)!.promptTokens.toLocaleString('en-US')} tokens, and the figures describe that call; the difference is shown as unexplained.`,
    );
    const rows = new Map(r2.remainder!.map((row) => [row.kind, row.tokens]));
    expect((rows.get('after_last_call') ?? 0) + (rows.get('unexplained') ?? 0)).toBe(5000);
    expect(rows.get('unexplained')).toBeGreaterThan(4000);
    expect(total(r2)).toBe(r2.actual!.contextUsed);
  });

  it('falls back to scaling, and says why, when the rows contradict the total', async () => {
    const recording = loadRecording('fresh');
    const r = await reportOfRecording(recording, (f) => {
      // The only usage row: older than every call, and no call's prompt.
      f.raw.exec('DELETE FROM interaction_token_usage');
      addUsage(f, 99_999, { session: recording.sessionId, at: 1 });
    });
    expect(r.calibration).toMatchObject({ mode: 'scaled', scaledBecause: 'contradicting' });
    expect(r.notes.some((n) => n.includes('contradict'))).toBe(true);
    expect(r.remainder ?? []).toEqual([]);
    expect(r.sources.reduce((n, s) => n + (s.scaledTokens ?? 0), 0)).toBe(99_999);
  });

  it('skips a usage row of 0 (a cancelled or failed last call) for the previous total', async () => {
    const recording = loadRecording('faults');
    const r = await reportOfRecording(recording, (f) => addUsage(f, 0, { session: recording.sessionId }));
    expect(r.actual!.contextUsed).toBe(recording.acp.usageUpdates.at(-1)!.used);
    expect(r.warnings.some((w) => w.includes('context_used 0'))).toBe(true);
  });

  it('reads the cache share under both conventions: input without or with the cached tokens', async () => {
    const recording = loadRecording('fresh');
    const r = await reportOfRecording(recording);
    const last = r.providerTokens!;
    expect(last.convention).toBe('input-excludes-cache');
    expect(last.promptTokens).toBe(last.input! + last.cacheRead! + last.cacheWrite!);
    expect(last.cacheReadSharePercent).toBeCloseTo((last.cacheRead! / last.promptTokens!) * 100, 1);
    // The same call as a provider that counts cached tokens inside input, with total = input + output.
    const including = structuredClone(recording);
    const reply = including.export.messages.at(-1)!;
    const t = reply.info.tokens as {
      total: number;
      input: number;
      output: number;
      reasoning: number;
      cache: { read: number };
    };
    t.input += t.cache.read;
    t.total = t.input + t.output + t.reasoning;
    const r2 = await reportOfRecording(including);
    expect(r2.providerTokens).toMatchObject({ convention: 'input-includes-cache', promptTokens: t.input });
    expect(r2.providerTokens!.cacheReadSharePercent).toBeCloseTo((t.cache.read / t.input) * 100, 1);
    // Read the old way (cache over input + cache), the share would be about half of that.
    expect(r2.providerTokens!.cacheReadSharePercent).toBeGreaterThan(
      (t.cache.read / (t.input + t.cache.read)) * 100 + 20,
    );
  });

  it('explains a total that is the prompt of a compaction call', async () => {
    const recording = structuredClone(loadRecording('compaction-tail'));
    const summary = recording.export.messages.findIndex((m) => m.info.role === 'assistant' && m.info.summary === true);
    recording.export.messages = recording.export.messages.slice(0, summary + 1);
    const prompt = recording.requests.find((q) => q.kind === 'summary')!.usage.prompt_tokens;
    recording.acp.usageUpdates = [{ ...recording.acp.usageUpdates[0]!, used: prompt }];
    const r = await reportOfRecording(recording);
    expect(r.calibration).toMatchObject({ totalIsCompaction: true });
    expect(r.notes.some((n) => n.includes('compaction call'))).toBe(true);
    expect(r.pending!.items.map((i) => i.label)).toEqual(
      expect.arrayContaining(['Compaction request', 'Compaction summary']),
    );
    expect(total(r)).toBe(r.actual!.contextUsed);
  });

  it('falls back to scaling in proportion when there are no per-call counts, and says so', async () => {
    const recording = structuredClone(loadRecording('fresh'));
    for (const message of recording.export.messages) {
      message.parts = message.parts.filter((p) => p.type !== 'step-finish');
      delete message.info.tokens;
    }
    const r = await reportOfRecording(recording);
    expect(r.calibration!.mode).toBe('scaled');
    expect(r.estimate.method).toMatch(/scaled in proportion/);
    expect(r.notes.some((n) => n.startsWith('Scaled:'))).toBe(true);
    expect(r.sources.every((s) => s.itemCount === 0 || s.basis === 'scaled')).toBe(true);
    expect(total(r)).toBe(r.actual!.contextUsed);
  });
});
