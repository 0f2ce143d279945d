#!/usr/bin/env node
// npm run demo:agent: the compiled scripts/demo-agent.ts (rebuilt first when a source changed).
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../scripts/build-node.mjs';

await import(pathToFileURL(await ensureBuilt('demo-agent')).href);
