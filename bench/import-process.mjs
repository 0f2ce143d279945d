// One measured process of the import benchmark (bench/import.ts): `import ARGS...` through the
// compiled CLI, or `floor FILE` (read the file and JSON.parse it whole). Prints JSON: the time
// of the work, the process's peak RSS, and the exit code.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../scripts/build-node.mjs';

const [what, ...args] = process.argv.slice(2);
const cli = what === 'floor' ? null : await import(pathToFileURL(await ensureBuilt('cli')).href);
const started = performance.now();
let code = 0;
if (what === 'floor') {
  const value = JSON.parse(readFileSync(args[0], 'utf8'));
  if (!value.messages.length) code = 1;
} else {
  const quiet = { out: () => {}, err: (text) => process.stderr.write(text), cwd: process.cwd(), env: process.env };
  code = await cli.run(['import', ...args], quiet);
}
const ms = performance.now() - started;
process.stdout.write(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, code }));
