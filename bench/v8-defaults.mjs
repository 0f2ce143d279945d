// Preloaded (`node --import`) into the CLI to measure it as it was before issue 42.2's memory
// step (bench/counts.ts): V8's own young-generation sizes. The launcher's growth-factor flag is
// ignored and the tokenizer threads start without their young-generation limit; nothing else
// changes.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
const v8 = require('node:v8');
const threads = require('node:worker_threads');

const { setFlagsFromString } = v8;
v8.setFlagsFromString = (flags) => {
  if (!flags.startsWith('--semi-space-growth-factor')) setFlagsFromString(flags);
};
const { Worker } = threads;
threads.Worker = class extends Worker {
  constructor(file, options = {}) {
    const { resourceLimits: _, ...rest } = options;
    super(file, rest);
  }
};
syncBuiltinESMExports();
