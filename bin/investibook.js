#!/usr/bin/env node
// The investibook CLI: the compiled program in build/node. Nothing is built or walked here: a
// packed install runs what it ships (npm pack's `prepack` compiles it), and a checkout runs what
// `npm install`, the tests or `npm run build` compiled, checked only against the checkout's HEAD
// (scripts/build-stamp.mjs; why: docs/architecture.md, "How build/node stays fresh").
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';

// A command here is one burst of allocation, most of it garbage at once: V8's young generation,
// left to grow to 16 MB a semi-space, holds that garbage resident (it took the cold report of a
// 1M-token workspace over 250 MB of peak RSS: docs/benchmarks.md, issue 42.2). Its size is a
// start-up flag, which a program cannot pass itself without a second process, but the growth
// factor is read whenever V8 would grow it: at 1, set before anything loads, the space stays at
// its initial 1 MB semi-space. `investibook serve` gives V8's default back (cli/lean-heap.ts).
setFlagsFromString('--semi-space-growth-factor=1');
// A command is also short: most of its functions run a few times and are done, and TurboFan
// compiling the ones V8 first finds hot (on threads beside the command's own) cost more CPU than
// it saved — the demo's report 587 → 520 ms CPU, a 4 MB export's 4.6 → 3.8 s, with V8's
// interrupt budget 16 times its default (67,584), so that a function is optimized only after 16
// times the work. What runs long (a large workspace's analysis) still is, a little later.
// `investibook serve` gives the default back too (cli/lean-heap.ts).
setFlagsFromString('--interrupt-budget=1081344');

const fail = (message) => {
  process.stderr.write(`investibook: ${message}\n`);
  process.exit(1);
};
const compiled = new URL('../build/node/cli.mjs', import.meta.url);
let entry = compiled.href;
if (existsSync(new URL('../scripts/build-stamp.mjs', import.meta.url))) {
  // A checkout: compiled again only when HEAD moved and a source changed.
  const { freshEntry } = await import('../scripts/build-stamp.mjs');
  entry = pathToFileURL(
    await freshEntry('cli', fileURLToPath(new URL('..', import.meta.url))).catch((error) =>
      fail(error.message.replace(/^investibook: /, '')),
    ),
  ).href;
} else if (!existsSync(compiled)) {
  fail(`${fileURLToPath(compiled)} is missing: this install is incomplete; install the package again`);
}
const argv = process.argv.slice(2);
// The report, the command a user waits on, runs the CLI's CommonJS script from V8's code cache
// (src/node/cli/code-cache.ts; `--help` and the rest stay on the split ES modules, which load
// less). The cache is written after the first report that succeeds, and never changes output.
const script = new URL('cli.cjs', entry);
if (argv[0] === 'debug' && argv[1] === 'context' && existsSync(script)) {
  const { runCached } = await import(new URL('code-cache.mjs', entry).href);
  const cli = runCached(fileURLToPath(script));
  process.exitCode = await cli.exports.run(argv);
  if (process.exitCode === 0) cli.save();
} else {
  const { run } = await import(entry);
  process.exitCode = await run(argv);
}
