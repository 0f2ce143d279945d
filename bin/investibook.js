#!/usr/bin/env node
// The investibook CLI: the compiled program in build/node (compiled at install, and again here
// when a source file changed since), so no TypeScript is transpiled at run time.
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../scripts/build-node.mjs';

const { run } = await import(pathToFileURL(await ensureBuilt('cli')).href);
process.exitCode = await run(process.argv.slice(2));
