#!/usr/bin/env node
// The investibook CLI. Runs the TypeScript sources through tsx, so `npx investibook` works in a
// checkout right after `npm install`.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../src/node/cli/main.ts');
process.exitCode = await run(process.argv.slice(2));
