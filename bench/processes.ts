/**
 * Whole processes timed in turn (bench/start.ts, bench/counts.ts): each command a fresh Node
 * process, the commands one after another in every round, so a target and its floor see the
 * same machine; medians of wall time, CPU time and peak RSS (bench/cpu-at-exit.mjs).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const PROJECT = join(import.meta.dirname, '..');
const CPU_AT_EXIT = pathToFileURL(join(PROJECT, 'bench/cpu-at-exit.mjs')).href;

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface Timing {
  /** Wall time, ms. */
  wall: number;
  /** CPU time (user + system, every thread), ms: what the process did, whatever else ran. */
  cpu: number;
  /** Peak resident set size, MB. */
  rss: number;
}

/** The median timings of each command (node's arguments), run as fresh processes in turn. */
export function roundRobin(dir: string, commands: Record<string, string[]>, runs: number): Record<string, Timing> {
  const seen: Record<string, Timing[]> = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  const file = join(dir, 'cpu.txt');
  for (let i = 0; i < runs; i++) {
    for (const [name, args] of Object.entries(commands)) {
      writeFileSync(file, '');
      const started = performance.now();
      const result = spawnSync(process.execPath, ['--import', CPU_AT_EXIT, ...args], {
        encoding: 'utf8',
        maxBuffer: 1 << 28,
        env: { ...process.env, BENCH_CPU_FILE: file },
      });
      const wall = performance.now() - started;
      if (result.status !== 0) throw new Error(`${name}: ${result.stderr}`);
      const [cpu, rssKib] = readFileSync(file, 'utf8').trim().split(' ').map(Number);
      seen[name]!.push({ wall, cpu: cpu!, rss: rssKib! / 1024 });
    }
  }
  return Object.fromEntries(
    Object.entries(seen).map(([name, t]) => [
      name,
      { wall: median(t.map((x) => x.wall)), cpu: median(t.map((x) => x.cpu)), rss: median(t.map((x) => x.rss)) },
    ]),
  );
}
