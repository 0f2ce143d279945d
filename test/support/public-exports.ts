/**
 * A public OpenCode export (test/fixtures/public) stored as the bridge would store it: its rows
 * under one session, and an ACP total of its last measured call (a window of 400,000 tokens).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageRows, type SessionExport } from '../../src/node/agent/opencode/session-export';
import type { PublicSource } from '../../scripts/public-exports';
import { PROJECT_ROOT } from '../../src/node/project';
import { acpUsageRow } from '../../src/node/usage';
import { insertMessageRow, insertUsageRow, WS, type Fixture } from './fixtures';

export const PUBLIC_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'public');
export const PUBLIC_SESSION = 'ses_public';

/** Where a kept export came from (sources.json): the script that keeps them defines it. */
export type { PublicSource };

/**
 * Every public session kept in the folder (OpenCode exports, Claude Code transcripts), by name:
 * what the tests run over, so an export added there is checked without a test naming it.
 */
export function publicExportFiles(): string[] {
  return readdirSync(PUBLIC_DIR)
    .filter((file) => /\.jsonl?$/.test(file) && file !== 'sources.json')
    .sort();
}

/** The provenance of every kept export, as sources.json records it. */
export function publicSources(): PublicSource[] {
  return JSON.parse(readFileSync(join(PUBLIC_DIR, 'sources.json'), 'utf8')) as PublicSource[];
}

export function seedPublicExport(fx: Pick<Fixture, 'raw'>, file: string): void {
  const exported = JSON.parse(readFileSync(join(PUBLIC_DIR, file), 'utf8').replace(/^\uFEFF/, '')) as SessionExport;
  let last = 0;
  for (const row of messageRows(exported)) {
    insertMessageRow(fx.raw, { ...row, workspaceId: WS, sessionId: PUBLIC_SESSION });
    last = Math.max(last, row.timeUpdated);
  }
  const measured = exported.messages
    .filter((m) => m.info.role === 'assistant' && !m.info.summary)
    .map((m) => m.info.tokens as { input: number; cache: { read: number; write: number } } | undefined)
    .filter((t) => t && t.input + t.cache.read + t.cache.write > 0)
    .at(-1)!;
  const used = measured.input + measured.cache.read + measured.cache.write;
  insertUsageRow(fx.raw, acpUsageRow(WS, PUBLIC_SESSION, { used, size: 400_000, cost: null }, last + 1));
}
