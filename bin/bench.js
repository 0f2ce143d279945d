#!/usr/bin/env node
// npm run bench: see bench/run.ts. Pass --quick to skip the largest size.
import { register } from 'tsx/esm/api';

register();
await import('../bench/run.ts');
