#!/usr/bin/env node
// The investibook CLI: the compiled program in build/node. Nothing is built or walked here: a
// packed install runs what it ships (npm pack's `prepack` compiles it), and a checkout runs what
// `npm install`, the tests or `npm run build` compiled, checked only against the checkout's HEAD
// (scripts/build-stamp.mjs; why: docs/architecture.md, "How build/node stays fresh").
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
const { run } = await import(entry);
process.exitCode = await run(process.argv.slice(2));
