// Preloaded (`node --import`) into the CLI to measure it with V8's own interrupt budget (bench/start.ts):
// the launcher's `--interrupt-budget` is ignored; every other flag it sets is set.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const v8 = createRequire(import.meta.url)('node:v8');
const { setFlagsFromString } = v8;
v8.setFlagsFromString = (flags) => {
  if (!flags.startsWith('--interrupt-budget')) setFlagsFromString(flags);
};
syncBuiltinESMExports();
