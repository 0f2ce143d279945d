/**
 * The malformed-data corpus: odd database rows and odd workspace files. Every case yields a
 * report (exit 0) with a specific warning — or a clear one-line error where no report is
 * possible — never a crash or a stack trace, and never a write.
 */
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { contextReportSchema, messagesResponseSchema, usageSchema, workspaceSchema } from '../../src/shared/wire';
import { captureIo } from '../support/cli';
import {
  addMessages,
  addUsage,
  createFixture,
  databaseDigest,
  readTool,
  SESSION,
  text,
  TOKEN,
  tool,
  treeDigest,
  WS,
  type Fixture,
} from '../support/fixtures';

const FILES = {
  'AGENTS.md': '# Rules\n',
  '.opencode/skills/alpha/SKILL.md': '---\nname: alpha\ndescription: Alpha\n---\nbody\n',
  'evidence/a.log': 'line\n',
};

type Case = [name: string, setup: (fx: Fixture) => void, warning: RegExp | null];

const insertRaw = (
  fx: Fixture,
  info: unknown,
  parts: unknown,
  id = `msg_raw_${Math.random().toString(36).slice(2, 10)}`,
) =>
  fx.raw
    .prepare(
      'INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES (?, ?, ?, 1, 1, ?, ?)',
    )
    .run(id, WS, SESSION, info, parts);
const assistant = (fx: Fixture, parts: unknown[]) =>
  addMessages(fx, [{ role: 'assistant', parts: parts as Record<string, unknown>[] }]);

/** JSON text of an object nested `levels` deep (JSON.stringify cannot write it). */
const deep = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

const CASES: Case[] = [
  // --- database rows ---
  ['parts that are not JSON', (fx) => insertRaw(fx, '{"role":"user"}', '[{"type":"text",'), /parts is not valid JSON/],
  [
    'parts that are an object',
    (fx) => insertRaw(fx, '{"role":"user"}', '{"type":"text","text":"x"}'),
    /parts is not a JSON array/,
  ],
  ['parts that are a number', (fx) => insertRaw(fx, '{"role":"user"}', 42), /parts is not a JSON array/],
  [
    'parts that are a REAL in an untyped table',
    (fx) => insertRaw(fx, '{"role":"user"}', 4.5),
    /parts is not a JSON array/,
  ],
  [
    'parts stored as a BLOB',
    (fx) => insertRaw(fx, '{"role":"user"}', Buffer.from(JSON.stringify([text('from a blob')]))),
    /parts is stored as a BLOB/,
  ],
  [
    'parts with invalid UTF-8',
    (fx) => insertRaw(fx, '{"role":"user"}', Buffer.from([0x5b, 0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d, 0x5d])),
    /parts is stored as a BLOB/,
  ],
  ['info that is not JSON', (fx) => insertRaw(fx, 'role=user', JSON.stringify([text('x')])), /info is not valid JSON/],
  ['info that is an array', (fx) => insertRaw(fx, '[1,2]', JSON.stringify([text('x')])), /info is not a JSON object/],
  [
    'a null part',
    (fx) => insertRaw(fx, '{"role":"assistant"}', JSON.stringify([null, text('ok')])),
    /part is not a JSON object/,
  ],
  [
    'a string part',
    (fx) => insertRaw(fx, '{"role":"assistant"}', JSON.stringify(['just a string'])),
    /part is not a JSON object/,
  ],
  ['an unknown part type', (fx) => assistant(fx, [{ type: 'hologram', text: 'x' }]), /unknown part type "hologram"/],
  ['a part without a type', (fx) => assistant(fx, [{ text: 'no type' }]), /unknown part type null/],
  [
    'a number where text belongs',
    (fx) => assistant(fx, [{ type: 'text', text: 12345 }]),
    /a number where text belongs/,
  ],
  ['null text', (fx) => assistant(fx, [{ type: 'text', text: null }]), /null where text belongs/],
  [
    'reasoning that is an object',
    (fx) => assistant(fx, [{ type: 'reasoning', text: { a: 1 } }]),
    /reasoning part has a object/,
  ],
  ['a tool with a null state', (fx) => assistant(fx, [{ type: 'tool', tool: 'bash', state: null }]), /no state object/],
  [
    'a tool whose input is a string',
    (fx) => assistant(fx, [{ type: 'tool', tool: 'bash', state: { status: 'completed', input: 'ls', output: 'x' } }]),
    /input is a string, not an object/,
  ],
  [
    'a tool whose output is a number',
    (fx) => assistant(fx, [{ type: 'tool', tool: 'bash', state: { status: 'completed', input: {}, output: 7 } }]),
    /output is a number, not text/,
  ],
  [
    'a tool with an unknown status',
    (fx) => assistant(fx, [{ type: 'tool', tool: 'bash', state: { status: 'paused', input: {} } }]),
    /unknown status "paused"/,
  ],
  ['an unknown tool type', (fx) => assistant(fx, [tool('teleport', { where: 'mars' }, 'ok')]), null],
  [
    'an invalid source tag',
    (fx) => assistant(fx, [tool('bash', { command: 'x' }, 'y', { metadata: { investibook: { source: 42 } } })]),
    /source tag 42 is not a source id/,
  ],
  [
    'a workspace-context section with an unknown source',
    (fx) =>
      addMessages(fx, [
        {
          role: 'user',
          parts: [
            text('<workspace-context>\n<section source="weather" label="Sky">sunny</section>\n</workspace-context>', {
              synthetic: true,
            }),
          ],
        },
      ]),
    /unknown source "weather"/,
  ],
  [
    'an attached read with broken JSON',
    (fx) =>
      addMessages(fx, [
        {
          role: 'user',
          parts: [text('Called the Read tool with the following input: {"filePath": ', { synthetic: true })],
        },
      ]),
    /invalid JSON input/,
  ],
  [
    'a giant tool output (2 MB)',
    (fx) => assistant(fx, [readTool(fx.root, 'evidence/a.log', 'x '.repeat(1_000_000))]),
    /estimated from samples/,
  ],
  [
    'emoji and CJK text',
    (fx) => addMessages(fx, [{ role: 'user', parts: [text('🔥 热点 region 🚒 客户报告 👩‍💻')] }]),
    null,
  ],
  [
    'a text time_updated',
    (fx) =>
      fx.raw
        .prepare(
          "INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES ('msg_text_time', ?, ?, 1, 'later', '{\"role\":\"user\"}', '[]')",
        )
        .run(WS, SESSION),
    null,
  ],
  [
    'info nested 5,000 levels deep',
    (fx) => insertRaw(fx, deep(5000), JSON.stringify([text('x')])),
    /info nests deeper than 100 levels; read as empty/,
  ],
  [
    'a part nested 5,000 levels deep',
    (fx) =>
      insertRaw(
        fx,
        '{"role":"user"}',
        `[${'{"type":"text","text":"x","metadata":'.repeat(5000)}{}${'}'.repeat(5000)}]`,
      ),
    /parts\/0: nests deeper than 100 levels; skipped/,
  ],
  [
    'a tool input nested 5,000 levels deep',
    (fx) =>
      insertRaw(
        fx,
        '{"role":"assistant","time":{"created":1}}',
        `[{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{"command":"ls","extra":${deep(5000)}},"output":"ok","title":"bash","metadata":{},"time":{"start":1,"end":2}}}]`,
      ),
    /parts\/0: nests deeper than 100 levels; skipped/,
  ],
  [
    'a text time_created',
    (fx) =>
      fx.raw
        .prepare(
          "INSERT INTO messages_v2 (id, workspace_id, session_id, time_created, time_updated, info, parts) VALUES ('msg_text_created', ?, ?, 'yesterday', 5, '{\"role\":\"user\"}', '[]')",
        )
        .run(WS, SESSION),
    null,
  ],
  [
    'a text created_at on an ACP row of another session',
    (fx) =>
      fx.raw
        .prepare(
          "INSERT INTO interaction_token_usage (workspace_id, session_id, source, context_used, context_size, created_at) VALUES (?, 'ses_text_time', 'acp', 10, 100, 'zzz-not-a-date')",
        )
        .run(WS),
    null,
  ],
  [
    'a text created_at on the newest ACP row',
    (fx) => {
      addUsage(fx, 100);
      fx.raw
        .prepare(
          "INSERT INTO interaction_token_usage (workspace_id, session_id, source, context_used, context_size, created_at) VALUES (?, ?, 'acp', 10, 100, 'zzz-not-a-date')",
        )
        .run(WS, SESSION);
    },
    null,
  ],
  ['context_size 0', (fx) => addUsage(fx, 5000, { size: 0 }), /context_size 0 is not a window size/],
  [
    'a negative context_used',
    (fx) => {
      addUsage(fx, 100);
      addUsage(fx, -1);
    },
    /context_used -1 is not a usable count/,
  ],
  ['an absurd context_used', (fx) => addUsage(fx, 9_000_000_000_000), /exceeds context_size/],
  [
    'a null context_used on the newest ACP row',
    (fx) => {
      addUsage(fx, 100);
      addUsage(fx, null);
    },
    /context_used null is not a usable count/,
  ],
  // --- workspace files ---
  [
    'a binary AGENTS.md',
    (fx) => writeFileSync(join(fx.root, 'AGENTS.md'), Buffer.from([0, 1, 2, 3, 255])),
    /AGENTS\.md: is a binary file/,
  ],
  [
    'an AGENTS.md with invalid UTF-8',
    (fx) => writeFileSync(join(fx.root, 'AGENTS.md'), Buffer.from([0x41, 0xc3, 0x28, 0x42])),
    /not valid UTF-8/,
  ],
  [
    'an AGENTS.md over the size cap',
    (fx) => writeFileSync(join(fx.root, 'AGENTS.md'), 'a'.repeat(1024 * 1024 + 10)),
    /only the first 1048576 were read/,
  ],
  [
    'an AGENTS.md that is a FIFO',
    (fx) => {
      rmSync(join(fx.root, 'AGENTS.md'));
      execFileSync('mkfifo', [join(fx.root, 'AGENTS.md')]);
    },
    /AGENTS\.md: is not a regular file/,
  ],
  [
    'an AGENTS.md that is a folder',
    (fx) => {
      rmSync(join(fx.root, 'AGENTS.md'));
      mkdirSync(join(fx.root, 'AGENTS.md'));
    },
    /AGENTS\.md: is not a regular file/,
  ],
  [
    'a symlink loop',
    (fx) => {
      rmSync(join(fx.root, 'AGENTS.md'));
      symlinkSync('AGENTS.md', join(fx.root, 'AGENTS.md'));
    },
    /AGENTS\.md: is a symlink loop/,
  ],
  [
    'a symlink out of the root',
    (fx) => {
      rmSync(join(fx.root, 'AGENTS.md'));
      symlinkSync('/etc/hostname', join(fx.root, 'AGENTS.md'));
    },
    /AGENTS\.md: is a symlink that leaves the workspace/,
  ],
  [
    'a skill folder linked out of the root',
    (fx) => {
      mkdirSync(join(fx.dir, 'outside'));
      writeFileSync(join(fx.dir, 'outside/SKILL.md'), '---\nname: evil\n---\n');
      symlinkSync(join(fx.dir, 'outside'), join(fx.root, '.opencode/skills/evil'));
    },
    /evil\/SKILL\.md: is a symlink that leaves the workspace/,
  ],
  [
    'a skill without SKILL.md',
    (fx) => mkdirSync(join(fx.root, '.opencode/skills/empty')),
    /empty: no SKILL\.md; not an enabled skill/,
  ],
  [
    'a SKILL.md without a name',
    (fx) => writeFileSync(join(fx.root, '.opencode/skills/alpha/SKILL.md'), 'no frontmatter at all'),
    /frontmatter has no name/,
  ],
  [
    'opencode.json that is not JSON',
    (fx) => writeFileSync(join(fx.root, 'opencode.json'), '{ instructions: [ }'),
    /opencode\.json: not valid JSON/,
  ],
  [
    'instructions that are not an array',
    (fx) => writeFileSync(join(fx.root, 'opencode.json'), '{"instructions":"AGENTS.md"}'),
    /"instructions" is not an array/,
  ],
  [
    'an instructions entry outside the root',
    (fx) => writeFileSync(join(fx.root, 'opencode.json'), '{"instructions":["../../etc/passwd"]}'),
    /is outside the workspace; not read/,
  ],
  [
    'an absolute instructions path outside the root',
    (fx) => writeFileSync(join(fx.root, 'opencode.json'), '{"instructions":["/etc/hostname"]}'),
    /"\/etc\/hostname" is outside the workspace; not read/,
  ],
  [
    'a home instructions path',
    (fx) => writeFileSync(join(fx.root, 'opencode.json'), '{"instructions":["~/rules.md"]}'),
    /"~\/rules\.md" is outside the workspace; not read/,
  ],
  [
    'a missing instructions file',
    (fx) => writeFileSync(join(fx.root, 'opencode.json'), '{"instructions":["docs/none.md"]}'),
    /docs\/none\.md: listed in instructions but not found/,
  ],
  [
    'a candidate skill cache with a symlink loop',
    (fx) => {
      mkdirSync(join(fx.root, '.opencode/.all-skills/x'), { recursive: true });
      writeFileSync(join(fx.root, '.opencode/.all-skills/x/SKILL.md'), 'x');
      symlinkSync('..', join(fx.root, '.opencode/.all-skills/x/loop'));
    },
    null,
  ],
  [
    'a root that is a file',
    (fx) => fx.raw.prepare('UPDATE workspaces SET root_path = ? WHERE id = ?').run('ws/AGENTS.md', WS),
    /workspace root is not a folder/,
  ],
  [
    'a missing root',
    (fx) => fx.raw.prepare('UPDATE workspaces SET root_path = ? WHERE id = ?').run('gone', WS),
    /workspace folder not found/,
  ],
];

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture(FILES);
  addMessages(fx, [{ role: 'user', parts: [text('baseline question')] }]);
});
afterEach(() => {
  try {
    chmodSync(fx.root, 0o755);
  } catch {
    // the root may not exist in this case
  }
  return fx.cleanup();
});

describe('malformed data corpus', () => {
  it('has at least 30 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CASES)('%s: a report, the right warning, nothing written', async (_name, setup, warning) => {
    setup(fx);
    const before = { db: await databaseDigest(fx.dbPath), tree: treeDigest(fx.dir) };
    for (const estimator of ['bpe', 'chars4']) {
      const io = captureIo(fx.dir);
      const code = await run(['debug', 'context', WS, '--db', fx.dbPath, '--json', '--estimator', estimator], io);
      expect(io.stderr()).toBe('');
      expect(code).toBe(0);
      const report = contextReportSchema.parse(JSON.parse(io.stdout()));
      // Sampling is what the BPE estimator does with giant text; every other warning is the same for both.
      if (warning && (estimator === 'bpe' || !/samples/.test(warning.source)))
        expect(report.warnings.join('\n')).toMatch(warning);
      expect(JSON.stringify(report)).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/); // no stack traces
    }
    // Every route a browser calls answers with what its schema promises: never a 500.
    const app = await fx.app();
    const get = async (path: string) => {
      const response = await app.request(`/api/workspace/${WS}${path}`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status, path).toBe(200);
      return response.json();
    };
    const workspace = workspaceSchema.parse(await get(''));
    expect(workspace.defaultSessionId).toBe(SESSION);
    const { messages } = messagesResponseSchema.parse(await get('/messages'));
    expect(messages.some((m) => JSON.stringify(m.parts).includes('baseline question'))).toBe(true);
    usageSchema.parse(await get('/usage'));
    contextReportSchema.parse(await get('/debug/context'));
    expect({ db: await databaseDigest(fx.dbPath), tree: treeDigest(fx.dir) }).toEqual(before);
  });

  it('rejects the same message id twice (one id, one message, across sessions)', () => {
    addMessages(fx, [{ role: 'user', parts: [text('a')], id: 'msg_dup' }]);
    expect(() => addMessages(fx, [{ role: 'user', parts: [text('b')], id: 'msg_dup', session: 'ses_other' }])).toThrow(
      /UNIQUE constraint failed/,
    );
  });

  it('gives a clear error, not a report, where none is possible', async () => {
    const io = captureIo(fx.dir);
    writeFileSync(join(fx.dir, 'not-a-db'), 'hello, I am text');
    expect(await run(['debug', 'context', WS, '--db', join(fx.dir, 'not-a-db')], io)).toBe(1);
    expect(io.stderr()).toMatch(/^investibook: .*not-a-db.*\n$/);
  });
});
