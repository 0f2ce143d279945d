// Preloaded (`node --import`) into each process the bench times as a whole (bench/processes.ts):
// at exit, appends the process's CPU time (user + system, all its threads, since Node started),
// in ms, and its peak resident set size, in KiB, to $BENCH_CPU_FILE. On a machine shared with
// other work, wall time mostly measures the waiting; CPU time the work.
import { appendFileSync } from 'node:fs';

process.on('exit', () => {
  const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
  appendFileSync(process.env.BENCH_CPU_FILE, `${(userCPUTime + systemCPUTime) / 1000} ${maxRSS}\n`);
});
