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
    ['src/app/x.tsx', "import { generateReport } from '../node/report/context-report';"],
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

  it('Node code may import the shared wire types', async () => {
    expect(
      await errors('src/node/x.ts', "import { SOURCE_IDS } from '../shared/wire';\nexport { SOURCE_IDS };"),
    ).toEqual([]);
  });
});
