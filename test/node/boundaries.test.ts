/** The layering is checked by ESLint; these prove the rules bite on the paths that matter. */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function errors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries', () => {
  it.each([
    ['src/chat/x.tsx', "import { openReadOnly } from '../node/storage/store';"],
    ['src/api/x.ts', "import { readFileSync } from 'node:fs';"],
    ['src/commands/x.ts', "import Database from 'better-sqlite3';"],
    ['src/app/x.tsx', "import { generateReport } from '../node/report/service';"],
  ])('%s cannot import Node-only code', async (file, code) => {
    expect((await errors(file, `${code}\nexport {};`)).join()).toMatch(/Node-only/);
  });

  it('src/commands cannot import src/chat', async () => {
    expect(
      (
        await errors('src/commands/x.ts', "import { ChatPanel } from '../chat/chat-panel';\nexport { ChatPanel };")
      ).join(),
    ).toMatch(/never import the chat/);
  });

  it('the wire types depend on zod only', async () => {
    expect(await errors('src/shared/x.ts', "import { z } from 'zod';\nexport const s = z.string();")).toEqual([]);
    expect((await errors('src/shared/x.ts', "import { useState } from 'react';\nexport { useState };")).join()).toMatch(
      /zod only/,
    );
  });

  it.each([
    ["import { readFileSync } from 'node:fs';"],
    ["import Database from 'better-sqlite3';"],
    ["import { openStore } from '../storage/open';"],
    ["import { createApp } from '../server/app';"],
    ["import { notFound } from '../errors';"],
    ["import { Tokenizer } from 'ai-tokenizer';"],
  ])('the report core stays pure: %s', async (code) => {
    expect((await errors('src/node/core/x.ts', `${code}\nexport {};`)).join()).toMatch(/report core is pure/);
  });

  it('the report core may raise its own errors and use the shared tables', async () => {
    const code =
      "import { PageOutOfRange } from './errors';\nimport { SOURCE_IDS } from '../../shared/sources';\nexport { PageOutOfRange, SOURCE_IDS };";
    expect(await errors('src/node/core/x.ts', code)).toEqual([]);
  });

  it.each([
    ["import { parseInfo } from '../../shared/opencode/format';"],
    ["import { messageView } from './opencode/request-view';"],
    ["import { opencodeRuntime } from './opencode';"],
  ])('only the runtime adapter knows OpenCode: %s', async (code) => {
    expect((await errors('src/node/core/x.ts', `${code}\nexport {};`)).join()).toMatch(/runtime adapter/);
  });

  it("another runtime's adapter does not reach into OpenCode's", async () => {
    const code = "import { messageView } from '../opencode/request-view';\nexport { messageView };";
    expect((await errors('src/node/core/claude-code/x.ts', code)).join()).toMatch(/runtime adapter/);
  });

  it('the OpenCode adapter reads its format and stays pure', async () => {
    const code = "import { parseInfo } from '../../../shared/opencode/format';\nexport { parseInfo };";
    expect(await errors('src/node/core/opencode/x.ts', code)).toEqual([]);
    expect(
      (await errors('src/node/core/opencode/x.ts', "import { readFileSync } from 'node:fs';\nexport {};")).join(),
    ).toMatch(/report core is pure/);
  });

  it.each(['src/node/server/x.ts', 'src/node/cli/x.ts', 'src/node/report/x.ts'])(
    '%s reaches the database only through the Store interface',
    async (file) => {
      expect((await errors(file, "import Database from 'better-sqlite3';\nexport { Database };")).join()).toMatch(
        /Store interface/,
      );
      expect((await errors(file, "import pg from 'pg';\nexport { pg };")).join()).toMatch(/Store interface/);
    },
  );

  it.each([
    ['src/node/report/x.ts', "import type { Estimator } from '../core/types';"],
    ['src/node/report/x.ts', "import { contextReport } from '../core/context-report';"],
    ['src/node/report/x.ts', "import { opencodeRuntime } from '../core/opencode';"],
    ['src/node/x.ts', "import { CallUnavailable } from './core/errors';"],
    ['src/node/import/claude-code/x.ts', "import { subagentSessionId } from '../../core/claude-code/entry';"],
    ['src/node/storage/x.ts', "import type { StoredRow } from '../core/session-rows';"],
    ['scripts/x.ts', "import { calibrate } from '../src/node/core/calibrate';"],
  ])('%s reaches the core only through its entry module: %s', async (file, code) => {
    expect((await errors(file, `${code}\nexport {};`)).join()).toMatch(/entry module/);
  });

  it('the core entry module, and packages with a core folder of their own, may be imported', async () => {
    const entry = "import { contextReport, type Estimator } from '../core';\nexport { contextReport, type Estimator };";
    expect(await errors('src/node/report/x.ts', entry)).toEqual([]);
    expect(await errors('src/node/report/x.ts', entry.replace("'../core'", "'../core/index'"))).toEqual([]);
    const pkg = "import { jsonParser } from 'stream-json/core/parser.js';\nexport { jsonParser };";
    expect(await errors('src/node/import/x.ts', pkg)).toEqual([]);
    // Inside the core, its modules import one another.
    expect(await errors('src/node/core/x.ts', "import { sum } from './figures';\nexport { sum };")).toEqual([]);
  });

  it.each([
    ['src/node/server/x.ts', "import { messageRows } from '../agent/opencode/session-export';"],
    ['src/node/agent/x.ts', "import { opencodeWriteSide } from './opencode';"],
    ['src/node/agent/x.ts', "import { claudeCodeWriteSide } from './claude-code/write-side';"],
    ['src/node/report/x.ts', "import { claudeCodeRuntime } from '../core/claude-code';"],
    ['src/node/x.ts', "import { part } from '../shared/opencode/build';"],
    ['src/node/import/x.ts', "import { readTranscript } from './claude-code/transcript';"],
    ['src/chat/x.tsx', "import { parseInfo } from '../shared/opencode/format';"],
    ['src/shared/x.ts', "import { RUNTIME_NAME } from './opencode/runtime';"],
    ['src/node/core/x.ts', "import { claudeCodeRuntime } from './claude-code';"],
  ])('a runtime stays in its folders: %s cannot import it (%s)', async (file, code) => {
    expect((await errors(file, `${code}\nexport {};`)).join()).toMatch(/runtime behind the seam|runtime adapter/);
  });

  it("a runtime's own folders and the registries may import it", async () => {
    const own = "import { messageRows } from './session-export';\nexport { messageRows };";
    expect(await errors('src/node/agent/opencode/x.ts', own)).toEqual([]);
    const registry = "import { opencodeWriteSide } from './opencode';\nexport { opencodeWriteSide };";
    expect(await errors('src/node/agent/runtime-registry.ts', registry)).toEqual([]);
    const read = "import { claudeCodeRuntime } from '../core';\nexport { claudeCodeRuntime };";
    expect(await errors('src/node/report/runtimes.ts', read)).toEqual([]);
  });

  it('Node code may import the shared wire types', async () => {
    expect(
      await errors('src/node/x.ts', "import { SOURCE_IDS } from '../shared/wire';\nexport { SOURCE_IDS };"),
    ).toEqual([]);
  });
});

describe('function and class length in all of src/', () => {
  const longFunction = (lines: number, filler: string) =>
    `export function long(): number {\n  let n = 0;\n${Array.from({ length: lines }, () => filler).join('\n')}\n  return n;\n}\n`;
  // A class of `methods` methods, each of three code lines, inside its two braces.
  const longClass = (methods: number, filler = '') =>
    `export class Long {\n${Array.from({ length: methods }, (_, i) => `  m${i}(): number {\n    return ${i};\n  }${filler}`).join('\n')}\n}\n`;
  const flagged = async (filePath: string, code: string, ruleId: string) => {
    const [result] = await eslint.lintText(code, { filePath });
    return result!.messages.some((m) => m.ruleId === ruleId);
  };
  const tooLong = (filePath: string, code: string) => flagged(filePath, code, 'max-lines-per-function');
  const classTooLong = (filePath: string, code: string) => flagged(filePath, code, 'local/max-class-lines');

  it.each([
    'src/node/core/x.ts',
    'src/node/core/opencode/x.ts',
    'src/node/report/x.ts',
    'src/node/storage/x.ts',
    'src/node/demo/x.ts',
    'src/chat/x.tsx',
    'src/chat/report/x.tsx',
    'src/api/x.ts',
  ])('refuses a function over 80 lines of code in %s, counting neither blank lines nor comments', async (file) => {
    expect(await tooLong(file, longFunction(80, '  n++;'))).toBe(true);
    expect(await tooLong(file, longFunction(76, '  n++;'))).toBe(false);
    expect(await tooLong(file, longFunction(76, '  n++;\n\n  // why'))).toBe(false);
  });

  it('holds the live agent (src/node/agent) to the same 80 lines', async () => {
    expect(await tooLong('src/node/agent/x.ts', longFunction(80, '  n++;'))).toBe(true);
    expect(await tooLong('src/node/agent/opencode/x.ts', longFunction(80, '  n++;'))).toBe(true);
    expect(await tooLong('src/node/agent/x.ts', longFunction(70, '  n++;'))).toBe(false);
  });

  it.each(['src/node/storage/sql/x.ts', 'src/node/server/x.ts', 'src/chat/x.tsx'])(
    'refuses a class over 300 lines of code in %s, counting neither blank lines nor comments',
    async (file) => {
      // 100 methods of 3 lines and the two braces: 302 lines; 99 of them: 299.
      expect(await classTooLong(file, longClass(100))).toBe(true);
      expect(await classTooLong(file, longClass(99))).toBe(false);
      expect(await classTooLong(file, longClass(99, '\n\n  /**\n   * why\n   */\n  // and why'))).toBe(false);
      expect(await classTooLong(`${file}`, `const Anonymous = ${longClass(100).slice('export '.length)}`)).toBe(true);
    },
  );

  it('counts a line of code that ends in a comment', async () => {
    expect(
      await classTooLong('src/node/x.ts', longClass(99, ' // why').replace('return 0;', 'return 0; /* a */')),
    ).toBe(false);
    expect(
      await classTooLong('src/node/x.ts', longClass(99).replace('\n}\n', '\n  x = 1; // a\n  y = 2; /* b */\n}\n')),
    ).toBe(true);
  });
});
