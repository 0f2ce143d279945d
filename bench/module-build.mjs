// Preloaded (`node --import`) into the CLI to measure the report as it ran before issue 42.1's
// code-cache step (bench/start.ts): the launcher does not see build/node/cli.cjs, so `debug
// context` runs the split ES-module build (cli.mjs and its chunks), compiled at every start.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const fs = createRequire(import.meta.url)('node:fs');
const { existsSync } = fs;
fs.existsSync = (path) => !String(path).endsWith('/build/node/cli.cjs') && existsSync(path);
syncBuiltinESMExports();
