#!/usr/bin/env node
// npm run dev: the API server and Vite's dev server with hot reload (src/node/server/dev.ts).
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../scripts/build-node.mjs';

const { dev } = await import(pathToFileURL(await ensureBuilt('dev')).href);
await dev();
