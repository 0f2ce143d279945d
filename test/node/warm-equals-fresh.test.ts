/**
 * The memo changes how fast a report comes, never what it says: after any sequence of changes to
 * the core's inputs — the instruction files, file sizes, skills, messages (new, edited), usage —
 * a report made with the memo of every report before equals one made from nothing, field for
 * field, blocks included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReportCache } from '../../src/node/report/report-cache';
import type { ContextReport } from '../../src/shared/wire';
import { part } from '../../src/shared/opencode/build';
import { assistant, CORE_ROOT as root, coreResult, user, type CoreInput } from '../support/core';

const PATHS = ['evidence/a.log', 'evidence/b.log', 'meta/cluster.json', 'docs/rules.md', 'issues/1.md'] as const;

const anyStep = fc.oneof(
  fc.record({
    kind: fc.constant('read' as const),
    path: fc.constantFrom(...PATHS),
    body: fc.string({ maxLength: 400 }),
  }),
  fc.record({
    kind: fc.constant('shell' as const),
    paths: fc.subarray([...PATHS], { minLength: 1, maxLength: 3 }),
    body: fc.string({ maxLength: 400 }),
  }),
  fc.record({ kind: fc.constant('say' as const), body: fc.string({ maxLength: 400 }) }),
);
type Step = typeof anyStep extends fc.Arbitrary<infer T> ? T : never;

const anyChange = fc.oneof(
  fc.record({ kind: fc.constant('instructions' as const), paths: fc.subarray(['AGENTS.md', 'docs/rules.md']) }),
  fc.record({
    kind: fc.constant('size' as const),
    path: fc.constantFrom(...PATHS),
    size: fc.option(fc.nat({ max: 5000 })),
  }),
  fc.record({ kind: fc.constant('skills' as const), names: fc.subarray(['triage', 'slow-query', 'rules']) }),
  fc.record({
    kind: fc.constant('turn' as const),
    question: fc.string({ maxLength: 80 }),
    steps: fc.array(anyStep, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), text: fc.string({ maxLength: 80 }) }),
  fc.record({
    kind: fc.constant('usage' as const),
    delta: fc.integer({ min: -2000, max: 2000 }),
    toLast: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('estimator' as const), bpe: fc.boolean() }),
);
type Change = typeof anyChange extends fc.Arbitrary<infer T> ? T : never;

interface State {
  messages: { id: string; stamp: number; info: unknown; parts: unknown }[];
  instructions: string[];
  sizes: Record<string, number>;
  skills: string[];
  usage: { contextUsed: number; contextSize: number; recordedAt: number } | null;
  prompt: number;
  next: number;
}

function stepPart(step: Step): unknown {
  if (step.kind === 'read')
    return part.tool({ tool: 'read', input: { filePath: `${root}/${step.path}` }, output: step.body });
  if (step.kind === 'shell')
    return part.tool({ tool: 'bash', input: { command: `cat ${step.paths.join(' ')}` }, output: step.body });
  return part.text(step.body);
}

function apply(state: State, change: Change): void {
  switch (change.kind) {
    case 'instructions':
      state.instructions = change.paths;
      return;
    case 'size':
      if (change.size === null) delete state.sizes[change.path];
      else state.sizes[change.path] = change.size;
      return;
    case 'skills':
      state.skills = change.names;
      return;
    case 'turn': {
      const add = (m: { info: unknown; parts: unknown }) =>
        state.messages.push({ id: `msg_${String(state.next++).padStart(6, '0')}`, stamp: 1, ...m });
      add(user([part.text(change.question)]));
      for (const step of change.steps) {
        state.prompt += 400 + JSON.stringify(step).length;
        add(
          assistant([part.stepStart(), stepPart(step) as never, part.stepFinish({ input: state.prompt, output: 40 })]),
        );
      }
      return;
    }
    case 'edit': {
      if (state.messages.length === 0) return;
      const message = state.messages[change.at % state.messages.length]!;
      const parts = message.parts as unknown[];
      message.parts = [...parts, part.text(change.text)];
      message.stamp++;
      return;
    }
    case 'usage':
      state.usage = {
        contextUsed: change.toLast ? state.prompt : Math.max(0, state.prompt + change.delta),
        contextSize: 200_000,
        recordedAt: 0,
      };
      return;
    case 'estimator':
      return;
  }
}

function inputOf(state: State, bpe: boolean): CoreInput {
  return {
    messages: state.messages.map(({ info, parts }) => ({ info, parts })),
    ids: (i) => state.messages[i]!.id,
    stamps: (i) => String(state.messages[i]!.stamp),
    usage: state.usage,
    files: { ...state.sizes },
    ...(bpe
      ? { estimator: { id: 'bpe', key: 'bpe:test', method: 'words', count: (t: string) => t.split(/\s+/).length } }
      : {}),
    workspace: {
      instructions: state.instructions.map((path) => ({ path, text: `rules of ${path}` })),
      skills: state.skills.map((name) => ({
        name,
        description: `about ${name}`,
        path: `.opencode/skills/${name}/SKILL.md`,
      })),
    },
  };
}

describe('warm equals fresh', () => {
  it('after any changes to instructions, file sizes, skills, messages and usage', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyChange, { minLength: 1, maxLength: 12 }), async (changes) => {
        const memo = new ReportCache();
        const state: State = {
          messages: [],
          instructions: ['AGENTS.md'],
          sizes: { 'evidence/a.log': 100, 'meta/cluster.json': 50, evidence: 0 },
          skills: [],
          usage: null,
          prompt: 3000,
          next: 0,
        };
        let bpe = false;
        for (const change of [
          {
            kind: 'turn',
            question: 'why?',
            steps: [{ kind: 'shell', paths: ['evidence/a.log', 'meta/cluster.json'], body: 'x' }],
          } as Change,
          ...changes,
        ]) {
          apply(state, change);
          if (change.kind === 'estimator') bpe = change.bpe;
          const all = { blocks: { start: 0, count: 1000 } };
          const warm = await coreResult({ ...inputOf(state, bpe), memo }, all);
          const fresh = await coreResult(inputOf(state, bpe), all);
          expect(warm.report).toEqual(fresh.report);
          expect(warm.blocks).toEqual(fresh.blocks);
          expect([...warm.texts]).toEqual([...fresh.texts]);
        }
      }),
      { numRuns: 60 },
    );
  });

  /**
   * The source of the item a label names, in the sources or added since the last model call
   * (without an ACP total the total is the last call's prompt: what came after it is listed apart).
   */
  const sourceOf = (report: ContextReport, label: (label: string) => boolean) =>
    report.sources.find((s) => s.items.some((i) => label(i.label)))?.id ??
    report.pending?.items.find((i) => label(i.label))?.source;

  it('files a read under Agent instructions as soon as opencode.json lists the file, memo or not', async () => {
    const memo = new ReportCache();
    const state: State = {
      messages: [],
      instructions: ['AGENTS.md'],
      sizes: { 'docs/rules.md': 10 },
      skills: [],
      usage: null,
      prompt: 3000,
      next: 0,
    };
    apply(state, { kind: 'turn', question: 'q', steps: [{ kind: 'read', path: 'docs/rules.md', body: 'the rules' }] });
    const sourceOfRead = async () => {
      const { report } = await coreResult({ ...inputOf(state, false), memo });
      return sourceOf(report, (label) => /^Read .*docs\/rules\.md/.test(label));
    };
    // A workspace file outside the folder table is Issue/source files by path (contract §2) until the config lists it.
    expect(await sourceOfRead()).toBe('issue_source_files');
    apply(state, { kind: 'instructions', paths: ['AGENTS.md', 'docs/rules.md'] });
    expect(await sourceOfRead()).toBe('agent_instructions');
  });

  it('moves a shell command to the larger file when the sizes change, memo or not', async () => {
    const memo = new ReportCache();
    const state: State = {
      messages: [],
      instructions: [],
      sizes: { 'evidence/a.log': 100, 'meta/cluster.json': 50 },
      skills: [],
      usage: null,
      prompt: 3000,
      next: 0,
    };
    apply(state, {
      kind: 'turn',
      question: 'q',
      steps: [{ kind: 'shell', paths: ['evidence/a.log', 'meta/cluster.json'], body: 'x' }],
    });
    const shellSource = async () => {
      const { report } = await coreResult({ ...inputOf(state, false), memo });
      return sourceOf(report, (label) => label.startsWith('Shell:'));
    };
    expect(await shellSource()).toBe('evidence');
    apply(state, { kind: 'size', path: 'meta/cluster.json', size: 5000 });
    expect(await shellSource()).toBe('cluster_alert_metadata');
  });
});
