/**
 * The workspace the OpenCode recordings run in: the demo workspace, with an opencode.json
 * that keeps its instructions but lets the agent read, run and edit (the demo's own denies
 * edits and asks before shell commands), a large application log for the pruning session and
 * a notes file the agent edits. Deterministic, so tests rebuild exactly what was recorded.
 */
import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PROJECT_ROOT } from '../../src/node/project';
import { seededRandom } from '../../src/node/ids';

const DEMO_WORKSPACE = join(PROJECT_ROOT, 'demo', 'workspace');

export const RECORDING_CONFIG = {
  $schema: 'https://opencode.ai/config.json',
  instructions: ['docs/runbook-conventions.md'],
};

/** The recordings' MCP server (test/recording/mcp-server.mjs), as OpenCode's configuration names it. */
export const INCIDENT_MCP = {
  'incident-tools': { type: 'local', command: ['node', join(PROJECT_ROOT, 'test', 'recording', 'mcp-server.mjs')] },
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

/**
 * A dashboard screenshot, the same bytes every time: an RGB PNG of the given size (bands of
 * colour, deflated), for the sessions that show the model an image.
 */
export function screenshotPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) {
      const band = Math.floor((x + y) / 64) % 3;
      rows.set(band === 0 ? [24, 32, 48] : band === 1 ? [70, 130, 180] : [230, 120, 40], row + 1 + x * 3);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export type RecordingWorkspace = 'recording' | 'recording-images' | 'demo';

/** Writes a recording workspace into `dir` (which must be empty or absent). */
export function buildRecordingWorkspace(dir: string, kind: Exclude<RecordingWorkspace, 'demo'> = 'recording'): void {
  mkdirSync(dir, { recursive: true });
  cpSync(DEMO_WORKSPACE, dir, { recursive: true });
  writeFileSync(join(dir, 'opencode.json'), `${JSON.stringify(RECORDING_CONFIG, null, 2)}\n`);
  mkdirSync(join(dir, 'notes'), { recursive: true });
  writeFileSync(join(dir, 'notes', 'findings.md'), NOTES);
  writeFileSync(join(dir, 'evidence', 'app.log'), applicationLog());
  if (kind === 'recording-images') {
    mkdirSync(join(dir, 'evidence', 'screenshots'), { recursive: true });
    writeFileSync(join(dir, 'evidence', 'screenshots', 'tikv-grpc-p99.png'), screenshotPng(1400, 800));
  }
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
