/**
 * The memo key of a report is derived from its input, not from a list of fields: for a
 * generated input, every leaf of it — found by walking the input at run time, so a field added
 * to the input type is covered without editing this test — is changed in turn, and then
 *
 * - the key changes, except for what is applied after the session's report is made (the time,
 *   the items limit, the texts asked for) and the rows' contents, which their messages' stamps
 *   stand for (a row counts only at its message's stamp);
 * - the report made with the memo of the unchanged input's report equals the one made from
 *   nothing, field for field, blocks and texts included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  contextReport,
  sessionKey,
  type ContextInput,
  type ContextServices,
  type SessionInput,
  type StoredRow,
} from '../../src/node/core/context-report';
import { chars4Estimator } from '../../src/node/core/estimate';
import { opencodeRuntime } from '../../src/node/core/opencode';
import type { Estimator } from '../../src/node/core/types';
import { ReportCache } from '../../src/node/report/report-cache';
import { part } from '../../src/shared/opencode/build';
import { assistant, CORE_ROOT as root, user } from '../support/core';

const words: Estimator = { id: 'bpe', key: 'bpe:words', method: 'words', count: (t) => t.split(/\s+/).length };
const services = (memo: ReportCache): ContextServices => ({
  runtime: opencodeRuntime,
  estimator: (id) => (id === 'bpe' ? words : chars4Estimator),
  memo,
});

/** A session's rows from messages in OpenCode's shapes. */
function sessionOf(
  sessionId: string,
  messages: { info: unknown; parts: unknown }[],
  extra: Omit<SessionInput, 'sessionId' | 'messages' | 'rows'>,
): SessionInput {
  const rows = new Map<string, StoredRow>();
  const stamps = messages.map((m, i) => {
    const id = `msg_${sessionId}_${i}`;
    const info = JSON.stringify(m.info);
    const parts = JSON.stringify(m.parts);
    rows.set(id, { id, stamp: `${100 + i}`, size: info.length + parts.length, info, parts });
    return { id, stamp: `${100 + i}` };
  });
  return { sessionId, messages: stamps, rows, ...extra };
}

const anyInput = fc
  .record({
    question: fc.string({ minLength: 1, maxLength: 40 }),
    body: fc.string({ maxLength: 200 }),
    prompt: fc.integer({ min: 2000, max: 5000 }),
    size: fc.integer({ min: 10_000, max: 400_000 }),
    cost: fc.double({ min: 0.001, max: 5, noNaN: true }),
    warning: fc.string({ minLength: 1, maxLength: 30 }),
    fileSize: fc.integer({ min: 1, max: 9000 }),
    definitions: fc.string({ maxLength: 40 }),
    estimator: fc.constantFrom('bpe' as const, 'chars4' as const),
  })
  .map((g): ContextInput => {
    const child = sessionOf(
      'ses_child',
      [
        user([part.text('Subagent task: look')]),
        assistant([part.stepStart(), part.text(g.body), part.stepFinish({ input: g.prompt - 500, output: 9 })], {
          agent: 'general',
        }),
      ],
      {
        usage: null,
        warnings: ['child read'],
        runtimeRecords: [
          { key: 'general:local/scripted', parentSessionId: 'ses_main', recordedAt: 5, definitions: g.definitions },
        ],
        parent: { sessionId: 'ses_main', contextSize: g.size },
      },
    );
    const main = sessionOf(
      'ses_main',
      [
        user([part.text(g.question)]),
        assistant([
          part.stepStart(),
          part.tool({ tool: 'read', input: { filePath: `${root}/evidence/a.log` }, output: g.body }),
          part.tool({
            tool: 'task',
            input: { description: 'Look', prompt: 'look', subagent_type: 'general' },
            output: 'done',
            metadata: { sessionId: 'ses_child' },
          }),
          part.stepFinish({ input: g.prompt, output: 40 }),
        ]),
        user([part.text('and then?')]),
      ],
      {
        usage: {
          contextUsed: g.prompt + 300,
          contextSize: g.size,
          recordedAt: 7,
          cost: { amount: g.cost, currency: 'USD' },
        },
        warnings: [g.warning],
        runtimeRecords: [
          { key: 'build:local/scripted', parentSessionId: null, recordedAt: 4, definitions: g.definitions },
        ],
      },
    );
    return {
      ...main,
      workspaceId: 'ws_key',
      generatedAt: new Date(0).toISOString(),
      estimator: g.estimator,
      workspace: {
        root,
        instructions: [{ path: 'AGENTS.md', text: 'rules' }],
        skills: [{ name: 'triage', description: 'triage things', path: '.opencode/skills/triage/SKILL.md' }],
        excluded: [{ label: 'Skill candidates', bytes: 10, reason: 'not loaded', count: 2 }],
        warnings: ['a folder warning'],
        stamps: [{ path: 'AGENTS.md', size: 5, mtimeMs: 3 }],
        files: { 'evidence/a.log': g.fileSize, 'AGENTS.md': 5 },
        agentConfig: {
          compactionAuto: true,
          compactionReserved: 1000,
          models: { 'local/scripted': { context: g.size } },
        },
      },
      items: 'all',
      texts: { blocks: { start: 0, count: 50 } },
      subagents: new Map([
        ['ses_child', child],
        ['ses_gone', null],
      ]),
    };
  });

type Path = readonly (string | number | { mapKey: string })[];

/** Every leaf of a value (strings, numbers, booleans, null), and every Map key, by its path. */
function leaves(value: unknown, path: Path = []): Path[] {
  if (value instanceof Map)
    return [...value].flatMap(([k, v]) => [[...path, { mapKey: String(k) }], ...leaves(v, [...path, String(k)])]);
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [path];
}

/** A copy of the input (Maps and rows included) with the leaf at `path` changed. */
function mutate(input: ContextInput, path: Path): ContextInput {
  const copy = structuredClone(input);
  let holder: unknown = copy;
  for (const step of path.slice(0, -1)) holder = at(holder, step as string | number);
  const last = path.at(-1)!;
  if (typeof last === 'object') {
    const map = holder as Map<string, unknown>;
    const value = map.get(last.mapKey);
    map.delete(last.mapKey);
    map.set(`${last.mapKey}~`, value);
    return copy;
  }
  const old = at(holder, last);
  const changed =
    typeof old === 'string'
      ? `${old}~`
      : typeof old === 'number'
        ? old + 1
        : typeof old === 'boolean'
          ? !old
          : old === null
            ? 0
            : old;
  set(holder, last, changed);
  // A message's id or stamp is its row's: the row follows (as a changed row in the store would).
  if (path.length >= 3 && path.at(-3) === 'messages' && (last === 'id' || last === 'stamp')) {
    const session = holderOfMessages(copy, path);
    const row = session.rows.get(old as string) ?? [...session.rows.values()].find((r) => r.stamp === old);
    if (row) {
      const rows = session.rows as Map<string, StoredRow>;
      rows.delete(row.id);
      const moved = { ...row, [last]: changed };
      rows.set(moved.id, moved);
    }
  }
  return copy;
}

function holderOfMessages(input: ContextInput, path: Path): SessionInput {
  let holder: unknown = input;
  for (const step of path.slice(0, -3)) holder = at(holder, step as string | number);
  return holder as SessionInput;
}

const at = (holder: unknown, step: string | number): unknown =>
  holder instanceof Map ? holder.get(step) : (holder as Record<string | number, unknown>)[step];
const set = (holder: unknown, step: string | number, value: unknown): void => {
  if (holder instanceof Map) holder.set(step, value);
  else (holder as Record<string | number, unknown>)[step] = value;
};

/** Applied after the session's report is made, or stood for by a stamp: not in the key. */
const outsideKey = (path: Path): boolean =>
  ['generatedAt', 'items', 'texts'].includes(String(path[0])) || path.includes('rows');

const answer = async (input: ContextInput, memo: ReportCache) => {
  try {
    const made = await contextReport(input, services(memo));
    return { report: made.report, blocks: made.blocks, texts: [...made.texts] };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

describe('the memo key', () => {
  it('changes with every leaf of the input, and a warm report equals a fresh one', async () => {
    await fc.assert(
      fc.asyncProperty(anyInput, async (input) => {
        const memo = new ReportCache();
        const base = sessionKey(input, opencodeRuntime);
        const first = await answer(input, memo);
        expect(first).toHaveProperty('report');
        const paths = leaves(input);
        expect(paths.length).toBeGreaterThan(60);
        for (const path of paths) {
          const changed = mutate(input, path);
          const key = sessionKey(changed, opencodeRuntime);
          if (outsideKey(path)) expect(key, JSON.stringify(path)).toBe(base);
          else expect(key, JSON.stringify(path)).not.toBe(base);
          // The rows' contents are stood for by their stamps: a warm report may keep an analysis.
          if (path.includes('rows')) continue;
          expect(await answer(changed, memo), JSON.stringify(path)).toEqual(await answer(changed, new ReportCache()));
        }
      }),
      { numRuns: 4 },
    );
  });

  it("covers the input type's fields: every top-level field of a generated input has leaves", () => {
    const input = fc.sample(anyInput, 1)[0]!;
    const covered = new Set(leaves(input).map((p) => String(p[0])));
    expect([...covered].sort()).toEqual(Object.keys(input).sort());
  });
});
