/**
 * The streaming import (`investibook import`) of a ~200 MB OpenCode export: the time and peak
 * RSS of the command in a fresh process, the first time and again (nothing to write), against
 * the floor of reading the same file and JSON.parse-ing it whole, which an import that held the
 * export in memory could not beat. The export is the public Ollama session (548 calls) repeated
 * with fresh message ids until it is large enough.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const PROJECT = join(import.meta.dirname, '..');
const SOURCE = join(PROJECT, 'test/fixtures/public/ollama-minimax-m2.7-cloud_k1lib-bootstrap.json');

interface Measured {
  ms: number;
  maxRssMb: number;
  code: number;
}

/** An export of about `bytes`, written to `path`; its size and message count. */
export function largeExport(path: string, bytes: number): { bytes: number; messages: number } {
  const exported = JSON.parse(readFileSync(SOURCE, 'utf8')) as { info: unknown; messages: { info: { id: string } }[] };
  const fd = openSync(path, 'w');
  let written = writeSync(fd, `{"info":${JSON.stringify(exported.info)},"messages":[`);
  let messages = 0;
  for (let round = 0; written < bytes; round++) {
    for (const message of exported.messages) {
      const text = JSON.stringify(message).replaceAll(message.info.id, `${message.info.id}r${round}`);
      written += writeSync(fd, `${messages === 0 ? '' : ','}${text}`);
      messages++;
    }
  }
  writeSync(fd, ']}\n');
  closeSync(fd);
  return { bytes: statSync(path).size, messages };
}

function measure(args: string[], cwd: string, nodeFlags: string[] = []): Measured {
  const out = execFileSync(process.execPath, [...nodeFlags, join(PROJECT, 'bench/import-process.mjs'), ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  const result = JSON.parse(out) as Measured;
  if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}`);
  return result;
}

export function benchImport(dir: string, bytes = 200e6): string[] {
  const file = join(dir, 'large-export.json');
  const root = join(dir, 'import-root');
  mkdirSync(root, { recursive: true });
  const made = largeExport(file, bytes);
  const floor = measure(['floor', file], dir);
  const args = ['import', file, '--db', join(dir, 'import.db'), '--root', root, '--workspace', 'bench'];
  const first = measure(args, dir);
  const again = measure(args, dir);
  // The same import with V8's heap held to 64 MB: it finishes, so the writing's memory is bounded
  // (the default run's RSS is garbage V8 had no reason to collect yet). Without its counting
  // (`--no-count`): that makes a report of each session written, which holds the session as any
  // report does — this one session is 200 MB, beyond 64 MB of heap (`db count` stores them later).
  const capped = measure([...args.slice(0, 3), join(dir, 'capped.db'), ...args.slice(4), '--no-count'], dir, [
    '--max-old-space-size=64',
  ]);
  const mb = (made.bytes / 1e6).toFixed(0);
  const s = (m: Measured) => `${(m.ms / 1000).toFixed(1)} s`;
  return [
    `| export | messages | floor: read + JSON.parse whole | import (new database) | import again (nothing to write) | import --no-count, heap capped at 64 MB |`,
    `|---|---:|---:|---:|---:|---:|`,
    `| ${mb} MB | ${made.messages.toLocaleString('en-US')} | ${s(floor)}, peak RSS ${floor.maxRssMb.toFixed(0)} MB | ${s(first)} (${(first.ms / floor.ms).toFixed(1)}×), peak RSS ${first.maxRssMb.toFixed(0)} MB | ${s(again)} (${(again.ms / floor.ms).toFixed(1)}×), peak RSS ${again.maxRssMb.toFixed(0)} MB | ${s(capped)}, peak RSS ${capped.maxRssMb.toFixed(0)} MB |`,
  ];
}
