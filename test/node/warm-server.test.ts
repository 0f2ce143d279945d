/**
 * A server that has answered /debug before answers like a fresh process: between two requests the
 * workspace's opencode.json lists a new instruction file and two files change size, and the
 * second answer of the running server equals a fresh CLI report of the same state, field for field.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/node/cli/main';
import { start } from '../../src/node/server/start';
import { part } from '../../src/shared/opencode/build';
import { contextReportSchema, type ContextReport } from '../../src/shared/wire';
import { captureIo } from '../support/cli';
import { addMessages, addUsage, createFixture, readTool, tool, TOKEN, WS, type Fixture } from '../support/fixtures';

let fx: Fixture;
let server: Awaited<ReturnType<typeof start>>;

beforeAll(async () => {
  fx = await createFixture({
    'AGENTS.md': 'Be brief.',
    'docs/rules.md': 'Rule 1: read the slow log first.',
    'evidence/slow.log': 'Query_time: 2.1\n',
    'meta/cluster.json': JSON.stringify({ cluster: 'c1', nodes: Array.from({ length: 40 }, (_, i) => `node-${i}`) }),
  });
  addMessages(fx, [
    { role: 'user', parts: [part.text('why is the cluster slow?')] },
    {
      role: 'assistant',
      parts: [
        part.stepStart(),
        readTool(fx.root, 'docs/rules.md', 'Rule 1: read the slow log first.'),
        part.stepFinish({ input: 6_000, output: 30 }),
      ],
    },
    {
      role: 'assistant',
      parts: [
        part.stepStart(),
        tool('bash', { command: 'cat evidence/slow.log meta/cluster.json' }, 'Query_time: 2.1\n{"cluster":"c1"}'),
        part.stepFinish({ input: 6_400, output: 30 }),
        part.stepStart(),
        part.text('The slow log shows a full scan.'),
        part.stepFinish({ input: 6_900, output: 20 }),
      ],
    },
  ]);
  addUsage(fx, 6_900);
  server = await start({ database: fx.dbPath, port: 0, build: false, log: () => {} });
});
afterAll(async () => {
  await server?.close();
  await fx?.cleanup();
});

async function served(): Promise<ContextReport> {
  const response = await fetch(`${new URL(server.url).origin}/api/workspace/${WS}/debug/context?items=all`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  expect(response.status).toBe(200);
  return contextReportSchema.parse(await response.json());
}

async function freshCli(): Promise<ContextReport> {
  const io = captureIo(fx.dir, {});
  const code = await run(['debug', 'context', WS, '--db', fx.dbPath, '--items', 'all', '--json'], io);
  expect(io.stderr()).toBe('');
  expect(code).toBe(0);
  return contextReportSchema.parse(JSON.parse(io.stdout()));
}

const sourceOf = (report: ContextReport, label: RegExp) =>
  report.sources.find((s) => s.items.some((i) => label.test(i.label)))?.id;
const strip = (report: ContextReport) => ({ ...report, generatedAt: '' });

describe('a warm server', () => {
  it('answers a changed opencode.json and changed file sizes like a fresh CLI report', async () => {
    const before = await served();
    expect(await served()).toEqual({ ...before, generatedAt: expect.any(String) as string });
    expect(sourceOf(before, /^Read .*docs\/rules\.md/)).toBe('issue_source_files');
    expect(sourceOf(before, /^Shell: cat/)).toBe('cluster_alert_metadata');

    writeFileSync(join(fx.root, 'opencode.json'), JSON.stringify({ instructions: ['docs/rules.md'] }));
    writeFileSync(join(fx.root, 'evidence/slow.log'), 'Query_time: 2.1\n'.repeat(200));
    writeFileSync(join(fx.root, 'meta/cluster.json'), '{}');

    const after = await served();
    expect(sourceOf(after, /^Read .*docs\/rules\.md/)).toBe('agent_instructions');
    expect(sourceOf(after, /^Shell: cat/)).toBe('evidence');
    expect(strip(after)).toEqual(strip(await freshCli()));
  });
});
