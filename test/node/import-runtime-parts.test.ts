/**
 * OpenCode's own prompt in parts on imports (issue 38, point 5): a session imported from
 * elsewhere recorded no definitions where it ran, so its runtime item is split by those the
 * pinned OpenCode's own server listed for the call's agent and model (catalog/opencode-tools.json,
 * npm run opencode-tools), "as measured with OpenCode 1.18.33", the version the session ran said;
 * where they cannot be measured (an agent or model the pinned OpenCode was not asked for), one
 * block with the reason. The parts share the measured item and the rest keeps its label.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installedOpencode, OPENCODE_VERSION } from '../../src/node/agent/opencode/install';
import { run } from '../../src/node/cli/main';
import pinned from '../../src/node/core/catalog/opencode-tools.json' with { type: 'json' };
import { pinnedDefinitions } from '../../src/node/core/opencode/pinned-definitions';
import { RUNTIME_REF } from '../../src/node/core/build-report';
import { FRAMING_LABEL } from '../../src/node/core/runtime-parts';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { captureIo } from '../support/cli';

const PUBLIC = join(import.meta.dirname, '..', 'fixtures', 'public');
const EXPORTS = readdirSync(PUBLIC).filter((f) => f.endsWith('.json') && f !== 'sources.json');

async function fromExport(file: string, args: string[] = ['--json', '--items', 'all']) {
  const io = captureIo(PUBLIC);
  const code = await run(['debug', 'context', '--export', join(PUBLIC, file), ...args], io);
  expect(code).toBe(0);
  return io.stdout();
}

const runtimeItem = (report: ContextReport) =>
  report.sources.flatMap((s) => s.items).find((i) => i.sourceRef === RUNTIME_REF);

describe('the pinned OpenCode’s definitions', () => {
  it('are the pinned version’s, asked of its own binary', () => {
    expect(pinned.opencode).toBe(OPENCODE_VERSION);
    const bin = installedOpencode();
    // The binary is installed by the live-agent tests; where it is, it is the one they came from.
    if (bin) expect(createHash('sha256').update(readFileSync(bin)).digest('hex')).toBe(pinned.binarySha256);
  });

  it('give each built-in agent its own tools for the model: its rules remove some, the model chooses edit or apply_patch', () => {
    const tools = (agent: string, model: string) => {
      const found = pinnedDefinitions(agent, model);
      if ('reason' in found) throw new Error(found.reason);
      return found.definitions.tools.map((t) => t.id);
    };
    expect(tools('build', 'anthropic/claude-haiku-4-5')).toEqual(expect.arrayContaining(['edit', 'write', 'bash']));
    expect(tools('build', 'anthropic/claude-haiku-4-5')).not.toContain('apply_patch');
    expect(tools('build', 'openai/gpt-5.3-codex')).toContain('apply_patch');
    expect(tools('build', 'openai/gpt-5.3-codex')).not.toContain('edit');
    expect(tools('explore', 'anthropic/claude-haiku-4-5')).not.toContain('edit');
    expect(tools('explore', 'anthropic/claude-haiku-4-5')).toContain('grep');
  });

  it('say in words why an agent or a model they do not know stays one block', () => {
    expect(pinnedDefinitions('reviewer', 'anthropic/claude-haiku-4-5')).toEqual({
      reason: expect.stringMatching(/agent “reviewer” is not one of OpenCode 1\.18\.33's built-in agents/) as string,
    });
    expect(pinnedDefinitions('build', 'my-lab/private-model-7')).toEqual({
      reason: expect.stringMatching(/my-lab\/private-model-7 is not among them/) as string,
    });
  });
});

describe('an imported session’s runtime item', () => {
  it.each(EXPORTS)('%s: in parts as measured with the pinned OpenCode, or one block with the reason', async (file) => {
    const report = contextReportSchema.parse(JSON.parse(await fromExport(file)));
    const item = runtimeItem(report);
    const split = report.calibration?.runtime?.parts;
    // Nothing measured the runtime item (no call counted a prompt): nothing to split.
    if (!item || !split) return;
    const exported = JSON.parse(readFileSync(join(PUBLIC, file), 'utf8')) as { info: { version?: string } };
    if (!split.recorded) {
      expect(split.reason).toMatch(/OpenCode 1\.18\.33/);
      expect(item.parts).toBeUndefined();
      return;
    }
    expect(split.measuredWith).toEqual({ runtime: 'OpenCode', version: OPENCODE_VERSION });
    expect(report.origin?.version).toBe(exported.info.version ?? null);
    expect(split.recordedAt).toBeUndefined();
    expect(split.notes?.[0]).toContain(`as measured with OpenCode ${OPENCODE_VERSION}`);
    const parts = item.parts!;
    // The parts share the measured item exactly; what the definitions do not explain keeps its label.
    expect(parts.reduce((n, p) => n + p.tokens, 0)).toBe(split.measuredTokens);
    const measured = parts.filter((p) => p.kind !== 'framing');
    expect(measured.length).toBeGreaterThan(3);
    for (const part of parts.filter((p) => p.kind === 'framing')) expect(part.label).toBe(FRAMING_LABEL);
    // Every tool part is one the pinned OpenCode sends that agent.
    const found = pinnedDefinitions(split.agent ?? null, split.model ?? null);
    if ('reason' in found) throw new Error(found.reason);
    const sent = found.definitions.tools.map((t) => `Tool: ${t.id}`);
    for (const part of parts.filter((p) => p.kind === 'tool')) expect(sent).toContain(part.label);
  });

  it('is split on most kept exports (the check above is not vacuous)', async () => {
    let split = 0;
    for (const file of EXPORTS) {
      const report = contextReportSchema.parse(JSON.parse(await fromExport(file)));
      if (runtimeItem(report)?.parts) split++;
    }
    expect(split).toBeGreaterThanOrEqual(Math.ceil(EXPORTS.length / 2));
  });

  it('names the measuring version and the version the session ran in the CLI table', async () => {
    const table = await fromExport('claude-haiku-4-5_sandbox-agent-native.converted.json', []);
    expect(table).toContain(
      '(as measured with OpenCode 1.18.33 for its “build” agent to anthropic/claude-haiku-4-5; the session ran 1.1.49)',
    );
    expect(table).toMatch(/Tool: bash/);
  });
});
