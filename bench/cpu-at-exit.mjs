// Preloaded (`node --import`) into each process bench/start.ts times: at exit, appends the
// process's CPU time (user + system, all its threads, since Node started) to $BENCH_CPU_FILE.
// On a machine shared with other work, wall time mostly measures the waiting; CPU time the work.
import { appendFileSync } from 'node:fs';

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  appendFileSync(process.env.BENCH_CPU_FILE, `${(user + system) / 1000}\n`);
});
