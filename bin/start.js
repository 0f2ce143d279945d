#!/usr/bin/env node
// npm start: the compiled server in build/node (rebuilt first when a source file changed).
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../scripts/build-node.mjs';

const { main } = await import(pathToFileURL(await ensureBuilt('server')).href);
await main();
