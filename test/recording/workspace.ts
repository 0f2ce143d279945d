/**
 * The workspace the OpenCode recordings run in: the demo workspace, with an opencode.json
 * that keeps its instructions but lets the agent read, run and edit (the demo's own denies
 * edits and asks before shell commands), a large application log for the pruning session and
 * a notes file the agent edits. Deterministic, so tests rebuild exactly what was recorded.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../src/node/project';
import { seededRandom } from '../../src/node/ids';

const DEMO_WORKSPACE = join(PROJECT_ROOT, 'demo', 'workspace');

export const RECORDING_CONFIG = {
  $schema: 'https://opencode.ai/config.json',
  instructions: ['docs/runbook-conventions.md'],
};

/** A payment API log: ~6,000 lines, the same every time. */
export function applicationLog(): string {
  const random = seededRandom(20261127);
  const levels = ['INFO', 'INFO', 'INFO', 'WARN', 'ERROR'];
  const events = [
    'txn commit ok',
    'txn commit retry: Write conflict, txnStartTS=452975517860156',
    'backoff tikvRPC: region 7741 epoch not match',
    'merchant_limits lookup latency above budget',
    'connection pool wait above 200ms',
    'GC worker: safe point advanced',
  ];
  const lines: string[] = [];
  let time = Date.parse('2026-11-28T02:00:00Z');
  for (let i = 0; i < 6000; i++) {
    time += 150 + random(400);
    const level = levels[random(levels.length)]!;
    const event = events[random(events.length)]!;
    const request = (random(1 << 30) + 0x10000000).toString(16);
    lines.push(
      `${new Date(time).toISOString()} ${level.padEnd(5)} payment-api[${1000 + random(8)}] req=${request} store=${1 + random(6)} ${event} (${(random(4000) / 1000).toFixed(3)}s)`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export const NOTES = `# Findings (draft)

- First symptom: 02:10 UTC, merchant_limits p99 above 2 s.
- Hypothesis: hot region on store 4.
`;

/** Writes the recording workspace into `dir` (which must be empty or absent). */
export function buildRecordingWorkspace(dir: string): void {
  mkdirSync(dir, { recursive: true });
  cpSync(DEMO_WORKSPACE, dir, { recursive: true });
  writeFileSync(join(dir, 'opencode.json'), `${JSON.stringify(RECORDING_CONFIG, null, 2)}\n`);
  mkdirSync(join(dir, 'notes'), { recursive: true });
  writeFileSync(join(dir, 'notes', 'findings.md'), NOTES);
  writeFileSync(join(dir, 'evidence', 'app.log'), applicationLog());
}

/** A digest of every file of a workspace tree: recordings name the tree they ran in. */
export function treeDigest(dir: string): string {
  const hash = createHash('sha256');
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else
        hash
          .update(`${relative(dir, path)}\0`)
          .update(readFileSync(path))
          .update('\0');
    }
  };
  walk(dir);
  return hash.digest('hex').slice(0, 16);
}
