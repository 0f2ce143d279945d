#!/usr/bin/env node
// npm start: runs the TypeScript server through tsx (no separate build step for Node code).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/node/server/main.ts');
await main();
