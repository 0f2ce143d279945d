/**
 * `INVESTIBOOK_AGENT_RUNTIME=claude-code npm run demo:agent` as a user meets it: the real process
 * (the server, the scripted model speaking Anthropic's Messages API, the pinned Claude Code over
 * ACP in the workspace's sandbox), a real Chromium, sign-in by link. A message runs a Claude Code
 * turn in the chat — its calls by Claude Code's tool names, its reply streamed — the turn is saved
 * from Claude Code's own transcript as rows of its runtime, and `/debug` names Claude Code's
 * runtime and books the evidence it read to Evidence.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { contextReportSchema } from '../../src/shared/wire';
import { launchChromium } from '../support/browser';
import { startServerProcess, type ServerProcess } from '../support/server-process';

const TOKEN = 'claude-token';
let dir: string;
let server: ServerProcess;
let browser: Browser;

const api = async (path: string) =>
  (await fetch(`${server.origin}/api/workspace/demo${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } })).json();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'investibook-claude-live-'));
  server = await startServerProcess(
    join(dir, 'investibook.db'),
    TOKEN,
    { INVESTIBOOK_AGENT_RUNTIME: 'claude-code' },
    'demo-agent.js',
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Claude Code as the live agent, in the browser', () => {
  it('runs a turn in the chat; /debug names Claude Code and books its evidence read to Evidence', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(server.url);
    const input = page.getByRole('combobox', { name: 'Message' });
    await input.fill('what do we know?');
    await input.press('Enter');

    // The call streams under Claude Code's own tool name, then the reply.
    const live = page.getByRole('article', { name: 'Agent (live reply)' });
    await live.locator('.tool-call').filter({ hasText: 'Read' }).first().waitFor({ timeout: 120_000 });
    await page.getByText('From the evidence summary', { exact: false }).first().waitFor({ timeout: 120_000 });
    await expect.poll(() => live.count(), { timeout: 60_000 }).toBe(0);

    // Saved from Claude Code's transcript: rows of its runtime, the prompt among them once.
    const report = contextReportSchema.parse(await api('/debug/context?items=all'));
    const db = new Database(join(dir, 'investibook.db'), { readonly: true });
    try {
      const runtimes = db
        .prepare('SELECT DISTINCT runtime FROM messages_v2 WHERE workspace_id = ? AND session_id = ?')
        .all('demo', report.sessionId) as { runtime: string }[];
      expect(runtimes).toEqual([{ runtime: 'claude-code' }]);
    } finally {
      db.close();
    }

    // The report: Claude Code's runtime item, the evidence read under Evidence.
    const items = report.sources.flatMap((s) => s.items.map((i) => ({ source: s.id, label: i.label })));
    expect(items).toContainEqual({ source: 'agent_instructions', label: 'Claude Code system prompt and tool schemas' });
    expect(items.filter((i) => i.source === 'evidence').map((i) => i.label)).toContainEqual(
      expect.stringContaining('evidence_summary_for_agent.txt'),
    );

    // /debug in the chat says the same.
    await input.fill('/debug');
    await input.press('Enter');
    const region = page.getByRole('region', { name: /^Context breakdown/ });
    await region.waitFor({ timeout: 60_000 });
    await region.getByRole('button', { name: 'Agent/runtime instructions', exact: true }).click();
    await region.getByText('Claude Code system prompt and tool schemas').first().waitFor();
    await region.getByRole('button', { name: 'Evidence', exact: true }).click();
    await region
      .getByText(/evidence_summary_for_agent\.txt/)
      .first()
      .waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });
});
